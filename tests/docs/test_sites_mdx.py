"""MDX, Docusaurus and VitePress: ESM and JSX out, text in, and the URLs, titles and anchors those sites give.

The Docusaurus and VitePress fixtures are cut from their own documentation sites
(tests/fixtures/sites/README.md); the URLs expected are those of docusaurus.io and vitepress.dev.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from schema_search.docs import readers
from schema_search.docs.chunker import Chunking
from schema_search.docs.sites.detect import detect
from schema_search.docs.sources import read_corpus

from ..conftest import REPO

SITES = REPO / "tests" / "fixtures" / "sites"
DOCUSAURUS = SITES / "docusaurus"
VITEPRESS = SITES / "vitepress"


def read(folder: Path, **kwargs):
    return read_corpus(folder, "site", Chunking(), **kwargs)


def passages(corpus, path: str) -> list[tuple[str, str]]:
    document = next(d for d in corpus.documents if d.path == path)
    return [(c.url, c.text) for c in corpus.chunks if c.document == document.id]


def blocks(parsed) -> list[str]:
    return [b.text for s in parsed.sections for b in s.blocks]


# -- MDX in any folder -----------------------------------------------------------------

TAILWIND_STYLE = """import { ApiTable } from "@/components/api-table.tsx";
import { Example } from "@/components/example.tsx";
import {
  Figure,
} from "@/components/figure.tsx";

export const title = "flex";
export const description = "Utilities for controlling how flex items both grow and shrink.";

<ApiTable rows={[["flex-1", "flex: 1;"]]} />

## Examples

### Basic example

Use `flex-<number>` utilities like `flex-1` to allow a flex item to grow and shrink as needed:

<Figure>

<Example>
  {
    <div className="flex">
      <div>01</div>
    </div>
  }
</Example>

```html
<!-- [!code classes:flex-1] -->
<div class="flex">
  <div class="w-14 flex-none">01</div>
</div>
```

</Figure>

