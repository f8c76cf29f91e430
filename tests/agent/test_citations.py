"""citations: IDs a client was given resolve to tables (or URLs); the rest are reported."""

from __future__ import annotations

from schema_search.agent.citations import Ledger, Ledgers, Source


def ledger_with(*sources: Source) -> Ledger:
    ledger = Ledger()
    ledger.record(sources)
    return ledger


def test_known_ids_resolve_and_are_counted_in_order_of_first_use() -> None:
    ledger = ledger_with(Source("T3fa21c", "table", "billing.invoices"), Source("T1b2c3d", "table", "crm.accounts"))
    report = ledger.resolve("Join [T1b2c3d] to [T3fa21c]; amounts are in [T3FA21C].")
    assert report.text == "Join [crm.accounts] to [billing.invoices]; amounts are in [billing.invoices]."
    assert [(c.id, c.ref, c.count) for c in report.cited] == [("T1b2c3d", "crm.accounts", 1), ("T3fa21c", "billing.invoices", 2)]
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
    assert ledgers("b").resolve("[T3fa21c]").fabricated == ["T3fa21c"]
    assert ledgers("a").resolve("[T3fa21c]").ok
    ledgers("c")  # "b" is now the least recently used of three
    assert len(ledgers("a")) == 1
    assert len(ledgers("b")) == 0
