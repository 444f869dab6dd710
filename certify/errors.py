"""Error types shared by every layer of hardsoft.

A :class:`UserError` is a mistake in what the user gave us (a model file, an
expression, a command-line value).  The CLI prints it as one line and exits with
status 3; it never shows a traceback for it.
"""


class UserError(Exception):
    """Invalid input; reported as one line, exit status 3."""


class ExprError(UserError):
    """An expression that does not parse, or is undefined where it is evaluated."""


class ModelError(UserError):
    """A model.json file that breaks the v1 contract; the message names the key path."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)
