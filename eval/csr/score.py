"""Scoring transcripts: which citations survive, are traceable, and support their claims.

For each conversation: the citations in the answer (any form), each traced to a tool
result of that conversation (or reported as fabricated), each judged against the
passage it points at, per claim. Citation survival (CSR) of a question is the share
of its gold pages cited on a supported claim; a question whose gold page no tool
ever returned is a retrieval failure, counted apart and left out. A question the
documents do not answer scores on whether the answer declined without citing.
Everything here reads transcripts only.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from itertools import groupby
from statistics import fmean
from typing import Any

from pydantic import BaseModel, Field

from schema_search.tools.citations import URL, page
from schema_search.tools.docs import EXAMPLE_URL

from .claims import Claim, claims, declines
from .judge import Judge, Verdict
from .mentions import FORMS, REQUESTED, Form, clean, mentions
from .stats import Interval, bootstrap, compare
from .transcript import Conversation

# "[S3fa21c] Title > Section - https://...": how search_docs and get_document head each passage.
_HEADING = re.compile(r"^\[(S[0-9a-fA-F]{2,16})\] .*? - (https?://\S+)", re.M)
SEARCH_TOOLS = {"search_docs"}
DOCUMENT_TOOLS = {"search_docs", "get_document"}
# A citation in a closing source list is judged against this many sentences above it.
SOURCES_LIST_CLAIMS = 5
# The chunks of one page a URL citation is judged against, at most.
MAX_PASSAGES = 8
TOOL_TEXT = 6000  # characters of each tool result kept for the report


class MentionScore(BaseModel):
    form: Form
    target: str
    start: int
    end: int
    requested_form: bool = Field(description="Written in the form the citation style asked for.")
    traced: bool = Field(description="The ID or URL was in a tool result of this conversation.")
    url: str | None = Field(None, description="The URL it stands for (an ID resolved through the tool results).")
    claim: int | None = Field(None, description="Index of the claim it cites.")
    verdict: Verdict | None = Field(None, description="Does the cited passage support the claim (None: fabricated).")


class GoldScore(BaseModel):
    url: str
    retrieved: bool
    cited: bool = Field(description="A traced citation points at this page.")
    supported: bool = Field(description="... on a claim the judge found supported.")


class ToolView(BaseModel):
    name: str
    arguments: str
    text: str = Field(description="The result as the model read it, cut to a few thousand characters.")


class ConversationScore(BaseModel):
    question_id: str
    question: str
    pipeline: str
    cite: str
    run: int
    in_docs: bool
    answer: str
    error: str | None
    gave_up: bool = False
    claims: list[str]
    mentions: list[MentionScore]
    searches: int
    gold: list[GoldScore]
    retrieval_failure: bool
    presence: bool = Field(description="The answer cites something, in any form.")
    adherent: bool = Field(description="The answer cites at least once in the requested form.")
    fabricated: list[str]
    declined: bool | None = Field(None, description="Out-of-docs questions: declined without citing.")
    tool_calls: list[ToolView] = Field(default_factory=list)
    csr: float | None = Field(None, description="Share of gold pages cited on a supported claim; None when not scored.")
    gold_cited: float | None = Field(
        None, description="Share of gold pages cited at all (traced, support not required)."
    )


class Estimate(BaseModel):
    mean: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, interval: Interval | None) -> Estimate | None:
        return cls(mean=interval.mean, low=interval.low, high=interval.high, n=interval.n) if interval else None


class ConfigSummary(BaseModel):
    pipeline: str
    cite: str
    run: int | None = Field(description="None: pooled over runs (per-question means).")
    conversations: int
    errors: int = Field(description="Conversations that failed (provider errors): counted here, scored nowhere.")
    gave_up: int = Field(0, description="Agent conversations that used every turn without answering (scored as empty).")
    in_docs: int
    out_of_docs: int
    csr: Estimate | None = Field(description="None without a judge: unchecked claims never count as supported.")
    gold_cited: Estimate | None
    format_adherence: float | None = Field(description="In-docs answers citing at least once in the requested form.")
    presence: float | None = Field(description="In-docs answers citing anything, in any form.")
    other_format_only: float | None = Field(description="In-docs answers that cite, but never in the requested form.")
    mentions_by_form: dict[str, int]
    fabricated: int
    fabricated_per_answer: float
    retrieval_failures: int
    declined: float | None = Field(description="Out-of-docs answers that declined without citing.")
    mean_searches: float
    verdicts: dict[str, int]


class ComparisonSummary(BaseModel):
    a: str
    b: str
    metric: str
    per_run: dict[int, Estimate]
    pooled: Estimate | None
    robust: bool = Field(description="Same sign in every run and a pooled interval excluding 0.")


class ScoreReport(BaseModel):
    judge: str
    metric: str = Field(description="What comparisons compare: csr, or gold_cited when there is no judge.")
    configs: list[ConfigSummary]
    comparisons: list[ComparisonSummary]
    conversations: list[ConversationScore]


def score(conversations: list[Conversation], judge: Judge) -> ScoreReport:
    scored = [score_conversation(c, judge) for c in conversations]
    metric = "gold_cited" if judge.name == "none" else "csr"
    configs: list[ConfigSummary] = []
    comparisons: list[ComparisonSummary] = []
    by_config = _grouped(scored, lambda s: (s.pipeline, s.cite))
    for (pipeline, cite), group in by_config.items():
        for run, items in _grouped(group, lambda s: s.run).items():
            configs.append(_summary(pipeline, cite, run, items))
        configs.append(_summary(pipeline, cite, None, group))
    for a, b in _pairs(list(by_config)):
        c = compare(_label(a), _label(b), metric, _per_run(by_config[a], metric), _per_run(by_config[b], metric))
        comparisons.append(
            ComparisonSummary(
                a=c.a,
                b=c.b,
                metric=c.metric,
                per_run={r: Estimate.of(i) for r, i in c.per_run.items()},
                pooled=Estimate.of(c.pooled),
                robust=c.robust,
            )
        )
    return ScoreReport(judge=judge.name, metric=metric, configs=configs, comparisons=comparisons, conversations=scored)


def score_conversation(conversation: Conversation, judge: Judge) -> ConversationScore:
    seen = _Seen(conversation.tool_calls())
    answer = conversation.answer or ""
    found = mentions(answer, seen.ids)
    parts = claims(answer, found)
    claim_of = {id(m): i for i, claim in enumerate(parts) for m in claim.mentions}
    requested = REQUESTED[conversation.cite]
    scored: list[MentionScore] = []
    for mention in found:
        url, traced = seen.trace(mention.target)
        index = claim_of.get(id(mention))
        verdict: Verdict | None = None
        if traced:
            verdict = _verdict(judge, _claim_texts(parts, index), seen.passages(mention.target))
        scored.append(
            MentionScore(
                form=mention.form,
                target=mention.target,
                start=mention.start,
                end=mention.end,
                requested_form=mention.form == requested,
                traced=traced,
                url=url,
                claim=index,
                verdict=verdict,
            )
        )
    gold = [
        GoldScore(
            url=g,
            retrieved=page(g) in seen.retrieved,
            cited=any(m.traced and m.url and page(m.url) == page(g) for m in scored),
            supported=any(m.verdict == "supported" and m.url and page(m.url) == page(g) for m in scored),
        )
        for g in conversation.gold_urls
    ]
    in_docs = bool(conversation.gold_urls)
    failure = in_docs and not any(g.retrieved for g in gold)
    result = ConversationScore(
        question_id=conversation.question_id,
        question=conversation.question,
        pipeline=conversation.pipeline,
        cite=conversation.cite,
        run=conversation.run,
        in_docs=in_docs,
        answer=answer,
        error=conversation.error,
        gave_up=conversation.gave_up,
        claims=[c.text for c in parts],
        mentions=scored,
        searches=sum(1 for t in conversation.tool_calls() if t.name in SEARCH_TOOLS),
        gold=gold,
        retrieval_failure=failure,
        presence=bool(found),
        adherent=any(m.requested_form for m in scored),
        fabricated=list(dict.fromkeys(m.target for m in scored if not m.traced)),
        tool_calls=[
            ToolView(name=t.name, arguments=json.dumps(t.arguments, ensure_ascii=False), text=t.text[:TOOL_TEXT])
            for t in conversation.tool_calls()
        ],
    )
    if conversation.answer is None:
        return result  # a failed conversation is counted as an error, not as lost citations
    if not in_docs:
        result.declined = declines(answer) and not found
    elif not failure:
        result.gold_cited = fmean(g.cited for g in gold)
        result.csr = fmean(g.supported for g in gold) if judge.name != "none" else None
    return result


def _claim_texts(parts: list[Claim], index: int | None) -> list[str]:
    """What a citation on claim ``index`` vouches for: that sentence, or for a closing source list the ones above."""
    if index is None:
        return []
    if parts[index].sources_list:
        return [c.text for c in parts[:index] if c.text and not c.sources_list][-SOURCES_LIST_CLAIMS:]
    return [parts[index].text] if parts[index].text else []


def _verdict(judge: Judge, texts: list[str], passages: list[str]) -> Verdict:
    """Supported when some passage behind the citation supports some claim it is on; unsupported when none does."""
    verdicts = [judge(text, passage) for text in texts for passage in passages[:MAX_PASSAGES] if passage]
    if "supported" in verdicts:
        return "supported"
    return "unsupported" if verdicts and all(v == "unsupported" for v in verdicts) else "unchecked"


class _Seen:
    """What the document tools of one conversation returned: sources (ID, URL, text), and the URLs shown.

    Only ``search_docs`` and ``get_document`` results count: ``resolve_citations`` and
    ``render_answer`` echo the model's own text back, so whatever it made up would
    look "shown". A page is retrieved when a returned source is on it; a URL counts as
    shown (traceable) also when it is a link inside a returned passage.
    """

    def __init__(self, calls: Iterable[Any]) -> None:
        self.ids: set[str] = set()
        self.retrieved: set[str] = set()
        self.shown_pages: set[str] = set()
        self.by_id: dict[str, dict[str, str]] = {}
        self.by_url: dict[str, list[str]] = {}
        for call in calls:
            if call.is_error or call.name not in DOCUMENT_TOOLS:
                continue
            sources = list(_sources(call.structured)) or _headed_sources(call.text)
            shown = call.text.lower()
            for source in sources:
                if source["source_id"].lower() in shown:  # an ID sent only as structured content was not read
                    self.ids.add(source["source_id"].lower())
                self.by_id.setdefault(source["source_id"].lower(), source)
                for key in (source["url"], page(source["url"])):
                    self.by_url.setdefault(key, []).append(source.get("text", ""))
                self.retrieved.add(page(source["url"]))
            self.shown_pages.update(page(clean(u)) for u in URL.findall(call.text))
        # The URL notice's own example is in every result: copying it cites nothing that was given.
        if page(EXAMPLE_URL) not in self.retrieved:
            self.shown_pages.discard(page(EXAMPLE_URL))
        self.shown_pages |= self.retrieved

    def trace(self, target: str) -> tuple[str | None, bool]:
        """The URL a citation stands for, and whether this conversation's document tools showed it."""
        if "://" in target:
            return target, page(target) in self.shown_pages
        source = self.by_id.get(target.lower())
        return (source["url"] if source else None), target.lower() in self.ids

    def passages(self, target: str) -> list[str]:
        """The returned chunks a citation points at: its ID's, its URL's, or every chunk of its page."""
        if "://" not in target:
            return [(self.by_id.get(target.lower()) or {}).get("text", "")]
        return list(dict.fromkeys(self.by_url.get(target) or self.by_url.get(page(target)) or []))


