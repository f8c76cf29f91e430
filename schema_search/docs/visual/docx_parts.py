"""A DOCX file's parts: the zip members it is made of, inflated within a limit, and its XML namespace.

Shared by the DOCX reader (``word/document.xml``, in the indexing process) and the child
(each image, :mod:`.worker`). A zip member's declared size is the file's word, not a
limit: a deflated member inflates to whatever its stream holds, and bzip2 or LZMA ones
have no bound the standard library checks. So a member is inflated only up to ``limit``
bytes (and one byte more, to tell it is larger), only when it is stored or deflated (what
Word, LibreOffice and Pages write), and any way it can fail (damaged, encrypted, a
compression the standard library lacks) is a ``ValueError`` naming the member.
"""

from __future__ import annotations

import zipfile
import zlib

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
# An XML part inflated larger than this is not a document anyone wrote (the longest real
# ``document.xml`` files are tens of MB): a zip bomb, refused before it fills the memory.
MAX_PART_BYTES = 200_000_000
_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}


class TooLarge(ValueError):
    """A member inflates to more than the limit it was read with."""


def read_member(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """Member ``name`` of ``archive``, inflated, if it is at most ``limit`` bytes.

    >>> import io
    >>> out = io.BytesIO()
    >>> with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    ...     z.writestr("a.xml", "<a/>" * 100)
    ...     z.writestr("b.bin", b"x", compress_type=zipfile.ZIP_BZIP2)
    >>> archive = zipfile.ZipFile(out)
    >>> len(read_member(archive, "a.xml", 400))
    400
    >>> for name, limit in (("a.xml", 399), ("b.bin", 9)):
    ...     try:
    ...         read_member(archive, name, limit)
    ...     except ValueError as error:
    ...         print(type(error).__name__, error)
    TooLarge a.xml inflates to more than 399 bytes
    ValueError b.bin is compressed with method 12; a DOCX part is stored or deflated

    Raises:
        KeyError: there is no such member.
        TooLarge: it is larger than ``limit``.
        ValueError: it is damaged, encrypted, or compressed otherwise.
    """
    info = archive.getinfo(name)
    if info.compress_type not in _METHODS:
        raise ValueError(f"{name} is compressed with method {info.compress_type}; a DOCX part is stored or deflated")
    if info.flag_bits & 0x1:
        raise ValueError(f"{name} is encrypted")
    try:
        with archive.open(info) as member:
            data = member.read(limit + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError, OSError) as error:
        raise ValueError(f"{name} is damaged ({type(error).__name__}: {error})") from None
    if len(data) > limit:
        raise TooLarge(f"{name} inflates to more than {limit:,} bytes")
    return data
