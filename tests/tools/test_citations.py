"""citations: IDs a client was given resolve to tables (or URLs); the rest are reported."""

from __future__ import annotations

from schema_search.tools.citations import Ledger, Ledgers, Source


def ledger_with(*sources: Source) -> Ledger:
    ledger = Ledger()
    ledger.record(sources)
    return ledger


def test_known_ids_resolve_and_are_counted_in_order_of_first_use() -> None:
    ledger = ledger_with(Source("T3fa21c", "table", "billing.invoices"), Source("T1b2c3d", "table", "crm.accounts"))
    report = ledger.resolve("Join [T1b2c3d] to [T3fa21c]; amounts are in [T3FA21C].")
    assert report.text == "Join [crm.accounts] to [billing.invoices]; amounts are in [billing.invoices]."
    assert [(c.id, c.ref, c.count) for c in report.cited] == [
        ("T1b2c3d", "crm.accounts", 1),
        ("T3fa21c", "billing.invoices", 2),
    ]
    assert report.ok and report.fabricated == []


def test_several_ids_in_one_bracket() -> None:
    ledger = ledger_with(Source("T3fa21c", "table", "billing.invoices"))
    report = ledger.resolve("See [T3fa21c, T000000; T3fa21c].")
    assert report.text == "See [billing.invoices, unverified: T000000, billing.invoices]."
    assert report.fabricated == ["T000000"]
    assert not report.ok


def test_ids_never_returned_are_fabricated_even_if_well_formed() -> None:
    report = Ledger().resolve("Per [Tabcdef] and [Tabcdef].")
    assert report.fabricated == ["Tabcdef"]
    assert report.cited == []


def test_text_without_ids_and_lookalikes_stays_as_is() -> None:
    text = "Use [main.orders], [Table 2], [x1234567], [S] and T3fa21c without brackets."
    report = ledger_with(Source("T3fa21c", "table", "main.orders")).resolve(text)
    assert report.text == text
    assert report.cited == [] and report.ok


def test_id_shaped_tokens_of_any_length_are_reported() -> None:
    ledger = ledger_with(Source("S3fa21c", "document", "https://x.dev/a/", "A"))
    report = ledger.resolve("See [S3fa21] and [S3fa21c00] and [T12] but [S3fa21c].")
    assert report.fabricated == ["S3fa21", "S3fa21c00", "T12"]
    assert [c.id for c in report.cited] == ["S3fa21c"]


def test_passages_resolve_to_their_urls() -> None:
    ledger = ledger_with(Source("S00beef", "document", "https://wiki.example/refunds#window", "Refund policy > Window"))
    report = ledger.resolve("Refunds follow [S00beef].")
    assert report.text == "Refunds follow [Refund policy > Window (https://wiki.example/refunds#window)]."
    assert report.cited[0].kind == "document" and report.cited[0].ref == "https://wiki.example/refunds#window"


def test_urls_never_retrieved_are_reported_and_retrieved_pages_are_not() -> None:
    ledger = ledger_with(Source("S00beef", "document", "https://wiki.example/refunds/#window", "Refunds"))
    report = ledger.resolve(
        "See https://wiki.example/refunds/, [the policy](https://wiki.example/refunds#other) and https://made.up/page."
    )
    assert report.urls_not_retrieved == ["https://made.up/page"]
    assert not report.ok


def test_each_session_has_its_own_ledger_and_old_ones_are_dropped() -> None:
    ledgers = Ledgers(limit=2)
    ledgers("a").record([Source("T3fa21c", "table", "main.orders")])
    theirs, mine = ledgers("b").resolve("[T3fa21c]"), ledgers("a").resolve("[T3fa21c]")
    assert mine.ok and mine.issued_elsewhere == []
    assert theirs.issued_elsewhere == ["T3fa21c"] and theirs.fabricated == []
    ledgers("c")  # "b" is now the least recently used of three
    assert len(ledgers("a")) == 1
    assert len(ledgers("b")) == 0


def test_an_id_issued_to_another_session_resolves_and_is_reported_apart_from_one_never_issued() -> None:
    # A stateless HTTP client: its search and its resolve_citations are two sessions.
    ledgers = Ledgers()
    ledgers("search-call").record(
        [
            Source("T3fa21c", "table", "main.orders"),
            Source("S00beef", "document", "https://wiki.example/refunds/#w", "Refunds"),
        ]
    )
    report = ledgers("resolve-call").resolve("See [T3fa21c], [S00beef], [Tdeadbe] and https://wiki.example/refunds/.")
    assert report.text == (
        "See [main.orders], [Refunds (https://wiki.example/refunds/#w)], [unverified: Tdeadbe] and https://wiki.example/refunds/."
    )
    assert report.issued_elsewhere == ["T3fa21c", "S00beef"]
    assert report.fabricated == ["Tdeadbe"]
    assert [c.id for c in report.cited] == ["T3fa21c", "S00beef"]
    assert report.urls_not_retrieved == []  # a page another session's result carried was retrieved from this server
    assert not report.ok  # for Tdeadbe alone
    assert ledgers("resolve-call").resolve("[T3fa21c]").ok


def test_a_lone_ledger_knows_only_its_own_sources() -> None:
    ledgers = Ledgers()
    ledgers("a").record([Source("T3fa21c", "table", "main.orders")])
    report = Ledger().resolve("[T3fa21c]")
    assert report.fabricated == ["T3fa21c"] and report.issued_elsewhere == []


def test_the_server_wide_record_keeps_the_most_recent_sources() -> None:
    ledgers = Ledgers(issued_limit=2)
    for n in range(3):
        ledgers(f"s{n}").record([Source(f"T00000{n}", "table", f"main.t{n}")])
    ledgers("s0").record([Source("T000000", "table", "main.t0")])  # recorded again: the most recent
    report = ledgers("other").resolve("[T000000] [T000001] [T000002]")
    assert report.issued_elsewhere == ["T000000", "T000002"] and report.fabricated == ["T000001"]


def test_a_session_holding_only_placeholders_keeps_them() -> None:
    # Its ledger has no sources yet (len 0, so falsy): it must still be the same ledger next call.
    ledgers = Ledgers()
    placeholder = ledgers("a").placeholders.issue("https://peps.python.org/pep-0008/")
    assert ledgers("a").resolve(f"See {placeholder}.").text == "See https://peps.python.org/pep-0008/."
