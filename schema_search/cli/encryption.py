"""``schemasift encryption status`` and ``rotate``: which spaces are encrypted, and a new key-encryption key.

Rotation re-wraps each data directory's data key (``datakey.json``, replaced atomically)
and touches no index: a corpus of any size rotates in milliseconds. A rotation cut short
is finished by running it again: directories already wrapped by the new key are skipped.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..core import sealing
from ..core.store import Store
from ..errors import InvalidInput
from ..settings import Settings
from ..spaces.registry import Spaces, space_home
from ..workspace import CATALOGS, CORPORA
from ..workspace.configs import configured_kek
from .output import examples


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``encryption status`` and ``encryption rotate``."""
    encryption = commands.add_parser(
        "encryption",
        help="encryption at rest: which spaces are encrypted; rotate the key-encryption key",
        **examples(
            "schemasift encryption status",
            "schemasift encryption rotate --new-kek-file new-kek.bin",
        ),
    )
    encryption.set_defaults(print_help=encryption.print_help, rooted=True)
    actions = encryption.add_subparsers(dest="action", metavar="COMMAND", help="one of:")
    status = actions.add_parser(
        "status",
        help="each space's collections, and whether their live generation is encrypted",
        **examples("schemasift encryption status"),
    )
    status.set_defaults(run=_status, rooted=True)  # every space, from the root home
    rotate = actions.add_parser(
        "rotate",
        help="re-wrap every space's data key with a new key-encryption key (no re-indexing)",
        **examples("schemasift encryption rotate --new-kek-file new-kek.bin"),
    )
    rotate.add_argument("--new-kek-file", type=Path, required=True, help="file of the new key (32 random bytes)")
    rotate.add_argument(
        "--old-kek-file", type=Path, default=None, help="file of the current key (default: the configured one)"
    )
    rotate.set_defaults(run=_rotate, rooted=True)


def data_directories(settings: Settings) -> list[tuple[str, Path]]:
    """``(space, its data directory)`` for every space, the default (the root home) first."""
    return [(space, space_home(settings.home, space)) for space in Spaces(settings).names()]


def _status(args: argparse.Namespace, settings: Settings) -> int:
    kek = configured_kek(settings)
    print(f"key-encryption key: {'configured, fingerprint ' + sealing.fingerprint(kek) if kek else 'not configured'}")
    for space, folder in data_directories(settings):
        record = sealing.read_record(folder)
        key = f"data key {record['id']}, wrapped by {record['kek']}" if record else "no data key"
        print(f"\nspace {space} ({folder}): {key}")
        for shelf in (CATALOGS, CORPORA):
            store = Store(folder, shelf)
            for name in store.names():
                manifest = store.current(name).manifest()
                state = "encrypted" if manifest.get(sealing.SEALED) else "plain text (re-index to encrypt)"
                print(f"  {shelf.noun} {name}: {state}")
    return 0


def _rotate(args: argparse.Namespace, settings: Settings) -> int:
    old = sealing.load_kek(args.old_kek_file) if args.old_kek_file else configured_kek(settings)
    if old is None:
        raise InvalidInput(
            "No current key-encryption key to rotate from.",
            hint="Configure it (SCHEMA_SEARCH_KEK_FILE) or name it with --old-kek-file.",
        )
    new = sealing.load_kek(args.new_kek_file)
    assert new is not None
    done = sealing.fingerprint(new)
    for space, folder in data_directories(settings):
        record = sealing.read_record(folder)
        if record is None:
            continue
        if record.get("kek") == done:  # a rotation cut short, run again
            print(f"space {space}: already wrapped by {done}")
            continue
        sealing.rewrap(folder, old, new)
        print(f"space {space}: data key {record['id']} re-wrapped by {done}")
    print(
        f"Now point SCHEMA_SEARCH_KEK_FILE at {args.new_kek_file}. The data keys themselves are unchanged: a copy "
        "of a datakey.json wrapped by the old key still opens with it, so destroy the old key and old backups."
    )
    return 0
