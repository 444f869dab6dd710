"""hardsoft: certify that softmax attention simulates hard attention."""

__version__ = "0.1.0"
