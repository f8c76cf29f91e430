"""E-mail addresses and phone numbers masked in what is logged: a question or a page may carry them.

Installed on the handlers, not the loggers: a logger's filter sees only what is logged at that
logger, a handler's sees every record it writes, from litellm, uvicorn and us alike.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from urllib.parse import unquote_plus

from .personal import mask

# The loggers whose handlers write what a server logs: the root's, and uvicorn's own.
LOGGERS = ("", "uvicorn", "uvicorn.error", "uvicorn.access")


class MaskPersonal(logging.Filter):
    """Masks the e-mail addresses and phone numbers in each record's message and arguments.

    The arguments are masked one by one and keep their shape: uvicorn's access formatter
    unpacks them (client, method, path, version, status). A path's query string is read
    percent-decoded, so ``q=call+%2B1+415+555+0134`` is caught too.

    >>> record = logging.LogRecord("x", logging.INFO, "", 0, "asked by %s", ("ann@acme.example",), None)
    >>> MaskPersonal().filter(record), record.getMessage()
    (True, 'asked by [e-mail]')
    >>> record = logging.LogRecord("x", logging.INFO, "", 0, '%s "%s %s"', ("1.2.3.4", "GET", "/s?q=call+%2B1+415+555+0134"), None)
    >>> MaskPersonal("US").filter(record), record.args[2]
    (True, '/s?q=call [phone]')
    """

    def __init__(self, region: str | None = None) -> None:
        super().__init__()
        self.region = region

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = self._masked(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(self._masked(arg) for arg in record.args)
        elif isinstance(record.args, Mapping):
            record.args = {key: self._masked(value) for key, value in record.args.items()}
        return True

    def _masked(self, value: object) -> object:
        if not isinstance(value, str):
            return value
        plain = unquote_plus(value) if "%" in value or "+" in value else value
        masked = mask(plain, self.region)
        return masked if masked != plain else value


def install(region: str | None = None, loggers: Iterable[str] = LOGGERS) -> None:
    """Put the filter on every handler of ``loggers`` (once each)."""
    for name in loggers:
        for handler in logging.getLogger(name).handlers:
            if not any(isinstance(f, MaskPersonal) for f in handler.filters):
                handler.addFilter(MaskPersonal(region))
