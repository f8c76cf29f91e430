"""MkDocs sites read as MkDocs builds them: anchors, nav titles and order, URLs, templates, syntax.

The fixture is Pydantic's own docs, cut down (tests/fixtures/sites/README.md); the
anchors and titles expected here are those of the HTML MkDocs built from that folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import markdown
import pytest

from schema_search.docs.chunker import Chunking
from schema_search.docs.readers.markdown import Heading
from schema_search.docs.sites.detect import detect
from schema_search.docs.sites.slugs import TocAnchors
from schema_search.docs.sources import read_corpus
from schema_search.errors import InvalidInput, SourceError

from ..conftest import REPO

PYDANTIC = REPO / "tests" / "fixtures" / "sites" / "mkdocs-pydantic"
SITE = "https://docs.pydantic.dev/"


def read(folder: Path, **kwargs):
    return read_corpus(folder, "site", Chunking(), **kwargs)


def anchors(corpus, path: str) -> list[str]:
    document = next(d for d in corpus.documents if d.path == path)
    urls = [c.url for c in corpus.chunks if c.document == document.id]
    return list(dict.fromkeys(url.split("#", 1)[1] for url in urls if "#" in url))


def texts(corpus, path: str) -> str:
    document = next(d for d in corpus.documents if d.path == path)
    return "\n\n".join(c.text for c in corpus.chunks if c.document == document.id)


def write_site(root: Path, config: str, pages: dict[str, str]) -> Path:
    (root / "mkdocs.yml").write_text(config)
    for name, text in pages.items():
        (root / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / name).write_text(text)
    return root


# -- anchors -------------------------------------------------------------------------


def test_every_section_gets_the_anchor_mkdocs_gave_it_repeats_numbered():
    corpus = read(PYDANTIC)
    # Built by MkDocs 1.6.1: a second "Validation" heading is validation_1.
    assert anchors(corpus, "docs/concepts/alias.md") == [
        "alias-configuration",
        "configdict-settings",
        "validation",
        "serialization",
        "runtime-settings",
        "validation_1",
    ]
    assert anchors(corpus, "docs/why.md") == ["type-hints", "performance"]  # {#type-hints} kept
    # pymdownx.emoji renders ":material-help:" as an icon: no text in the id
    assert anchors(corpus, "docs/help_with_pydantic.md") == ["usage-documentation", "api-documentation"]
    validation = [c for c in corpus.chunks if c.url.endswith("#validation_1")]
    assert validation and validation[0].headings == ("Alias Configuration", "Runtime Settings", "Validation")


@pytest.mark.parametrize(
    "heading",
    [
        "Use `model_dump()` &amp; **friends**",
        "Café — naïve [links](x.md) <span>too</span>",
        "Escaped \\*stars\\* and trailing hashes ##",
        "C# and F#",
        "",
        "Setext heading\n--------------",
    ],
)
def test_the_heading_id_is_python_markdowns_own(heading):
    source = heading if "\n" in heading else f"## {heading}"
    md = markdown.Markdown(extensions=["toc"])
    md.convert(f"{source}\n\n{source}\n")
    expected = [token["id"] for token in md.toc_tokens]
    assert TocAnchors()([Heading(2, "", None, source), Heading(2, "", None, source)]) == expected


def test_explicit_ids_are_kept_and_counted_before_the_bare_headings_take_theirs():
    md = markdown.Markdown(extensions=["toc", "attr_list"])
    md.convert("## Setup\n\n## Other {#setup}\n")
    expected = [token["id"] for token in md.toc_tokens]  # the explicit id wins "setup"
    got = TocAnchors()([Heading(2, "Setup", None, "## Setup"), Heading(2, "Other", "setup", "## Other {#setup}")])
    assert got == expected == ["setup_1", "setup"]


def test_the_slugify_mkdocs_yml_names_is_used(tmp_path):
    config = "site_name: x\nmarkdown_extensions:\n  - toc:\n      slugify: !!python/name:markdown.extensions.toc.slugify_unicode\n"
    write_site(tmp_path, config, {"index.md": "# Start\n\n## Überblick und Ziele\n\nText.\n"})
    assert anchors(read(tmp_path), "docs/index.md") == ["überblick-und-ziele"]
    config = (
        "site_name: x\nmarkdown_extensions:\n  - toc:\n"
        "      slugify: !!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}\n"
    )
    write_site(tmp_path, config, {"index.md": "# Start\n\n## Überblick und Ziele\n\nText.\n"})
    assert anchors(read(tmp_path), "docs/index.md") == ["überblick-und-ziele"]


def test_a_custom_slugify_falls_back_to_the_default_and_says_so(tmp_path):
    config = "site_name: x\nmarkdown_extensions:\n  - toc:\n      slugify: !!python/name:my_docs.slugs.custom\n"
    write_site(tmp_path, config, {"index.md": "# Start\n\n## Überblick\n\nText.\n"})
    corpus = read(tmp_path)
    assert anchors(corpus, "docs/index.md") == ["uberblick"]
    assert any("my_docs.slugs.custom" in w and "default slugify" in w for w in corpus.warnings)


# -- titles, order, URLs -------------------------------------------------------------------


def test_titles_and_order_come_from_nav_urls_from_site_url():
    corpus = read(PYDANTIC)
    assert [(d.path, d.title, d.url) for d in corpus.documents] == [
        ("docs/why.md", "Why use Pydantic", SITE + "why/"),
        ("docs/help_with_pydantic.md", "Help with Pydantic", SITE + "help_with_pydantic/"),
        ("docs/install.md", "Installation", SITE + "install/"),
        ("docs/concepts/alias.md", "Alias", SITE + "concepts/alias/"),
        ("docs/api/base_model.md", "BaseModel", SITE + "api/base_model/"),
    ]
    site = corpus.source["site"]
    assert site["kind"] == "mkdocs" and site["config"] == "mkdocs.yml" and site["docs_dir"] == "docs"


def test_pages_outside_nav_use_their_heading_or_file_name_and_urls_follow_use_directory_urls(tmp_path):
    config = "site_name: x\nuse_directory_urls: false\n"
    pages = {
        "index.md": "Welcome.\n",
        "guide/getting_started.md": "Steps.\n",
        "guide/README.md": "# Guide\n\nRead me.\n",
        "faq.md": "---\ntitle: Questions\n---\n# FAQ\n\nAsk.\n",
    }
    corpus = read(write_site(tmp_path, config, pages))
    assert {d.path: (d.title, d.url) for d in corpus.documents} == {
        "docs/index.md": ("Home", "/index.html"),
        "docs/guide/getting_started.md": ("Getting started", "/guide/getting_started.html"),
        "docs/guide/README.md": ("Guide", "/guide/index.html"),
        "docs/faq.md": ("Questions", "/faq.html"),
    }


def test_a_url_template_still_wins_over_the_site_url():
    corpus = read(PYDANTIC, url_template="https://mirror.example/{path}")
    assert corpus.documents[0].url == "https://mirror.example/docs/why"


def test_pointed_at_the_docs_folder_the_config_beside_it_is_found(tmp_path):
    shutil.copytree(PYDANTIC, tmp_path / "project")
    corpus = read(tmp_path / "project" / "docs")
    assert corpus.source["site"]["kind"] == "mkdocs"
    assert {d.path: d.url for d in corpus.documents}["concepts/alias.md"] == SITE + "concepts/alias/"


# -- what is not a page -----------------------------------------------------------------


def test_theme_templates_and_html_are_skipped_and_reported_never_indexed():
    corpus = read(PYDANTIC)
    assert not [d for d in corpus.documents if d.path.endswith(".html")]
    assert any("theme templates" in w and "docs/theme/main.html" in w for w in corpus.warnings)
    assert any("HTML files in docs_dir" in w and "devtools_output.html" in w for w in corpus.warnings)
    assert "{% block" not in "".join(c.text for c in corpus.chunks)


def test_mkdocstrings_stubs_are_dropped_and_a_page_of_stubs_only_is_skipped():
    corpus = read(PYDANTIC)
    assert "docs/api/types.md" not in {d.path for d in corpus.documents}
    assert any("mkdocstrings stubs" in w and "docs/api/types.md" in w for w in corpus.warnings)
    text = texts(corpus, "docs/api/base_model.md")
    assert text.startswith("Pydantic models are simply classes") and ":::" not in text and "options:" not in text


def test_exclude_docs_and_the_default_excludes_are_honoured(tmp_path):
    config = "site_name: x\nexclude_docs: |\n  drafts/\n"
    pages = {"index.md": "# Home\n\nHi.\n", "drafts/wip.md": "# WIP\n\nNo.\n", "templates/t.md": "# T\n\nNo.\n"}
    corpus = read(write_site(tmp_path, config, pages))
    assert [d.path for d in corpus.documents] == ["docs/index.md"]


# -- MkDocs syntax -------------------------------------------------------------------


def test_admonitions_and_tabs_keep_their_title_as_text_and_lose_their_markers():
    site = detect(PYDANTIC)
    _, why = site.read(PYDANTIC / "docs" / "why.md")
    blocks = [b for s in why.sections for b in s.blocks]
    assert "Example - just type hints" in [b.text for b in blocks]  # ???+ example "Example - just type hints"
    assert "Learn more" in [b.text for b in blocks]  # !!! tip "Learn more"
    code = [b.text for b in blocks if b.code]
    assert code[0].startswith("```python\nfrom typing import Annotated, Literal")  # indented 4: still code, unindented
    assert not any(b.text.lstrip().startswith(("!!!", "???", "===")) for b in blocks)
    _, install = site.read(PYDANTIC / "docs" / "install.md")
    texts_ = [b.text for s in install.sections for b in s.blocks]
    assert texts_[:4] == ["Installation is as simple as:", "pip", "```bash\npip install pydantic\n```", "uv"]


def test_autorefs_become_their_text_and_code_is_left_alone():
    corpus = read(PYDANTIC)
    install = texts(corpus, "docs/install.md")
    assert "the standard library typing module" in install and "[typing][]" not in install
    alias = texts(corpus, "docs/concepts/alias.md")
    assert "* `ConfigDict.validate_by_alias`: `True` by default" in alias


def test_macros_take_extra_values_or_go(tmp_path):
    config = "site_name: x\nextra:\n  version: '2.11'\n  support:\n    email: help@x.dev\n"
    page = (
        "# Release\n\nPydantic {{ version }} ({{ config.extra.version }}), mail {{ extra.support.email }}.\n\n"
        "{{ conversion_table }}\n\n{% if beta %}Beta only.{% endif %}{# note #}\n\n"
        "Code keeps `{{ version }}`:\n\n```jinja\n{{ version }}\n```\n"
    )
    corpus = read(write_site(tmp_path, config, {"index.md": page}))
    text = texts(corpus, "docs/index.md")
    assert "Pydantic 2.11 (2.11), mail help@x.dev." in text
    assert "conversion_table" not in text and "{%" not in text and "note" not in text and "Beta only." in text
    assert "`{{ version }}`" in text and "```jinja\n{{ version }}\n```" in text


def test_snippets_are_included_from_the_base_path_and_never_from_outside(tmp_path):
    config = "site_name: x\nmarkdown_extensions:\n  - pymdownx.snippets:\n      base_path: [includes]\n"
    (tmp_path / "includes").mkdir()
    (tmp_path / "includes" / "abbreviations.md").write_text("Shared text from a snippet.\n")
    (tmp_path / "includes" / "usage.md").write_text(
        "Before.\n--8<-- [start:run]\nRun it with `x run`.\n--8<-- [end:run]\nAfter.\n"
    )
    (tmp_path / "secret.txt").write_text("do not index me\n")
    page = '# Page\n\n--8<-- "abbreviations.md"\n\n--8<-- "usage.md:run"\n\n--8<-- "../secret.txt"\n'
    corpus = read(write_site(tmp_path, config, {"index.md": page}))
    text = texts(corpus, "docs/index.md")
    assert "Shared text from a snippet." in text and "Run it with `x run`." in text
    assert "Before." not in text and "do not index me" not in text and "--8<--" not in text


# -- choosing, and errors ------------------------------------------------------------------


def test_site_plain_reads_the_folder_as_before():
    corpus = read(PYDANTIC, site="plain")
    assert "docs/theme/main.html" in {d.path for d in corpus.documents}
    assert corpus.source["site"]["kind"] == "plain"


def test_an_unknown_site_and_a_broken_config_are_errors_for_people(tmp_path):
    with pytest.raises(InvalidInput, match="Unknown site kind 'hugo'") as error:
        read(PYDANTIC, site="hugo")
    assert "mkdocs" in error.value.hint
    write_site(tmp_path, "site_name: [unclosed\n", {"index.md": "# A\n\nB.\n"})
    with pytest.raises(SourceError, match="mkdocs.yml does not parse") as error:
        read(tmp_path)
    assert "--site plain" in error.value.hint
    assert read(tmp_path, site="plain").documents


def test_docs_dir_outside_the_folder_is_refused(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "a.md").write_text("# A\n\nB.\n")
    (tmp_path / "site" / "mkdocs.yml").write_text("site_name: x\ndocs_dir: ../elsewhere\n")
    with pytest.raises(SourceError, match="not inside"):
        read(tmp_path / "site")


def test_an_upload_never_looks_above_its_folder(tmp_path):
    shutil.copytree(PYDANTIC, tmp_path / "project")
    corpus = read(tmp_path / "project" / "docs", origin="upload")
    assert corpus.source["site"]["kind"] == "plain"
