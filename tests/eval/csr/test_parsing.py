"""Citation forms and claims as real answers write them: the cases a lenient parser must still get right."""

from __future__ import annotations

import pytest

from eval.csr.claims import claims, declines
from eval.csr.mentions import mentions


def cited(text: str) -> list[tuple[str, str]]:
    return [(m.form, m.target) for m in mentions(text)]


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "详见https://x.dev/a。然后设置，https://x.dev/b，好的",
            [("bare_url", "https://x.dev/a"), ("bare_url", "https://x.dev/b")],
        ),
        ("Visit **https://x.dev/a**.", [("bare_url", "https://x.dev/a")]),
        ("Press [Tab] or [Seed] to go on.", []),
        ("Cut short [S3fa2] or lower-cased [s3fa21c].", [("id", "S3fa2"), ("id", "s3fa21c")]),
        (
            "Run `curl http://127.0.0.1:8000/docs` then\n```\nhttp://localhost:8000\n```\nsee [S3fa21c].",
            [("id", "S3fa21c")],
        ),
        (
            'See [the guide](https://x.dev/a "Guide") and (https://x.dev/b).',
            [("markdown", "https://x.dev/a"), ("bare_url", "https://x.dev/b")],
        ),
    ],
)
def test_citation_forms(text, expected):
    assert cited(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Use it.\n\nSources: [S1aaaaa], [S2bbbbb].",
        "Use it.\n\n**Sources:**\n- [S1aaaaa]\n- [S2bbbbb]",
        "Use it.\n\n## References\n- [CORS](https://x.dev/cors)\n- [Other](https://x.dev/o)",
    ],
)
def test_a_closing_source_list_in_its_usual_shapes(text):
    parts = claims(text, mentions(text))
    assert [c.text for c in parts][0] == "Use it." and parts[-1].sources_list and len(parts[-1].mentions) == 2


def test_no_sentence_ends_inside_a_citation_or_after_an_abbreviation():
    text = "See [Step 1. Install](https://x.dev/a) now, e.g. with pip [S1aaaaa]."
    (claim,) = claims(text, mentions(text))
    assert claim.text == "See Step 1. Install now, e.g. with pip." and len(claim.mentions) == 2


def test_declining_names_the_documents():
    assert declines("The provided documentation does not mention steak.")
    assert declines("I couldn't find anything about visas.")
    assert not declines("No information is lost: the request is retried.")