def _headed_sources(text: str) -> list[dict[str, str]]:
    """Sources read from a result's heading lines (``[S3fa21c] Title - URL``), for servers that send no structured content."""
    return [{"source_id": m.group(1), "url": clean(m.group(2)), "text": ""} for m in _HEADING.finditer(text)]


def _sources(value: Any) -> Iterator[dict[str, str]]:
    """Every ``{source_id, url, ...}`` object in a tool's structured content, however deep."""
    if isinstance(value, dict):
        if isinstance(value.get("source_id"), str) and isinstance(value.get("url"), str):
            yield value
        for item in value.values():
            yield from _sources(item)
    elif isinstance(value, list):
        for item in value:
            yield from _sources(item)


def _summary(pipeline: str, cite: str, run: int | None, items: list[ConversationScore]) -> ConfigSummary:
    answered = [s for s in items if s.error is None]  # failures are counted as errors, nothing else
    inside = [s for s in answered if s.in_docs]
    outside = [s for s in answered if not s.in_docs]
    forms = Counter(m.form for s in answered for m in s.mentions)
    verdicts = Counter(m.verdict or "fabricated" for s in answered for m in s.mentions)

    def share(values: list[bool]) -> float | None:
        return fmean(values) if values else None

    def estimate(metric: str) -> Estimate | None:
        per_question = _per_question(items, metric)
        return Estimate.of(bootstrap(list(per_question.values())))

    return ConfigSummary(
        pipeline=pipeline,
        cite=cite,
        run=run,
        conversations=len(items),
        errors=sum(1 for s in items if s.error),
        gave_up=sum(1 for s in items if s.gave_up),
        in_docs=len(inside),
        out_of_docs=len(outside),
        csr=estimate("csr"),
        gold_cited=estimate("gold_cited"),
        format_adherence=share([s.adherent for s in inside]),
        presence=share([s.presence for s in inside]),
        other_format_only=share([s.presence and not s.adherent for s in inside]),
        mentions_by_form={f: forms[f] for f in FORMS if forms[f]},
        fabricated=sum(len(s.fabricated) for s in answered),
        fabricated_per_answer=fmean(len(s.fabricated) for s in answered) if answered else 0.0,
        retrieval_failures=sum(1 for s in inside if s.retrieval_failure),
        declined=share([bool(s.declined) for s in outside]),
        mean_searches=fmean(s.searches for s in answered) if answered else 0.0,
        verdicts=dict(verdicts),
    )


def _per_question(items: list[ConversationScore], metric: str) -> dict[str, float]:
    """Question → the metric, averaged over the runs that scored it."""
    values: dict[str, list[float]] = {}
    for s in items:
        value = getattr(s, metric)
        if value is not None:
            values.setdefault(s.question_id, []).append(value)
    return {q: fmean(v) for q, v in values.items()}


def _per_run(items: list[ConversationScore], metric: str) -> dict[int, dict[str, float]]:
    return {run: _per_question(group, metric) for run, group in _grouped(items, lambda s: s.run).items()}


def _pairs(configs: list[tuple[str, str]]) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """The comparisons worth making: ids against urls for each pipeline, agent against single-shot for each style."""
    present = set(configs)
    pairs = [((p, "ids"), (p, "urls")) for p in ("single-shot", "agent")]
    pairs += [(("agent", c), ("single-shot", c)) for c in ("ids", "urls")]
    return [(a, b) for a, b in pairs if a in present and b in present]


def _label(config: tuple[str, str]) -> str:
    return f"{config[0]} / {config[1]}"


def _grouped(items: list[Any], key: Any) -> dict[Any, list[Any]]:
    ordered = sorted(items, key=key)
    return {k: list(g) for k, g in groupby(ordered, key=key)}
