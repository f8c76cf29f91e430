"""The scorer on hand-written transcripts: one for each way a citation fails to survive, and the ways it does."""

from __future__ import annotations

import pytest

from eval.csr.judge import ModelJudge, NoJudge
from eval.csr.score import score, score_conversation
from eval.csr.transcript import Conversation, ModelCall, ToolCall

REFUNDS = "https://handbook.example.com/policies/refunds/"
ONCALL = "https://handbook.example.com/oncall/"
PASSAGES = [
    {
        "source_id": "Sa7d4b7",
        "url": REFUNDS + "#approval",
        "title": "Refunds",
        "text": "Refunds over 500 euros need approval from finance.",
    },
    {"source_id": "S00beef", "url": ONCALL, "title": "On-call", "text": "The on-call engineer rotates weekly."},
]


def search_result(passages=PASSAGES) -> ToolCall:
    lines = [
        f"[{p['source_id']}] {p['title']} - {p['url']}\n<document-data>{p['text']}</document-data>" for p in passages
    ]
    return ToolCall(
        name="search_docs",
        arguments={"question": "refunds"},
        text="\n".join(lines) or "Nothing relates.",
        structured={"passages": passages},
        seconds=0.1,
    )


def conversation(answer: str, *, cite="ids", gold=(REFUNDS,), passages=PASSAGES, **kw) -> Conversation:
    return Conversation(
        question_id=kw.pop("question_id", "q1"),
        question="Who approves a refund of 800 euros?",
        gold_urls=list(gold),
        pipeline=kw.pop("pipeline", "agent"),
        cite=cite,
        run=kw.pop("run", 1),
        model="scripted",
        server="test",
        events=[
            search_result(passages),
            ModelCall(sent=3, reply={"role": "assistant", "content": answer}, seconds=0.1),
        ],
        answer=answer,
        **kw,
    )


def overlap_complete(**kwargs):
    """A recorded-style judge: 'yes' when the claim's key words are in the passage."""
    prompt = kwargs["messages"][0]["content"]
    passage, claim = prompt.split("\n\nClaim: ")
    claim = claim.split("\n\n")[0]
    words = [w.strip(".,:;").lower() for w in claim.split() if len(w) > 4]
    supported = words and all(w in passage.lower() for w in words)
    return {"choices": [{"message": {"content": "Yes." if supported else "No."}}]}


JUDGE = ModelJudge("scripted-judge", overlap_complete)


def scored(answer: str, **kw):
    return score_conversation(conversation(answer, **kw), JUDGE)


def test_a_supported_id_citation_survives():
    s = scored("Refunds over 500 euros need approval from finance [Sa7d4b7].")
    assert s.presence and s.adherent and not s.fabricated
    assert [(m.form, m.traced, m.url, m.verdict) for m in s.mentions] == [
        ("id", True, REFUNDS + "#approval", "supported")
    ]
    assert s.csr == 1.0 and s.gold_cited == 1.0 and not s.retrieval_failure


def test_a_dropped_citation_is_not_cited_not_a_format_problem():
    s = scored("Refunds over 500 euros need approval from finance.")
    assert not s.presence and not s.adherent and s.csr == 0.0 and not s.retrieval_failure


@pytest.mark.parametrize(
    "answer, form",
    [
        (f"Refunds over 500 euros need approval from [finance]({REFUNDS}#approval).", "markdown"),
        (f"Refunds over 500 euros need approval from finance [source: {REFUNDS}].", "source_label"),
        (f"Refunds over 500 euros need approval from finance: {REFUNDS}#approval", "bare_url"),
        ("Refunds over 500 euros need approval from finance (Sa7d4b7).", "bare_id"),
    ],
)
def test_other_forms_are_present_and_counted_but_not_adherent(answer, form):
    s = scored(answer)
    assert [m.form for m in s.mentions] == [form]
    assert s.presence and not s.adherent
    assert s.mentions[0].traced and s.csr == 1.0  # cited in another form still survives


def test_a_bracketed_url_is_the_requested_form_when_citing_by_url():
    s = scored(f"Refunds over 500 euros need approval from finance [{REFUNDS}#approval].", cite="urls")
    assert s.adherent and s.mentions[0].form == "bracket_url" and s.csr == 1.0


def test_a_fabricated_url_and_a_fabricated_id_are_reported_and_never_count():
    s = scored("Refunds over 500 euros need approval from finance [S0badd1] [https://handbook.example.com/made-up/].")
    assert s.fabricated == ["S0badd1", "https://handbook.example.com/made-up/"]
    assert all(not m.traced and m.verdict is None for m in s.mentions)
    assert s.csr == 0.0 and s.presence and s.adherent  # in the right form, and still made up


def test_an_id_on_an_unsupported_claim_is_cited_but_does_not_survive():
    s = scored("Refunds are approved automatically by the support desk [Sa7d4b7].")
    assert s.mentions[0].traced and s.mentions[0].verdict == "unsupported"
    assert s.gold_cited == 1.0 and s.csr == 0.0


def test_a_citation_after_the_full_stop_cites_the_sentence_before():
    s = scored("Refunds over 500 euros need approval from finance.\n[Sa7d4b7]")
    assert s.claims == ["Refunds over 500 euros need approval from finance."]
    assert s.mentions[0].claim == 0 and s.mentions[0].verdict == "supported"


def test_a_gold_page_never_retrieved_is_a_retrieval_failure_left_out_of_csr():
    s = scored("The on-call engineer rotates weekly [S00beef].", passages=PASSAGES[1:])
    assert s.retrieval_failure and s.csr is None and s.gold_cited is None
    report = score(
        [
            conversation("x", passages=PASSAGES[1:]),
            conversation("Refunds over 500 euros need approval from finance [Sa7d4b7].", question_id="q2"),
        ],
        JUDGE,
    )
    pooled = next(c for c in report.configs if c.run is None)
    assert pooled.retrieval_failures == 1 and pooled.csr.n == 1 and pooled.csr.mean == 1.0


