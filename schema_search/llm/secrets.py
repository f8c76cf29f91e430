"""The environment's secrets: which variables hold one, and text with their values taken out.

Provider keys live in the environment (``OPENAI_API_KEY``, ...). A provider's error can echo
one back, so a model's failure is :func:`redact`-ed before a person or a log sees it (the
vision model here, the table describer in :mod:`schema_search.describe`); and the child
that parses untrusted documents starts without them (:func:`is_secret`), as nothing it runs
needs a key.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)
# Shorter values are not worth hiding and would mangle ordinary words ("on", "true").
MIN_SECRET_CHARS = 8
MASK = "***"


def is_secret(name: str) -> bool:
    """Whether an environment variable of this name looks like it holds a secret.

    >>> [is_secret(n) for n in ("OPENAI_API_KEY", "GH_TOKEN", "PGPASSWORD", "aws_secret_access_key", "PATH")]
    [True, True, True, True, False]
    """
    return bool(_SECRET_NAME.search(name))


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """``text`` with the value of every secret-looking variable of ``environ`` (the process's
    environment by default) replaced by ``***``.

    >>> redact("AuthenticationError: bad key sk-abcdefgh123", {"VISION_API_KEY": "sk-abcdefgh123", "HOME": "bad"})
    'AuthenticationError: bad key ***'
    """
    for name, value in (os.environ if environ is None else environ).items():
        if len(value) >= MIN_SECRET_CHARS and is_secret(name) and value in text:
            text = text.replace(value, MASK)
    return text
