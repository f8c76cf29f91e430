"""The document view renders Markdown (markdown.js over the vendored markdown-it) as DOM built
from a whitelist: the walker's output as golden HTML, then real documents of corpus
``markdown`` (tests/web/markdown_corpus) in the page, hostile ones included."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from .conftest import Tab

pytestmark = pytest.mark.browser

NOT_A_LINK = "(not a web address, so not a link)"
IMAGE = '<span class="image-alt" title="An image, not loaded here">'
# Markdown -> the HTML of what markdownNodes() builds, with links through webAddress() and
# "refund" as the question's word.
RENDERED = {
    "blocks and inlines": (
        "# Title\n\nA `c` and **b** _e_ ~~s~~.\n\n- x\n- y",
        "<h3>Title</h3><p>A <code>c</code> and <strong>b</strong> <em>e</em> <s>s</s>.</p><ul><li>x</li><li>y</li></ul>",
    ),
    # Below the page's h1 and h2; no level past h6.
    "headings demoted": ("# one\n\n### three\n\n###### six", "<h3>one</h3><h5>three</h5><h6>six</h6>"),
    "fence": (
        "```py title\nif x < 1:\n    pass\n```",
        '<pre class="code" data-lang="py"><code>if x &lt; 1:\n    pass\n</code></pre>',
    ),
    "indented code": ("para\n\n    code  line", '<p>para</p><pre class="code"><code>code  line\n</code></pre>'),
    "links": (
        "[ok](https://x.example/a) [rel](other.md) [js](javascript:alert(1)) [data](data:text/html,x)",
        '<p><a href="https://x.example/a" target="_blank" rel="noopener noreferrer">ok</a>'
        f' <span class="link-text" title="other.md {NOT_A_LINK}">rel</span>'
        # markdown-it refuses these addresses itself: no link token, the source as text.
        " [js](javascript:alert(1)) [data](data:text/html,x)</p>",
    ),
    "autolink": (
        "<https://x.example/> <javascript:alert(1)>",
        '<p><a href="https://x.example/" target="_blank" rel="noopener noreferrer">https://x.example/</a> &lt;javascript:alert(1)&gt;</p>',
    ),
    "image as its alt text": ("![a chart](https://x.example/c.png)", f"<p>{IMAGE}[a chart]</span></p>"),
    "raw html as text": (
        '<script>alert(1)</script>\n\nx <img src=x onerror="alert(2)"> <b>y</b>',
        "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"
        '<p>x &lt;img src=x onerror="alert(2)"&gt; &lt;b&gt;y&lt;/b&gt;</p>',
    ),
    # markdown-it aligns with a style attribute, which the page's CSP refuses: a class.
    "table": (
        "| a | b | c |\n|:-|-:|:-:|\n| 1 | 2 | 3 |",
        '<table><thead><tr><th class="align-left">a</th><th class="align-right">b</th><th class="align-center">c</th></tr></thead>'
        '<tbody><tr><td class="align-left">1</td><td class="align-right">2</td><td class="align-center">3</td></tr></tbody></table>',
    ),
    "ordered from 3": ("3. a\n4. b", '<ol start="3"><li>a</li><li>b</li></ol>'),
    "loose list keeps paragraphs": ("- a\n\n- b", "<ul><li><p>a</p></li><li><p>b</p></li></ul>"),
    "quote, rule, breaks": ("> q\n\n---\n\na  \nb\nc", "<blockquote><p>q</p></blockquote><hr><p>a<br>b\nc</p>"),
    # The question's words are marked in code too: they are often identifiers.
    "words marked": (
        "A refund, `refund_id`:\n\n```\nrefunds.refund_id\n```",
        '<p>A <mark>refund</mark>, <code><mark>refund</mark>_id</code>:</p><pre class="code"><code>refunds.<mark>refund</mark>_id\n</code></pre>',
    ),
}
# Parts of one document -> the HTML of each part: a fence open at a part's end goes on in the next.
PARTS = {
    "fence cut": (
        ["Intro.\n\n```sh\nfirst\n", "second\n```\n", "\n\nAfter."],
        [
            '<p>Intro.</p><pre class="code" data-lang="sh"><code>first\n</code></pre>',
            '<pre class="code" data-lang="sh"><code>second\n</code></pre>',
            "<p>After.</p>",
        ],
    ),
    "fence cut twice": (
        ["~~~~\na\n~~~\n", "b\n", "c\n~~~~\nd"],
        [
            '<pre class="code"><code>a\n~~~\n</code></pre>',  # a shorter marker does not close it
            '<pre class="code"><code>b\n</code></pre>',
            '<pre class="code"><code>c\n</code></pre><p>d</p>',
        ],
    ),
    "closed fence": (["```\na\n```\n", "b"], ['<pre class="code"><code>a\n</code></pre>', "<p>b</p>"]),
    "paragraph cut": (["one two", " three"], ["<p>one two</p>", "<p>three</p>"]),
}
RENDER = """async ([rendered, parts]) => {
    const { markdownParser, markdownNodes, markdownParts } = await import('/ui/js/markdown.js');
    const { webAddress } = await import('/ui/js/document.js');
    const md = await markdownParser();
    const html = (fragment) => { const box = document.createElement('div'); box.append(fragment); return box.innerHTML; };
    const options = { words: ['refund'], link: webAddress };
    return {
        rendered: Object.fromEntries(Object.entries(rendered).map(([k, text]) => [k, html(markdownNodes(md, text, options))])),
        parts: Object.fromEntries(Object.entries(parts).map(([k, texts]) => [k, markdownParts(md, texts).map(html)])),
        // No link() given: no link at all.
        unlinked: html(markdownNodes(md, '[ok](https://x.example/)')),
    };
}"""


def test_the_walker_builds_whitelisted_elements_and_text(tab: Tab):
    page = tab.open("#/eval")
    got = page.evaluate(RENDER, [{k: v[0] for k, v in RENDERED.items()}, {k: v[0] for k, v in PARTS.items()}])
    assert got["rendered"] == {k: v[1] for k, v in RENDERED.items()}
    assert got["parts"] == {k: v[1] for k, v in PARTS.items()}
    assert got["unlinked"] == f'<p><span class="link-text" title="https://x.example/ {NOT_A_LINK}">ok</span></p>'


def search(tab: Tab, question: str) -> list[dict]:
    answer = tab.page.request.post(f"{tab.base}/v1/corpora/markdown/search", data={"question": question})
    assert answer.ok
    return answer.json()["results"]


def open_passage(tab: Tab, found: dict, question: str = "") -> Page:
    page = tab.open(f"#/corpus/markdown/doc/{found['source_id']}" + (f"?q={quote(question)}" if question else ""))
    expect(page.get_by_test_id("document-view")).to_have_attribute("data-source-id", found["source_id"])
    return page


def test_a_markdown_document_renders_code_lists_links_and_the_passage(tab: Tab):
    question = "How do I rotate the signing keys?"
    found = next(r for r in search(tab, question) if r["heading_path"] == ["Rotate the signing keys"])
    page = open_passage(tab, found, question)
    text = page.get_by_test_id("document-text")
    expect(text).to_have_class("doc-text scroll-box markdown")
    # The install fence: a <pre><code>, its "#" line code, not a heading.
    fence = text.locator("pre > code", has_text="pip install schema-search")
    expect(fence).to_contain_text("# a comment, not a heading")
    expect(text.locator("h1, h2, h3, h4, h5, h6", has_text="a comment")).to_have_count(0)
    inline = text.locator(":not(pre) > code", has_text="--home")
    expect(inline).to_have_text("--home")
    items = text.locator("ul > li")
    expect(items).to_have_count(3)
    expect(items.first).to_contain_text("option names the workspace folder")
    link = text.get_by_role("link", name="install notes")
    expect(link).to_have_attribute("href", "https://docs.example.com/install")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", "noopener noreferrer")
    expect(text.get_by_role("link", name="relative link")).to_have_count(0)
    expect(text.locator(".link-text", has_text="relative link")).to_have_attribute("title", f"other.md {NOT_A_LINK}")
    expect(text.locator("table th.align-right")).to_have_text("Default")
    expect(text.locator(".image-alt")).to_have_text("[diagram of the index]")
    expect(text.locator("img")).to_have_count(0)
    fonts = page.evaluate(
        """() => ['pre > code', ':not(pre) > code', 'p'].map(
            (s) => getComputedStyle(document.querySelector('[data-testid=document-text] ' + s)).fontFamily)"""
    )
    assert fonts[0].endswith("monospace") and fonts[1].endswith("monospace"), fonts
    assert "monospace" not in fonts[2], fonts
    # The passage: its own block, holding its fence, scrolled into the box and the window.
    passage = text.get_by_test_id("passage")
    expect(passage).to_have_js_property("tagName", "DIV")
    expect(passage).to_have_attribute("id", "passage")
    expect(passage).to_contain_text(found["text"].split("\n")[0].replace("`", ""))
    expect(passage.locator("pre > code")).to_have_text("schema-search keys rotate --home /srv/search\n")
    expect(passage.locator("code", has_text="keys rotate").first).to_be_visible()
    expect(passage).to_be_in_viewport()
    assert page.evaluate("document.querySelector('[data-testid=document-text]').scrollTop") > 0
    # What comes after the passage is outside it, rendered on its own.
    expect(passage).not_to_contain_text("Tell the on-call engineer")
    expect(text.locator("p", has_text="Tell the on-call engineer")).to_have_count(1)


@pytest.mark.parametrize("viewport", [{"width": 360, "height": 780}])
def test_a_rendered_document_on_a_360_px_screen_never_scrolls_sideways(tab: Tab):
    found = next(r for r in search(tab, "install schema-search") if r["title"] == "Operator guide")
    page = open_passage(tab, found)
    code = page.get_by_test_id("document-text").locator("pre", has_text="--embedding-threads")
    expect(code).to_be_attached()
    # The long command scrolls in its own box, not the page.
    assert code.evaluate("(e) => e.scrollWidth > e.clientWidth")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 360 + 1


def test_hostile_markdown_is_shown_as_text_and_runs_nothing(tab: Tab):
    dialogs: list[str] = []
    tab.page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    found = next(r for r in search(tab, "hostile page image link") if r["title"] == "Hostile page")
    page = open_passage(tab, found)
    text = page.get_by_test_id("document-text")
    expect(text).to_contain_text("<script>alert(1)</script>")
    expect(text).to_contain_text('<img src=x onerror="alert(2)">')
    expect(text).to_contain_text('<a href="javascript:alert(4)">a raw link</a>')
    expect(text).to_contain_text("[click me](javascript:alert(3))")
    expect(text).to_contain_text("[tracking pixel]")
    view = page.get_by_test_id("document-view")
    expect(view.locator("script, img, iframe, object, embed, [onerror], [style]")).to_have_count(0)
    hrefs = page.evaluate(
        "() => [...document.querySelectorAll('[href], [src]')].map((e) => e.getAttribute('href') || e.getAttribute('src'))"
    )
    assert not [h for h in hrefs if h.strip().lower().startswith(("javascript:", "data:"))], hrefs
    expect(text.locator("a")).to_have_count(0)
    assert dialogs == []  # the tab fixture also fails on any request to tracker.example


def test_a_text_document_stays_plain_text(tab: Tab):
    found = next(r for r in search(tab, "plain notes stars backticks") if r["title"] == "Plain notes")
    page = open_passage(tab, found)
    text = page.get_by_test_id("document-text")
    expect(text).to_have_attribute("data-format", "text")
    expect(text).not_to_have_class(re.compile(r"\bmarkdown\b"))
    expect(text.locator("code, strong, pre, p")).to_have_count(0)
    passage = text.get_by_test_id("passage")
    expect(passage).to_have_js_property("tagName", "MARK")
    # Whitespace as written: innerText keeps the indentation under white-space: pre-wrap.
    assert "\n    indented lines keep their spaces," in page.evaluate(
        "document.querySelector('[data-testid=passage]').innerText"
    )
    expect(passage).to_contain_text("**stars** stay stars")
