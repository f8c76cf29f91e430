"""What an upload is, from its first bytes, whatever its Content-Type says.

``curl -F file=@schema.sql`` sends a multipart/form-data envelope; sent on with
``-H 'Content-Type: text/plain'`` it reached the DDL parser, which read the envelope
as DDL (its boundary and headers too) and answered with a parse error that named
neither mistake. The upload routes check this before parsing and answer 415, naming
what the body is and how to send it.
"""

from __future__ import annotations

import re

# A form's first boundary line (``--`` and the boundary; a preamble before it is allowed
# by RFC 2046, and no client sends one), then a part's headers, one of them saying form-data.
_FORM = re.compile(rb"\s*--[^\r\n]{1,200}\r?\n(?:[^\r\n]*\r?\n){0,8}?content-disposition:[ \t]*form-data", re.I)
_MAGIC = (
    (b"PK\x03\x04", "a zip archive"),
    (b"PK\x05\x06", "a zip archive"),
    (b"\x1f\x8b", "a gzip file"),
    (b"%PDF-", "a PDF file"),
)
HEAD_BYTES = 2048  # a form's first part headers fit; a regular expression over them costs nothing


def sniff(body: bytes) -> str | None:
    r"""What the body is when its first bytes say so (a form, an archive, a PDF), else None.

    >>> sniff(b'--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.sql"\r\n\r\nCREATE TABLE t (id int);')
    'a multipart/form-data envelope'
    >>> sniff(b"PK\x03\x04..."), sniff(b"-- a comment\nCREATE TABLE t (id int);")
    ('a zip archive', None)
    """
    head = body[:HEAD_BYTES]
    if _FORM.match(head):
        return "a multipart/form-data envelope"
    # POSIX tar ("ustar\0" + "00") or GNU tar ("ustar  \0"): the word alone may be in a DDL comment.
    if head[257:265] in (b"ustar\x0000", b"ustar  \x00"):
        return "a tar archive"
    return next((what for magic, what in _MAGIC if head.startswith(magic)), None)


def is_form(body: bytes) -> bool:
    """Whether the body is a multipart/form-data envelope (see :func:`sniff`)."""
    return sniff(body) == "a multipart/form-data envelope"
