"""``mkdocs.yml``: the settings that decide which files are pages, their URLs, titles and anchors.

MkDocs configs carry Python tags (``!!python/name:material.extensions.emoji.twemoji``,
``!!python/object/apply:pymdownx.slugs.slugify``) and MkDocs' own (``!ENV``,
``!relative``): the loader here keeps any tag as a :class:`Tagged` value instead of
importing or failing, so a config that names packages not installed here still reads.
``!ENV [NAME, default]`` takes its default: the environment of the machine that builds
the site is not this one's. ``INHERIT:`` is followed.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from ...errors import SourceError
from .slugs import Slugify, toc_slugify

CONFIG_NAMES = ("mkdocs.yml", "mkdocs.yaml")
# MkDocs' own default exclude_docs: dot files and a top-level templates/ folder.
DEFAULT_EXCLUDES = (".*", "/templates/")


@dataclass(frozen=True)
class Tagged:
    """A YAML value under a tag this loader does not resolve: ``tag`` (``!ENV``, ``...python/name:x``) and the value."""

    tag: str
    value: Any

    @property
    def name(self) -> str:
        """The Python name a ``!!python/name:x`` or ``!!python/object/apply:x`` tag points at."""
        return self.tag.rsplit(":", 1)[-1] if "python/" in self.tag else ""


class _Loader(yaml.SafeLoader):
    """SafeLoader that keeps unknown tags as :class:`Tagged` instead of refusing them."""


def _tagged(loader: _Loader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        value: Any = loader.construct_mapping(node, deep=True)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_scalar(node)
    if node.tag == "!ENV":
        # The default, when one is given: the environment that builds the site is not this one.
        return value[-1] if isinstance(value, list) and len(value) > 1 else None
    return Tagged(node.tag, value)


_Loader.add_multi_constructor("!", _tagged)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _tagged)


@dataclass(frozen=True)
class NavPage:
    """One page of ``nav``: its path in ``docs_dir``, the title nav gives it (None: the page's own)."""

    path: str
    title: str | None
    sections: tuple[str, ...] = ()


@dataclass(frozen=True)
class MkDocsConfig:
    """What of ``mkdocs.yml`` the corpus reader uses. Paths are absolute; ``path`` is None
    for a site chosen without its config (MkDocs' defaults)."""

    path: Path | None
    docs_dir: Path
    site_url: str | None = None
    use_directory_urls: bool = True
    nav: tuple[NavPage, ...] = ()
    custom_dir: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    excludes: tuple[str, ...] = DEFAULT_EXCLUDES
    slugify: Slugify | None = None
    slugify_name: str = "markdown.extensions.toc.slugify"
    separator: str = "-"
    attr_list: bool = False
    emoji: bool = False
    snippets: tuple[Path, ...] | None = None
    warnings: tuple[str, ...] = ()

    def excluded(self, relative: str) -> bool:
        """Whether ``exclude_docs`` / ``draft_docs`` (gitignore-style) or the exclude plugin's globs drop a docs_dir path.

        >>> MkDocsConfig(Path("mkdocs.yml"), Path("docs"), excludes=(".*", "/templates/", "drafts/*.md")).excluded("drafts/x.md")
        True
        """
        return any(_ignored(relative, pattern) for pattern in self.excludes)


def load_mkdocs(path: Path) -> MkDocsConfig:
    """Read ``mkdocs.yml`` (following ``INHERIT``).

    Raises:
        SourceError: the file does not parse as YAML, or is not a mapping.
    """
    data = _load(path, set())
    base = path.parent
    warnings: list[str] = []
    docs_dir = (base / str(data.get("docs_dir") or "docs")).resolve()
    theme = data.get("theme") if isinstance(data.get("theme"), dict) else {}
    custom_dir = theme.get("custom_dir")
    extensions = _extensions(data.get("markdown_extensions"))
    toc = extensions.get("toc", {})
    slugify, slugify_name = _slugify(toc.get("slugify"), warnings)
    site_url = data.get("site_url")
    return MkDocsConfig(
        path=path,
        docs_dir=docs_dir,
        site_url=str(site_url) if site_url else None,
        use_directory_urls=data.get("use_directory_urls", True) is not False,
        nav=tuple(_nav(data.get("nav"))),
        custom_dir=(base / str(custom_dir)).resolve() if isinstance(custom_dir, str) else None,
        extra=data.get("extra") if isinstance(data.get("extra"), dict) else {},
        excludes=DEFAULT_EXCLUDES + _excludes(data),
        slugify=slugify,
        slugify_name=slugify_name,
        separator=str(toc.get("separator") or "-"),
        attr_list=bool({"attr_list", "extra", "pymdownx.extra"} & set(extensions)),
        emoji="pymdownx.emoji" in extensions,
        snippets=_snippet_bases(extensions, base, docs_dir),
        warnings=tuple(warnings),
    )


def _load(path: Path, seen: set[Path]) -> dict[str, Any]:
    try:
        data = yaml.load(path.read_text(encoding="utf-8-sig"), Loader=_Loader)
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise SourceError(
            f"{path} does not parse: {' '.join(str(error).split())}",
            hint="Fix the file, or index the folder without it: --site plain.",
        ) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SourceError(f"{path} is not a MkDocs config (no settings in it).", hint="Index it with --site plain.")
    parent = data.pop("INHERIT", None)
    if isinstance(parent, str) and path.resolve() not in seen:
        seen.add(path.resolve())
        inherited = path.parent / parent
        if inherited.is_file():
            return _merge(_load(inherited, seen), data)
    return data


def _merge(base: dict, override: dict) -> dict:
    """``override`` over ``base``, mappings merged key by key (MkDocs' INHERIT rule)."""
    merged = dict(base)
    for key, value in override.items():
        merged[key] = (
            _merge(merged[key], value) if isinstance(value, dict) and isinstance(merged.get(key), dict) else value
        )
    return merged


def _nav(items: Any, sections: tuple[str, ...] = ()) -> list[NavPage]:
    """The pages of ``nav`` in order, nested sections flattened (their titles kept in ``sections``).

    >>> [(p.path, p.title, p.sections) for p in _nav(["index.md", {"Concepts": [{"Models": "concepts/models.md"},
    ...   {"Blog": "https://blog.x.dev/"}]}])]
    [('index.md', None, ()), ('concepts/models.md', 'Models', ('Concepts',))]
    """
    pages: list[NavPage] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, str):
            title, target = None, item
        elif isinstance(item, dict) and len(item) == 1:
            title, target = next(iter(item.items()))
        else:
            continue
        if isinstance(target, list):
            pages.extend(_nav(target, (*sections, str(title))))
        elif isinstance(target, str) and not re.match(r"^[a-z][\w+.-]*://|^/|^mailto:", target):
            pages.append(NavPage(posixpath.normpath(target), str(title) if title is not None else None, sections))
    return pages


