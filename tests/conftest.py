"""Shared pytest configuration: the ``slow`` marker (CI runs ``-m "not slow"``)."""


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes more than ~20 s; CI skips it with -m 'not slow'")
