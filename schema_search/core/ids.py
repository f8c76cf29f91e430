"""Short source IDs: a letter for the item kind and a few hex digits of a hash of where the item is.

Agents copy a short ID faithfully where they drop or mangle a long name or URL; the
server maps it back. An ID depends only on the names it is made of, so it is stable
across re-indexing.
"""

from __future__ import annotations

import hashlib

DIGITS = 6


def short_id(letter: str, *parts: str, digits: int = DIGITS) -> str:
    """``letter`` and the first ``digits`` hex digits of the SHA-1 of ``parts`` joined by NUL.

    >>> short_id("T", "crm", "public.contacts")
    'Tede488'
    >>> len(short_id("S", "a", "b", digits=8))
    9
    """
    return letter + hashlib.sha1("\x00".join(parts).encode()).hexdigest()[:digits]
