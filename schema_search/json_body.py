"""What a JSON request body must be before anything parses it: UTF-8, not absurdly nested, no lone surrogates.

Each check is linear and runs in C (a decode, two regular expressions, a numpy
cumulative sum), so a 1 MB body costs milliseconds whatever it holds. Why they are
needed:

* ``{"question": "\\ud800"}`` is valid JSON syntax, and Python's parser turns the
  escape into a lone surrogate: a ``str`` that cannot be encoded. The search ran, and
  writing the response (which repeats the question) failed with a 500. Raw bytes
  ``ED A0 80`` (a surrogate written as UTF-8) reach the same place, because
  ``json.loads`` decodes bytes with ``surrogatepass``.
* A body nested 100,000 deep makes ``json.loads`` raise ``RecursionError``, which
  FastAPI answers with a bare 400 and our own JSON parsing with a 500.
"""

from __future__ import annotations

import json
import re
from typing import Annotated

import numpy as np
from pydantic import BeforeValidator

from .errors import InvalidInput

# Every request this API takes is a few levels deep; the JSON query form, the deepest, about five.
MAX_DEPTH = 64

# A string from its opening quote to its closing one, or to the end of the body when it is
# never closed (with a lone backslash last, too). Every quote that opens a match ends in one,
# so the search never restarts inside a string: linear, where a pattern that had to find the
# closing quote rescanned the rest of the body from every quote of `"\"\"\"...` (40 KB held a
# worker 16.7 s; 80 KB 50 s).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.S)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = np.zeros(256, dtype=np.int8)
_STEP[list(b"[{")] = 1
_STEP[list(b"]}")] = -1


def check_json_body(body: bytes, max_depth: int = MAX_DEPTH) -> None:
    r"""Refuse a body that is not UTF-8, nests deeper than ``max_depth``, or escapes a lone surrogate.

    Malformed JSON is left to the parser, which says where it broke.

    >>> check_json_body(b'{"question": "caf\\u00e9 \\ud83d\\ude00", "k": [[1]]}')  # a surrogate pair is fine
    >>> check_json_body(b'{"question": "\\ud800"}')
    Traceback (most recent call last):
    ...
    schema_search.errors.InvalidInput: The JSON body holds "\ud800", half of a UTF-16 surrogate pair, which is not text. Escape a character outside the Basic Multilingual Plane as a pair (\ud83d\ude00), or send it as UTF-8.

    Raises:
        InvalidInput: what was wrong, and what to send instead.
    """
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidInput(
            f"The JSON body is not UTF-8 text (byte {error.start}: {body[error.start : error.start + 1]!r}).",
            hint="Send JSON encoded as UTF-8.",
        ) from None
    depth = nesting_depth(body)
    if depth > max_depth:
        raise InvalidInput(
            f"The JSON body is nested {depth:,} levels deep; the limit is {max_depth}.",
            hint="Send the request shape documented at /docs; no request needs more than a few levels.",
        )
    lone = lone_surrogate(body)
    if lone is not None:
        raise InvalidInput(
            f'The JSON body holds "{lone}", half of a UTF-16 surrogate pair, which is not text.',
            hint="Escape a character outside the Basic Multilingual Plane as a pair (\\ud83d\\ude00), "
            "or send it as UTF-8.",
        )


def nesting_depth(body: bytes) -> int:
    r"""How deep the arrays and objects of a JSON text nest (brackets inside strings do not count).

    >>> nesting_depth(b'{"a": [1, {"b": "[[[["}]}'), nesting_depth(b'"x"'), nesting_depth(b"[" * 5000)
    (3, 0, 5000)
    >>> nesting_depth(b'[[{"a": "never closed [[[['), nesting_depth(rb'["\\"]'), nesting_depth(b'["' + b"\\")
    (3, 1, 1)
    """
    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    steps = _STEP[np.frombuffer(brackets, dtype=np.uint8)]
    return int(np.cumsum(steps, dtype=np.int32).max())


def lone_surrogate(body: bytes) -> str | None:
    r"""The first lone surrogate a string of ``body`` escapes (``\ud800`` with no other half), else None.

    >>> lone_surrogate(rb'["\ud83d\ude00", "\udc00"]'), lone_surrogate(rb'"\\ud800"')  # the second is a backslash
    ('\\udc00', None)
    """
    if not _SURROGATE_ESCAPE.search(body):  # the common case: no escape of a surrogate at all
        return None
    try:
        value = json.loads(body)  # safe: the depth is checked first
    except ValueError:  # malformed: the parser that runs next says where
        return None
    try:
        # Encoding is where a lone surrogate fails, as it did when the response was written.
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        return f"\\u{ord(error.object[error.start]):04x}"
    return None


def _json_integer(value: object) -> object:
    """What JSON calls an integer: a number with no fraction (``87`` or ``87.0``), never ``true`` or ``"87"``.

    >>> _json_integer(87.0), _json_integer(5)
    (87.0, 5)
    """
    if isinstance(value, (bool, str)):  # lax int would take true as 1 and "5" as 5
        raise ValueError("must be a number (an integer), not a boolean or a string")
    return value


# An integer field of a request body, as its JSON schema says: 87.0 is 87; booleans and strings are refused.
JsonInt = Annotated[int, BeforeValidator(_json_integer)]
