"""Which generator builds a folder, from its config file: ``mkdocs.yml``, ``.vitepress/config.*``, ``docusaurus.config.*``.

The config is looked for in the folder, then in its parents (a few levels up) for a
folder inside a site (``docs/`` of an MkDocs project, whose ``mkdocs.yml`` is beside
it): a parent's config counts only when the folder lies within that site's pages.
An upload is never looked above: its parent is the server's scratch space.

The user's choice wins: ``plain`` reads every file as its reader does; a named
generator without its config file takes the generator's defaults, the folder being
the one its pages live in.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import InvalidInput, SourceError
from . import docusaurus, mkdocs_config, vitepress
from .docusaurus import DocusaurusConfig, DocusaurusSite
from .mkdocs import MkDocsSite
from .mkdocs_config import MkDocsConfig
from .site import Site
from .vitepress import VitePressConfig, VitePressSite

SITES = ("auto", "mkdocs", "vitepress", "docusaurus", "plain")
# How many parents up a config is looked for.
PARENTS = 3


def check_site(site: str) -> None:
    """Refuse a ``site`` that is not one of :data:`SITES`, before anything is read.

    Raises:
        InvalidInput: it is not.
    """
    if site not in SITES:
        raise InvalidInput(f"Unknown site kind {site!r}.", hint=f"Use one of: {', '.join(SITES)}.")


def detect(folder: Path, site: str = "auto", *, upload: bool = False) -> Site:
    """The :class:`Site` that reads ``folder``: the generator its config names, or the one chosen.

    Raises:
        InvalidInput: ``site`` is not one of :data:`SITES`.
        SourceError: the config does not parse, or its pages are not in the folder given.
    """
    check_site(site)
    if site == "plain":
        return Site(folder)
    found = _find(folder, parents=not upload)
    if site == "auto":
        if found is None:
            return Site(folder)
        site = found[0]
    config = found[1] if found and found[0] == site else None
    confine = folder.resolve() if upload else None
    if site == "mkdocs":
        settings = mkdocs_config.load_mkdocs(config) if config else MkDocsConfig(None, folder.resolve())
        _check_inside(folder, settings.docs_dir, config, "docs_dir")
        return MkDocsSite(folder, settings, confine)
    if site == "vitepress":
        vp = vitepress.load_vitepress(config) if config else VitePressConfig(None, folder.resolve(), folder.resolve())
        _check_inside(folder, vp.src_dir, config, "srcDir")
        return VitePressSite(folder, vp, confine)
    ds = (
        docusaurus.load_docusaurus(config)
        if config
        else DocusaurusConfig(None, folder.resolve(), folder.resolve(), url=None)
    )
    return DocusaurusSite(folder, ds)


def _find(folder: Path, parents: bool) -> tuple[str, Path] | None:
    """``(kind, config)`` of the site ``folder`` belongs to, if any."""
    here = folder.resolve()
    for level, place in enumerate([here, *here.parents][: PARENTS + 1 if parents else 1]):
        for kind, names in (
            ("mkdocs", mkdocs_config.CONFIG_NAMES),
            ("docusaurus", docusaurus.CONFIG_NAMES),
            ("vitepress", vitepress.CONFIG_NAMES),
        ):
            for name in names:
                config = place / name
                if config.is_file() and (level == 0 or _serves(kind, config, here)):
                    return kind, config
    return None


def _serves(kind: str, config: Path, folder: Path) -> bool:
    """Whether a parent's config builds ``folder``: the folder is within the site's pages
    (a data folder that happens to sit inside a site's project is not one of its pages)."""
    try:
        if kind == "mkdocs":
            pages = [mkdocs_config.load_mkdocs(config).docs_dir]
        elif kind == "vitepress":
            pages = [vitepress.load_vitepress(config).src_dir]
        else:
            found = docusaurus.load_docusaurus(config)
            pages = [p for p in (found.docs, found.blog, found.site / "src" / "pages") if p is not None]
    except (SourceError, OSError, ValueError):
        return False
    return any(folder == p or p in folder.parents for p in pages)


def _check_inside(folder: Path, pages: Path, config: Path | None, setting: str) -> None:
    here = folder.resolve()
    if not (here == pages or pages in here.parents or here in pages.parents):
        raise SourceError(
            f"{config} puts the pages in {pages} ({setting}), which is not inside {folder}.",
            hint="Point at the folder that holds the pages, or index the folder as it is: --site plain.",
        )
