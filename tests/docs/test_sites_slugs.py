"""Heading slugs checked against the generators' own test cases (their repositories' fixtures)."""

from __future__ import annotations

import unicodedata

import pytest

from schema_search.docs.readers.markdown import Heading
from schema_search.docs.sites.slugs import (
    GithubSlugger,
    github_slug,
    mdit_vue_slugify,
    plain_text,
    pymdownx_slugify,
    toc_slugify,
    vitepress_anchors,
)

# mdit-vue/mdit-vue packages/shared/tests/slugify.spec.ts (VitePress's default slugify)
MDIT_VUE = [
    ("Привет", "привет"),
    ("Лед üäöß", "лед-uaoß"),
    # NFKD takes the syllable apart into its jamo, and the spec's expected string is that
    ("hangul 가", unicodedata.normalize("NFKD", "hangul-가")),
    ("ع", "ع"),
    ("ǆℍΩ", "dzhω"),
    ("ｶi⁹", "カi9"),
    ("¼", "_1⁄4"),
    ("ǆℍΩｶi⁹¼", "dzhωカi91⁄4"),
    ("hambúrguer", "hamburguer"),
    ("hŒllœ", "hœllœ"),
    ("Fußball", "fußball"),
    ("ABCDEFGHIJKLMNOPQRSTUVWXYZé", "abcdefghijklmnopqrstuvwxyze"),
]

# Flet/github-slugger test/fixtures.json (Docusaurus's slugger), one slugger over all of them in order.
GITHUB_SLUGGER = [
    ("alpha", "alpha"),
    ("alpha", "alpha-1"),
    ("bravoCharlieDelta", "bravocharliedelta"),
    ("__proto__", "__proto__"),
    ("__proto__", "__proto__-1"),
    ("echo", "echo"),
    ("echo", "echo-1"),
    ("echo 1", "echo-1-1"),
    ("echo-1", "echo-1-2"),
    ("echo", "echo-2"),
    ("foxtrot-1", "foxtrot-1"),
    ("foxtrot", "foxtrot"),
    ("foxtrot", "foxtrot-2"),
    ("heading with a - dash", "heading-with-a---dash"),
    ("heading with an _ underscore", "heading-with-an-_-underscore"),
    ("heading with a period.txt", "heading-with-a-periodtxt"),
    ("exchange.bind_headers(exchange, routing [, bindCallback])", "exchangebind_headersexchange-routing--bindcallback"),
    ("apostrophe’s should be trimmed", "apostrophes-should-be-trimmed"),
    ("I ♥ unicode", "i--unicode"),
    ("en–dash", "endash"),
    ("😄 unicode emoji", "-unicode-emoji"),
    ("😄-😄 unicode emoji", "--unicode-emoji"),
    (":smile: - a gemoji", "smile---a-gemoji"),
    ("Привет non-latin 你好", "привет-non-latin-你好"),
    (":ok_hand::hatched_chick: Two in a row with no spaces", "ok_handhatched_chick-two-in-a-row-with-no-spaces"),
]


@pytest.mark.parametrize("text, slug", MDIT_VUE)
def test_vitepress_slugify_matches_mdit_vue_cases(text, slug):
    assert mdit_vue_slugify(text) == slug


def test_docusaurus_slugger_matches_github_slugger_fixtures_repeats_included():
    slugger = GithubSlugger()
    assert [slugger.slug(text) for text, _ in GITHUB_SLUGGER] == [slug for _, slug in GITHUB_SLUGGER]
    assert github_slug("Cased_Letter Ǆ") == "cased_letter-ǆ"
    # checked with github-slugger 2.0.0 itself: letter-like symbols stay, other symbols go
    assert [github_slug(s) for s in ("Ⓐ circled", "x² and ½ ⏱️ 🎉")] == ["ⓐ-circled", "x-and--️-"]


def test_vitepress_numbers_repeats_from_1_and_keeps_explicit_ids():
    headings = [Heading(2, "Title <Badge/>"), Heading(2, "Title"), Heading(2, "Title"), Heading(2, "Mine", "title-2")]
    assert vitepress_anchors([Heading(h.level, plain_text(h.text), h.anchor) for h in headings]) == [
        "title",
        "title-1",
        "title-2",
        "title-2",
    ]


def test_pymdownx_slugs_follow_its_options():
    # pymdown-extensions tests/test_extensions/test_slugs.py
    assert (
        pymdownx_slugify(case="lower")("Testing unicode-slugs_headers ±♠Ωℑ", "-") == "testing-unicode-slugs_headers-ωℑ"
    )
    assert (
        pymdownx_slugify(case="lower", percent_encode=True)("Testing unicode-slugs_headers ±♠Ωℑ with encoding", "-")
        == "testing-unicode-slugs_headers-%CF%89%E2%84%91-with-encoding"
    )
    assert pymdownx_slugify(case="fold")("ẞ", "-") == "ss"
    assert toc_slugify("pymdownx.slugs.uslugify_cased")("Keep Case", "-") == "Keep-Case"
