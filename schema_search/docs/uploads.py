"""Uploaded documents -> a folder to index: zip and tar archives, or loose files, unpacked safely.

Nothing is written outside the target folder (absolute paths, ``..``, links and
devices are refused), and the number and total size of the files are bounded
before anything is unpacked, so an archive bomb fails fast with a clear error.
"""

from __future__ import annotations

import io
import tarfile
import zipfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from ..errors import PayloadTooLarge, SourceError

ZIP_TYPES = {"application/zip", "application/x-zip-compressed"}
TAR_TYPES = {
    "application/x-tar",
    "application/gzip",
    "application/x-gzip",
    "application/x-gtar",
    "application/x-compressed-tar",
}
# Unpacked text can be much larger than the archive; this many times the upload limit is allowed.
EXPANSION = 10


def unpack(body: bytes, media_type: str, folder: Path, max_files: int, max_bytes: int) -> int:
    """Unpack an archive into ``folder``; returns how many files it held.

    Raises:
        SourceError: not a readable archive, or a member with an unsafe path.
        PayloadTooLarge: too many files, or too many bytes once unpacked.
    """
    if media_type in ZIP_TYPES:
        try:
            archive = zipfile.ZipFile(io.BytesIO(body))
        except zipfile.BadZipFile as error:
            raise SourceError(
                f"The upload is not a readable zip archive ({error}).", hint="Send a .zip file."
            ) from None
        with archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            _check(((m.filename, m.file_size) for m in members), max_files, max_bytes)
            for member in members:
                _write(folder, member.filename, archive.read(member))
            return len(members)
    try:
        archive = tarfile.open(fileobj=io.BytesIO(body), mode="r:*")
    except tarfile.TarError as error:
        raise SourceError(
            f"The upload is not a readable tar archive ({error}).", hint="Send a .tar or .tar.gz file."
        ) from None
    with archive:
        members = archive.getmembers()
        unsafe = [m.name for m in members if not (m.isfile() or m.isdir())]
        if unsafe:
            raise SourceError(
                f"The archive holds links or devices: {', '.join(unsafe[:3])}.", hint="Archive plain files only."
            )
        files = [m for m in members if m.isfile()]
        _check(((m.name, m.size) for m in files), max_files, max_bytes)
        for member in files:
            extracted = archive.extractfile(member)
            _write(folder, member.name, extracted.read() if extracted else b"")
        return len(files)


def write_files(files: Iterable[tuple[str, bytes]], folder: Path, max_files: int, max_bytes: int) -> int:
    """Write loose uploaded files (``name`` may hold folders) into ``folder``; returns how many."""
    files = list(files)
    _check(((name, len(data)) for name, data in files), max_files, max_bytes)
    for name, data in files:
        _write(folder, name, data)
    return len(files)


def _check(members: Iterable[tuple[str, int]], max_files: int, max_bytes: int) -> None:
    members = list(members)
    if len(members) > max_files:
        raise PayloadTooLarge(
            f"The upload holds {len(members)} files; the limit is {max_files}.",
            hint="Split it, or raise SCHEMA_SEARCH_MAX_UPLOAD_FILES.",
        )
    total = sum(size for _, size in members)
    if total > EXPANSION * max_bytes:
        raise PayloadTooLarge(
            f"The upload unpacks to {total} bytes; the limit is {EXPANSION * max_bytes}.",
            hint="Split it, or raise SCHEMA_SEARCH_MAX_UPLOAD_BYTES.",
        )
    for name, _ in members:
        _safe(name)


def _safe(name: str) -> PurePosixPath:
    """A member name as a relative path inside the folder.

    >>> str(_safe("docs/a.md")), str(_safe("./b.md"))
    ('docs/a.md', 'b.md')
    """
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or not path.parts or ":" in path.parts[0]:
        raise SourceError(f"Unsafe path in the upload: {name!r}.", hint="Use relative paths without '..'.")
    return PurePosixPath(*[p for p in path.parts if p != "."])


def _write(folder: Path, name: str, data: bytes) -> None:
    target = folder.joinpath(*_safe(name).parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