def test_an_out_of_docs_question_scores_on_declining():
    declined = scored("The documentation does not cover steak.", gold=())
    cited = scored("Rest it five minutes [S00beef].", gold=())
    assert declined.declined is True and declined.csr is None
    assert cited.declined is False


def test_without_a_judge_claims_are_unchecked_and_csr_is_not_computed():
    s = score_conversation(conversation("Refunds over 500 euros need approval from finance [Sa7d4b7]."), NoJudge())
    assert s.mentions[0].verdict == "unchecked" and s.csr is None and s.gold_cited == 1.0
    report = score([conversation("Refunds over 500 euros need approval from finance [Sa7d4b7].")], NoJudge())
    assert report.metric == "gold_cited" and report.configs[0].csr is None


def test_an_id_the_url_style_never_showed_is_fabricated():
    passages = [{**p} for p in PASSAGES]
    call = search_result(passages)
    call.text = call.text.replace("[Sa7d4b7] ", "").replace("[S00beef] ", "")  # shown by URL only
    c = conversation("Refunds over 500 euros need approval from finance [Sa7d4b7].", cite="urls")
    c.events[0] = call
    s = score_conversation(c, JUDGE)
    assert s.fabricated == ["Sa7d4b7"] and s.csr == 0.0


def test_configurations_and_a_robust_comparison():
    good = "Refunds over 500 euros need approval from finance [Sa7d4b7]."
    conversations = [
        conversation(answer, cite=cite, run=run, question_id=q)
        for run in (1, 2)
        for q in ("q1", "q2", "q3")
        for cite, answer in (("ids", good), ("urls", "Finance approves it."))
    ]
    report = score(conversations, JUDGE)
    assert {(c.cite, c.run) for c in report.configs} == {
        ("ids", 1),
        ("ids", 2),
        ("ids", None),
        ("urls", 1),
        ("urls", 2),
        ("urls", None),
    }
    (comparison,) = report.comparisons
    assert comparison.a == "agent / ids" and comparison.pooled.mean == 1.0 and comparison.robust
    assert set(comparison.per_run) == {1, 2}


def test_copying_the_notices_example_id_is_fabricated():
    c = conversation("Refunds over 500 euros need approval from finance [S3fa21c].")
    c.events[0].text += "\nCite each passage you use by its ID in brackets, exactly as given, e.g. [S3fa21c]."
    assert score_conversation(c, JUDGE).fabricated == ["S3fa21c"]


def test_what_tools_echo_back_is_not_a_trace():
    # resolve_citations repeats the answer's IDs and URLs; that does not make them shown.
    c = conversation("Refunds over 500 euros need approval from finance [Sdeadbe] [https://fake.example/z].")
    c.events.append(
        ToolCall(
            name="resolve_citations",
            arguments={"text": c.answer},
            seconds=0.1,
            text="[unverified: Sdeadbe] https://fake.example/z",
            structured={"fabricated": ["Sdeadbe"]},
        )
    )
    assert score_conversation(c, JUDGE).fabricated == ["Sdeadbe", "https://fake.example/z"]


def test_a_page_only_linked_from_a_passage_is_shown_but_not_retrieved():
    linked = [{**PASSAGES[1], "text": f"Escalations follow {REFUNDS} (the refund policy)."}]
    s = scored(f"Finance approves large refunds [{REFUNDS}].", passages=linked)
    assert s.retrieval_failure and s.csr is None and not s.fabricated  # traceable, but the gold page never came back


def test_a_citation_opening_the_next_sentence_cites_the_one_before():
    s = scored(
        "Refunds over 500 euros need approval from finance. [Sa7d4b7] The on-call engineer rotates weekly. [S00beef]"
    )
    assert [(m.target, m.claim, m.verdict) for m in s.mentions] == [
        ("Sa7d4b7", 0, "supported"),
        ("S00beef", 1, "supported"),
    ]


def test_a_closing_source_list_vouches_for_the_sentences_above():
    s = scored("Refunds over 500 euros need approval from finance.\n\nSources:\n- [Sa7d4b7]")
    assert s.mentions[0].verdict == "supported" and s.csr == 1.0


def test_a_url_citation_is_judged_chunk_by_chunk():
    chunks = [
        {
            "source_id": f"S00000{i}",
            "url": REFUNDS + f"#part{i}",
            "title": "Refunds",
            "text": "Unrelated filler. " * 300 if i else "Refunds over 500 euros need approval from finance.",
        }
        for i in range(3)
    ]
    s = scored(
        f"Refunds over 500 euros need approval from finance [{REFUNDS}].", cite="urls", passages=list(reversed(chunks))
    )
    assert s.mentions[0].verdict == "supported"


def test_a_failed_conversation_is_an_error_not_lost_citations():
    c = conversation("", error="Calling 'x' failed: the provider is down.")
    c.answer = None
    s = score_conversation(c, JUDGE)
    assert s.csr is None and s.gold_cited is None and s.error
    summary = score([c], JUDGE).configs[0]
    assert summary.errors == 1 and summary.csr is None and summary.format_adherence is None


def test_an_agent_that_gave_up_answered_nothing():
    c = conversation("")
    c.gave_up = True
    s = score_conversation(c, JUDGE)
    assert s.gave_up and s.csr == 0.0 and not s.presence
    assert score([c], JUDGE).configs[0].gave_up == 1