Works with <kbd>Tab</kbd> too.{" "}And more.
"""


def test_mdx_drops_esm_and_jsx_keeps_text_and_takes_the_exported_title(tmp_path):
    (tmp_path / "flex.mdx").write_text(TAILWIND_STYLE)
    fmt, doc = readers.read(tmp_path / "flex.mdx")
    assert fmt == "mdx" and doc.title == "flex"
    assert doc.fields["description"] == ("Utilities for controlling how flex items both grow and shrink.",)
    assert [s.headings for s in doc.sections] == [("Examples", "Basic example")]
    assert blocks(doc) == [
        "Use `flex-<number>` utilities like `flex-1` to allow a flex item to grow and shrink as needed:",
        '```html\n<!-- [!code classes:flex-1] -->\n<div class="flex">\n  <div class="w-14 flex-none">01</div>\n</div>\n```',
        "Works with Tab too. And more.",  # <kbd> gone, its text kept; {" "} is a space
    ]


def test_mdx_front_matter_title_wins_over_the_export(tmp_path):
    (tmp_path / "a.mdx").write_text('---\ntitle: From front matter\n---\nexport const title = "exported"\n\nText.\n')
    assert readers.read(tmp_path / "a.mdx")[1].title == "From front matter"


# -- Docusaurus --------------------------------------------------------------------------


def test_docusaurus_urls_follow_slug_id_route_base_path_and_blog_dates():
    corpus = read(DOCUSAURUS)
    assert {d.path: (d.title, d.url) for d in corpus.documents} == {
        "docs/introduction.mdx": ("Introduction", "https://docusaurus.io/docs/"),  # slug: /
        "docs/guides/markdown-features/markdown-features-tabs.mdx": (
            "Tabs",
            "https://docusaurus.io/docs/markdown-features/tabs",
        ),
        "docs/guides/markdown-features/markdown-features-headings.mdx": (
            "Headings",
            "https://docusaurus.io/docs/markdown-features/headings",
        ),
        "blog/2017/12-14-introducing-docusaurus.mdx": (
            "Introducing Docusaurus",
            "https://docusaurus.io/blog/2017/12/14/introducing-docusaurus",
        ),
    }
    assert corpus.source["site"]["kind"] == "docusaurus" and corpus.source["site"]["docs_route"] == "docs"


def test_docusaurus_partials_and_other_versions_are_not_pages():
    corpus = read(DOCUSAURUS)
    paths = {d.path for d in corpus.documents}
    assert not any("_markdown-partial-example" in p or "versioned_docs" in p for p in paths)
    assert any("partials" in w and "_markdown-partial-example.mdx" in w for w in corpus.warnings)


def test_docusaurus_anchors_explicit_and_generated():
    corpus = read(DOCUSAURUS)
    urls = [url for url, _ in passages(corpus, "docs/introduction.mdx")]
    assert urls == [
        "https://docusaurus.io/docs/",
        "https://docusaurus.io/docs/#fast-track",
        "https://docusaurus.io/docs/#docusaurus-documentation-made-easy",
        "https://docusaurus.io/docs/#comparison-with-other-tools",
        "https://docusaurus.io/docs/#vitepress",
    ]
    tabs = [url for url, _ in passages(corpus, "docs/guides/markdown-features/markdown-features-tabs.mdx")]
    assert tabs[1:] == [
        "https://docusaurus.io/docs/markdown-features/tabs#displaying-a-default-tab",
        "https://docusaurus.io/docs/markdown-features/tabs#syncing-tab-choices",
    ]


def test_docusaurus_mdx_keeps_tab_text_admonition_text_and_code_and_drops_the_rest():
    corpus = read(DOCUSAURUS)
    tabs = "\n\n".join(text for _, text in passages(corpus, "docs/guides/markdown-features/markdown-features-tabs.mdx"))
    assert "This is an apple 🍎" in tabs and "This is an orange 🍊" in tabs  # the rendered mdx-code-block
    assert "By default, tabs are rendered eagerly" in tabs and ":::" not in tabs
    assert "```jsx\nimport Tabs from '@theme/Tabs';" in tabs  # the code example, as written
    assert "import TabItem from '@theme/TabItem';\n\nTo show" not in tabs
    intro = "\n\n".join(text for _, text in passages(corpus, "docs/introduction.mdx"))
    assert "cSpell" not in intro and "LiteYouTubeEmbed" not in intro and "Yhyx7otSksg" not in intro


def test_docusaurus_number_prefixes_index_files_and_front_matter(tmp_path):
    (tmp_path / "docusaurus.config.js").write_text(
        "module.exports = { url: 'https://x.dev', baseUrl: '/', trailingSlash: true,\n"
        "  presets: [['classic', { docs: { routeBasePath: '/' }, blog: false }]] };\n"
    )
    pages = {
        "docs/01-intro.md": "# Intro\n\nHello.\n",
        "docs/02-guides/index.md": "---\nsidebar_label: Guides home\n---\nNo heading here.\n",
        "docs/02-guides/03-install.md": "---\nid: setup\n---\n# Install\n\nSteps.\n",
        "docs/api/README.md": "# API\n\nCalls.\n",
    }
    for name, text in pages.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    corpus = read(tmp_path)
    assert {d.path: (d.title, d.url) for d in corpus.documents} == {
        "docs/01-intro.md": ("Intro", "https://x.dev/intro/"),
        "docs/02-guides/index.md": ("Guides home", "https://x.dev/guides/"),
        "docs/02-guides/03-install.md": ("Install", "https://x.dev/guides/setup/"),
        "docs/api/README.md": ("API", "https://x.dev/api/"),
    }


def test_docusaurus_pointed_at_its_docs_folder(tmp_path):
    shutil.copytree(DOCUSAURUS, tmp_path / "website")
    corpus = read(tmp_path / "website" / "docs")
    assert corpus.source["site"]["kind"] == "docusaurus"
    assert {d.path: d.url for d in corpus.documents}["introduction.mdx"] == "https://docusaurus.io/docs/"


# -- VitePress ---------------------------------------------------------------------------


def test_vitepress_urls_follow_clean_urls_rewrites_and_the_sitemap_hostname():
    corpus = read(VITEPRESS)
    assert {d.path: (d.title, d.url) for d in corpus.documents} == {
        "en/index.md": ("VitePress", "https://vitepress.dev/"),  # hero layout: the site's title
        "en/guide/routing.md": ("Routing", "https://vitepress.dev/guide/routing"),
        "en/guide/using-vue.md": ("Using Vue in Markdown", "https://vitepress.dev/guide/using-vue"),
        "en/reference/default-theme-badge.md": ("Badge", "https://vitepress.dev/reference/default-theme-badge"),
        "en/guide/heading-anchors.md": ("Duplicates", "https://vitepress.dev/guide/heading-anchors"),
    }
    assert corpus.source["site"] | {"config": None} == {
        "kind": "vitepress",
        "config": None,
        "src_dir": ".",
        "clean_urls": True,
        "base": "/",
        "hostname": "https://vitepress.dev",
    }


def test_vitepress_anchors_are_the_ones_vitepress_built():
    corpus = read(VITEPRESS)
    # VitePress 1.6.4 built this page with the ids: duplicates, title, title-1, mine,
    # script-and-bold-amp-link, _2-setup-—-cafe, title-2 (the Badge and the :tada: emoji are not text)
    assert [url.split("#")[1] for url, _ in passages(corpus, "en/guide/heading-anchors.md")] == [
        "title",
        "title-1",
        "mine",
        "script-and-bold-amp-link",
        "_2-setup-—-cafe",
        "title-2",
    ]


def test_vitepress_anchors_and_vue_markup():
    corpus = read(VITEPRESS)
    using_vue = passages(corpus, "en/guide/using-vue.md")
    assert [url for url, _ in using_vue if "#" in url] == [
        "https://vitepress.dev/guide/using-vue#interpolation",
        "https://vitepress.dev/guide/using-vue#directives",
        "https://vitepress.dev/guide/using-vue#script-and-style",
    ]
    text = "\n\n".join(t for _, t in using_vue)
    assert "SSR Compatibility\n\nAll Vue usage needs to be SSR-compatible." in text and "::: tip" not in text
    assert "```md\n{{ 1 + 1 }}\n```" in text  # code keeps its interpolation
    routing = "\n\n".join(t for _, t in passages(corpus, "en/guide/routing.md"))
    assert "<!-- Do -->" in routing  # a comment inside a code example is part of the example


def test_vitepress_site_defaults_index_pages_dynamic_routes_and_components(tmp_path):
    (tmp_path / ".vitepress").mkdir()
    (tmp_path / ".vitepress" / "config.mts").write_text(
        "export default { srcDir: 'src', base: '/docs/', srcExclude: ['drafts/**'] }\n"
    )
    pages = {
        "src/index.md": "# Home\n\nWelcome.\n",
        "src/guide/index.md": "---\ntitle: Guide\n---\n\nStart.\n",
        "src/guide/usage.md": (
            "<script setup>\nimport { ref } from 'vue'\nconst n = ref(1)\n</script>\n\n# Usage\n\n"
            "## Title <Badge type='tip' text='new' />\n\nCount {{ n }} with <Counter :start='n' /> and <b>bold</b>.\n\n"
            "## Title\n\nAgain.\n\n## Own anchor {#mine}\n\nMine.\n\n<style scoped>\n.x { color: red }\n</style>\n"
        ),
        "src/packages/[pkg].md": "# {{ $params.pkg }}\n",
        "src/drafts/wip.md": "# WIP\n\nNo.\n",
        "src/public/robots.html": "<p>static</p>\n",
    }
    for name, text in pages.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    corpus = read(tmp_path)
    assert {d.path: (d.title, d.url) for d in corpus.documents} == {
        "src/index.md": ("Home", "/docs/"),
        "src/guide/index.md": ("Guide", "/docs/guide/"),
        "src/guide/usage.md": ("Usage", "/docs/guide/usage.html"),
    }
    usage = passages(corpus, "src/guide/usage.md")
    assert [url for url, _ in usage] == [
        "/docs/guide/usage.html#title",
        "/docs/guide/usage.html#title-1",
        "/docs/guide/usage.html#mine",
    ]
    assert usage[0][1] == "Count  with  and bold."
    assert any("dynamic route" in w for w in corpus.warnings) and any("srcExclude" in w for w in corpus.warnings)


def test_detected_site_can_be_overridden():
    assert detect(VITEPRESS).kind == "vitepress" and detect(VITEPRESS, "plain").kind == "plain"
    corpus = read(VITEPRESS, site="plain")
    assert {d.url for d in corpus.documents} == {
        "en/index.md",
        "en/guide/routing.md",
        "en/guide/using-vue.md",
        "en/reference/default-theme-badge.md",
        "en/guide/heading-anchors.md",
    }