def _extensions(value: Any) -> dict[str, dict[str, Any]]:
    """``markdown_extensions`` (a list of names and one-key mappings, or a mapping) as name -> options."""
    if isinstance(value, dict):
        entries = list(value.items())
    else:
        entries = []
        for item in value if isinstance(value, list) else []:
            if isinstance(item, str):
                entries.append((item, {}))
            elif isinstance(item, dict):
                entries.extend(item.items())
    return {
        str(name).removeprefix("markdown.extensions."): options if isinstance(options, dict) else {}
        for name, options in entries
    }


def _slugify(value: Any, warnings: list[str]) -> tuple[Slugify | None, str]:
    """The toc ``slugify`` setting as a function, or None for Python-Markdown's default."""
    if value is None:
        return None, "markdown.extensions.toc.slugify"
    if isinstance(value, Tagged) and value.name:
        options = value.value.get("kwds") if isinstance(value.value, dict) else None
        found = toc_slugify(value.name, options if isinstance(options, dict) else None)
        if found:
            return found, value.name
        warnings.append(
            f"toc slugify {value.name} is not one known here: anchors follow Python-Markdown's default slugify "
            "and may not match the site's"
        )
    return None, "markdown.extensions.toc.slugify"


def _excludes(data: dict[str, Any]) -> tuple[str, ...]:
    patterns: list[str] = []
    for key in ("exclude_docs", "draft_docs"):
        if isinstance(data.get(key), str):
            patterns.extend(
                line.strip() for line in data[key].splitlines() if line.strip() and not line.startswith("#")
            )
    for plugin in data.get("plugins") or []:
        if isinstance(plugin, dict) and isinstance(plugin.get("exclude"), dict):
            globs = plugin["exclude"].get("glob") or []
            patterns.extend("/" + str(g).lstrip("/") for g in (globs if isinstance(globs, list) else [globs]))
    return tuple(patterns)


def _ignored(relative: str, pattern: str) -> bool:
    """One gitignore-style pattern against a path in docs_dir (negation ``!`` is not supported).

    >>> _ignored("templates/x.html", "/templates/"), _ignored("a/templates/x.html", "/templates/"), _ignored("a/.x.md", ".*")
    (True, False, True)
    """
    if pattern.startswith("!"):
        return False
    directory = pattern.endswith("/")
    pattern = pattern.rstrip("/")
    parts = PurePosixPath(relative).parts
    if pattern.startswith("/") or "/" in pattern:
        anchored = pattern.lstrip("/")
        if directory:
            return any(fnmatch("/".join(parts[:n]), anchored) for n in range(1, len(parts)))
        return fnmatch(relative, anchored) or any(fnmatch("/".join(parts[:n]), anchored) for n in range(1, len(parts)))
    candidates = parts[:-1] if directory else parts
    return any(fnmatch(part, pattern) for part in candidates)


def _snippet_bases(extensions: dict[str, dict[str, Any]], base: Path, docs_dir: Path) -> tuple[Path, ...] | None:
    """Where pymdownx.snippets looks for files (its ``base_path``, relative to where mkdocs runs), or None without it."""
    if "pymdownx.snippets" not in extensions:
        return None
    value = extensions["pymdownx.snippets"].get("base_path", ["."])
    bases = []
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, Tagged):  # !relative: $config_dir, $docs_dir (the page's own folder is not kept)
            item = str(item.value or "")
            bases.append(docs_dir if item.startswith("$docs_dir") else base)
        elif isinstance(item, str):
            bases.append((base / item).resolve())
    return tuple(bases)
