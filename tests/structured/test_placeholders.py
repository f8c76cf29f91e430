"""placeholders: exact values of any shape go out as placeholders; only issued ones come back filled."""

from __future__ import annotations

from schema_search.structured.placeholders import Placeholders
from schema_search.tools.citations import Ledgers


def test_exact_values_of_every_shape_are_masked() -> None:
    p = Placeholders()
    assert p.mask(9780134685991, exact=True) == "{{value:1}}"  # an ISBN typed as a number
    assert p.mask({"url": "https://x.dev/a", "n": None}, exact=True) == {"url": "{{link:2}}", "n": None}
    assert p.mask(["https://x.dev/a", "https://x.dev/b"], exact=False) == ["{{link:2}}", "{{link:3}}"]
    assert p.mask("no links here", exact=False) == "no links here"
    assert p.render("{{value:1}} at {{link:3}}").text == "9780134685991 at https://x.dev/b"


def test_case_and_spacing_do_not_hide_a_placeholder() -> None:
    p = Placeholders()
    p.issue("https://x.dev/a")
    rendered = p.render("{{LINK:1}}, {{ link : 01 }} and {{Link:2}}")
    assert rendered.text == "https://x.dev/a, https://x.dev/a and [unverified: {{link:2}}]"
    assert rendered.filled == ["{{link:1}}"] and rendered.unknown == ["{{link:2}}"] and not rendered.ok


def test_sessions_do_not_share_placeholders() -> None:
    ledgers = Ledgers()
    mine, theirs = ledgers("a"), ledgers("b")
    link = mine.placeholders.issue("https://x.dev/secret")
    assert theirs.resolve(f"see {link}").placeholders_unknown == [link]
    assert mine.resolve(f"see {link}").text == "see https://x.dev/secret"
