"""Space and key commands: ``spaces list|create|delete``, ``keys create|list|revoke``; and the space a command acts in.

The CLI runs as the operator, on the data directory itself: it names a space (``--space``,
``SCHEMA_SEARCH_SPACE``) rather than presenting a key. Keys are for the HTTP API and MCP.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import InvalidInput, KeyRefused
from ..settings import Settings
from ..spaces.keys import ROLES
from ..spaces.registry import DEFAULT, Spaces, space_settings
from .output import confirm, examples, print_json, print_table


def in_space(settings: Settings) -> Settings:
    """``settings`` for the space ``settings.space`` names: its data directory as ``home``.

    Raises:
        SpaceNotFound: no such space (the error names the known ones and how to make one).
    """
    if settings.space == DEFAULT:
        return settings
    Spaces(settings).check(settings.space)
    return space_settings(settings, settings.space)


def served_space(settings: Settings) -> str:
    """The space ``schemasift mcp`` serves: its configured key's, else ``--space``'s.

    Raises:
        KeyRefused: the key is unknown or revoked (the server does not start).
        InvalidInput: the key belongs to another space than ``--space`` names.
    """
    key = _api_key(settings)
    if key is None:
        return Spaces(settings).check(settings.space)
    found = Spaces(settings).keys.verify(key)
    if found is None:
        raise KeyRefused(
            "The configured key is not accepted: it is unknown, or it was revoked.",
            hint="Check SCHEMA_SEARCH_API_KEY (or api_key_file); `schemasift keys list` shows the keys in force.",
        )
    if settings.space not in (DEFAULT, found.space):
        raise InvalidInput(
            f"The configured key belongs to space {found.space!r}, not {settings.space!r}.",
            hint="Leave --space out (the key decides), or configure a key of that space.",
        )
    return found.space


def _api_key(settings: Settings) -> str | None:
    if settings.api_key is not None:
        return settings.api_key.get_secret_value().strip()
    if settings.api_key_file is None:
        return None
    try:
        return settings.api_key_file.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise InvalidInput(
            f"The key file {settings.api_key_file} cannot be read ({error.strerror or error}).",
            hint="Check SCHEMA_SEARCH_API_KEY_FILE (or api_key_file in the config file).",
        ) from None


def add_commands(commands: argparse._SubParsersAction) -> None:
    spaces = commands.add_parser(
        "spaces",
        help="list, create or delete spaces (each its own catalogs, corpora and keys)",
        **examples(
            "schemasift spaces create team-a", "schemasift spaces list", "schemasift spaces delete team-a --yes"
        ),
    )
    spaces.set_defaults(print_help=spaces.print_help, rooted=True)
    actions = spaces.add_subparsers(dest="spaces_command", metavar="COMMAND", help="one of:")
    listing = actions.add_parser(
        "list", help="every space, with its catalog and corpus counts", **examples("schemasift spaces list")
    )
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    listing.set_defaults(run=_list_spaces, rooted=True)
    create = actions.add_parser("create", help="create an empty space", **examples("schemasift spaces create team-a"))
    create.add_argument("name", help="the space's name (lower-case letters, digits, '_' or '-')")
    create.set_defaults(run=_create_space, rooted=True)
    delete = actions.add_parser(
        "delete",
        help="delete a space: its catalogs and corpora, and revoke its keys",
        **examples("schemasift spaces delete team-a --yes"),
    )
    delete.add_argument("name", help="the space to delete, with every catalog and corpus in it")
    delete.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    delete.set_defaults(run=_delete_space, rooted=True)

    keys = commands.add_parser(
        "keys",
        help="issue, list or revoke a space's API keys (for HTTP and MCP)",
        **examples(
            "schemasift keys create --space team-a --role read --label 'support bot'",
            "schemasift keys list --space team-a",
            "schemasift keys revoke 3f9a21c0",
        ),
    )
    keys.set_defaults(print_help=keys.print_help, rooted=True)
    actions = keys.add_subparsers(dest="keys_command", metavar="COMMAND", help="one of:")
    create = actions.add_parser(
        "create",
        help="issue a key; its secret is printed once",
        **examples("schemasift keys create --space team-a --role read --label 'support bot'"),
    )
    create.add_argument("--space", dest="key_space", default=DEFAULT, metavar="NAME", help="default: default")
    create.add_argument("--role", choices=ROLES, default="read", help="read (default), write or admin")
    create.add_argument("--label", default="", help="what the key is for, shown in lists")
    create.add_argument("--json", action="store_true", help="print the key as JSON")
    create.set_defaults(run=_create_key, rooted=True)
    listing = actions.add_parser(
        "list",
        help="the keys (never their secrets), revoked ones marked",
        **examples("schemasift keys list", "schemasift keys list --space team-a"),
    )
    listing.add_argument("--space", dest="key_space", default=None, metavar="NAME", help="only this space's keys")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    listing.set_defaults(run=_list_keys, rooted=True)
    revoke = actions.add_parser(
        "revoke", help="revoke a key: from now on it is refused", **examples("schemasift keys revoke 3f9a21c0")
    )
    revoke.add_argument("key_id", help="the key's id, as `keys list` shows it")
    revoke.set_defaults(run=_revoke_key, rooted=True)


def _list_spaces(args: argparse.Namespace, settings: Settings) -> int:
    infos = Spaces(settings).infos()
    if args.json:
        print(json.dumps([i.model_dump(mode="json") for i in infos], indent=2))
        return 0
    print_table(("space", "catalogs", "corpora"), [(i.name, str(i.catalogs), str(i.corpora)) for i in infos])
    return 0


def _create_space(args: argparse.Namespace, settings: Settings) -> int:
    Spaces(settings).create(args.name)
    print(f"Created space {args.name!r}. Issue a key with `schemasift keys create --space {args.name} --role write`.")
    return 0


def _delete_space(args: argparse.Namespace, settings: Settings) -> int:
    spaces = Spaces(settings)
    spaces.check(args.name)  # an unknown name fails before anyone is asked
    if not confirm(f"Delete space {args.name!r}, every catalog and corpus in it, and revoke its keys?", args.yes):
        print("Nothing deleted.", file=sys.stderr)
        return 1
    revoked = spaces.delete(args.name)
    print(f"Deleted space {args.name!r}; revoked {revoked} key(s).")
    return 0


def _create_key(args: argparse.Namespace, settings: Settings) -> int:
    spaces = Spaces(settings)
    issued = spaces.keys.create(spaces.check(args.key_space), args.role, args.label)
    if args.json:
        return print_json(issued)
    print(issued.secret)
    print(
        f"Key {issued.id} ({issued.role}) of space {issued.space!r}: the line above is its secret, shown this once.",
        file=sys.stderr,
    )
    return 0


def _list_keys(args: argparse.Namespace, settings: Settings) -> int:
    spaces = Spaces(settings)
    if args.key_space is not None:
        spaces.check(args.key_space)
    found = spaces.keys.list(args.key_space)
    if args.json:
        print(json.dumps([k.model_dump(mode="json") for k in found], indent=2))
        return 0
    if not found:
        print("No keys yet. Issue one with `schemasift keys create --space SPACE --role read`.")
        return 0

    def when(t) -> str:
        return t.strftime("%Y-%m-%d %H:%M") if t else "-"

    rows = [
        (
            k.id,
            k.space,
            k.role,
            k.label,
            when(k.created_at),
            when(k.last_used_at),
            "revoked" if k.revoked_at else "active",
        )
        for k in found
    ]
    print_table(("id", "space", "role", "label", "created", "last used", "state"), rows)
    return 0


def _revoke_key(args: argparse.Namespace, settings: Settings) -> int:
    revoked = Spaces(settings).keys.revoke(args.key_id)
    print(f"Revoked key {revoked.id} ({revoked.role}) of space {revoked.space!r}.")
    return 0
