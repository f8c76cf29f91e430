"""Follow-up questions, written out for retrieval with the conversation's earlier user messages.

"How do I test it?" after "How do I open a WebSocket endpoint?" embeds to nothing in
particular: its subject is in the history. :func:`trigger` decides, cheaply and without a
model, whether a question leans on what came before (a referring word, an ellipsis, too
few words of its own); :func:`rewrite` fills the subject in. Both over-trigger on
purpose: a self-contained question rewritten gains a few words it already had the sense
of, while a follow-up searched as asked finds nothing. No history, no rewrite.

The deterministic rule (no model): the *subject* is the newest of the last three history
messages that does not itself lean on another (else the one with the most content
words), without its question opening ("How do I") and its end punctuation; the
follow-up is kept as asked and " (about <subject>)" appended ("（<subject>）" for a CJK
question), so every word either said reaches the keyword channels and the sentence
still reads as one question. :func:`accepted` is the check a model's rewrite must pass, else the question
is searched as asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, Field

# The most history messages a request may carry, and how many the rewrite looks back over.
MAX_HISTORY_MESSAGES = 20
# A request's history field, as both kinds of search take it.
History = Annotated[
    list[str],
    Field(
        max_length=MAX_HISTORY_MESSAGES,
        description="The conversation's earlier user messages, oldest first: a follow-up question "
        '("how do I test it?") is written out with them before it is searched. Nothing is stored.',
    ),
]
LOOK_BACK = 3
# Fewer content words than this and a question may lean on the history ("How do I test it?").
# Chosen on the first half of eval/docs_questions/followups_fastapi.jsonl, where follow-ups
# carry 1 to 7 content words and written-out questions 6 to 15: over-triggering is the cheap
# error (the written-out questions rewritten after another conversation's history lost no
# recall), a missed follow-up loses the turn.
SHORT_WORDS = 6
# A CJK question with this many characters or fewer is short ("测试呢？").
SHORT_CJK_CHARS = 6

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?|`[^`]+`")
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

# Words that say nothing of the subject: how English asks, and its glue.
STOP_WORDS = frozenset(
    """a an the i me my we us our you your he she his her do does did done doing can could would should will shall
    may might must is are was were be been being am have has had having please what which who whom whose when where
    why how to of in on at for with by from as into about and or but if then so than not no yes also just still too
    very some any all more most other such own same there here it its it's they them their those these this that one
    ones thing things way ok okay thanks well now again instead use using used make get need want""".split()
)
# Words that point back at something named before.
REFERRING = frozenset("it its it's itself that this they them their those these there one ones such".split())
REFERRING_PHRASES = ("the same", "the other", "the former", "the latter", "that one", "this one")
# Openings of an ellipsis: the question continues the last one.
ELLIPSIS = re.compile(
    r"^\s*(and|also|but|or|what about|how about|what if|same for|same with|and for|and in|and with|then|so)\b",
    re.IGNORECASE,
)
# Chinese and Japanese words that refer back, and sentence ends that continue ("…呢？").
CJK_REFERRING = (
    "它们", "它", "这个", "那个", "这些", "那些", "这样", "那样", "这里", "那里", "该", "此",
    "それら", "それ", "これ", "あれ", "その", "この", "あの", "そこ", "ここ", "同じ", "そちら", "こちら",
)  # fmt: skip
CJK_ELLIPSIS = re.compile(r"(呢|那么|还有|另外|同样|じゃあ|では|なら|は[？?]|も[？?])")
# How a question opens ("How do I", "Can I", "What is"): not its subject.
_OPENING = re.compile(
    r"^\s*((how|what|why|when|where|which|who|can|could|should|would|do|does|is|are)\b\s*)+"
    r"((do|does|can|could|should|would|will|is|are)\s+)?((i|we|you|it)\s+)?",
    re.IGNORECASE,
)
_TRAILING = re.compile(r"[\s?？!！.。]+$")


def words(text: str) -> list[str]:
    """The words of ``text`` as written, a `code span` as one word.

    >>> words("How do I test `TestClient`'s cookies?")
    ['How', 'do', 'I', 'test', '`TestClient`', 's', 'cookies']
    """
    return _WORD.findall(text)


def content_words(text: str) -> list[str]:
    """The words of ``text`` that name something, lower-cased (CJK characters count one each).

    >>> content_words("How do I test it?")
    ['test']
    >>> content_words("怎么测试它？")
    ['怎', '么', '测', '试']
    """
    found = [w.strip("`").lower() for w in words(text) if w.lower() not in STOP_WORDS and not _CJK.search(w)]
    return found + [c for c in text if _CJK.match(c) and not any(c in r for r in CJK_REFERRING)]


def trigger(question: str, history: Sequence[str]) -> str | None:
    """Why ``question`` leans on the history and should be rewritten, or ``None``.

    >>> trigger("How do I test it?", ["How do I open a WebSocket endpoint?"])
    "refers back ('it')"
    >>> trigger("And for cookies?", ["How do I set headers?"])
    'ellipsis'
    >>> trigger("Testing?", ["How do I open a WebSocket endpoint?"])
    'short (1 content words)'
    >>> trigger("How do I declare a path parameter with a type and a default value in FastAPI?", ["How do I open a WebSocket?"])
    >>> trigger("How do I test it?", [])
    >>> trigger("怎么测试它？", ["如何打开WebSocket端点？"])
    "refers back ('它')"
    >>> trigger("それをテストするには？", ["WebSocketのエンドポイントを開くには？"])
    "refers back ('それ')"
    """
    if not any(m.strip() for m in history):
        return None
    cjk = [c for c in question if _CJK.match(c)]
    lowered = f" {' '.join(w.lower() for w in words(question))} "
    for phrase in REFERRING_PHRASES:
        if f" {phrase} " in lowered:
            return f"refers back ({phrase!r})"
    for word in words(question):
        if word.lower() in REFERRING:
            return f"refers back ({word.lower()!r})"
    for word in CJK_REFERRING:
        if word in question:
            return f"refers back ({word!r})"
    if ELLIPSIS.match(question) or CJK_ELLIPSIS.search(question):
        return "ellipsis"
    latin = [w for w in content_words(question) if not _CJK.match(w)]
    if cjk and len(cjk) + len(latin) <= SHORT_CJK_CHARS:
        return f"short ({len(cjk)} characters)"
    if not cjk and len(latin) < SHORT_WORDS:
        return f"short ({len(latin)} content words)"
    return None


def subject(history: Sequence[str]) -> str:
    """What a follow-up leaves out: the newest self-contained history message, without its question opening.

    >>> subject(["How do I open a WebSocket endpoint?"])
    'open a WebSocket endpoint'
    >>> subject(["How do I set response headers?", "And cookies?"])
    'set response headers'
    >>> subject(["如何打开WebSocket端点？"])
    '如何打开WebSocket端点'
    """
    recent = [m.strip() for m in history if m.strip()][-LOOK_BACK:]
    if not recent:
        return ""
    # The newest message that stands on its own: a chain of follow-ups points back to it.
    # Else the one that says the most (newest on a tie).
    standing = [m for m in recent if trigger(m, ["-"]) is None]
    source = standing[-1] if standing else max(reversed(recent), key=lambda m: len(content_words(m)))
    return _TRAILING.sub("", _OPENING.sub("", source)) or _TRAILING.sub("", source)


def rewrite(question: str, history: Sequence[str]) -> str:
    """``question`` with the history's subject carried in (the module's rule); as asked without one.

    Tried on the first half of ``eval/docs_questions/followups_fastapi.jsonl``: appending the
    whole subject found more gold pages (R@5 0.962) than replacing the referring word with the
    subject's noun phrase (0.923), which lost the words around it ("at startup").

    >>> rewrite("How do I test it?", ["How do I open a WebSocket endpoint?"])
    'How do I test it? (about open a WebSocket endpoint)'
    >>> rewrite("What about cookies?", ["How do I set response headers?"])
    'What about cookies? (about set response headers)'
    >>> rewrite("怎么测试它？", ["如何打开WebSocket端点？"])
    '怎么测试它？（如何打开WebSocket端点）'
    >>> rewrite("How do I test it?", [])
    'How do I test it?'
    """
    topic = subject(history)
    if not topic:
        return question
    if _CJK.search(question):
        return f"{question}（{topic}）"
    return f"{question} (about {topic})"


def accepted(question: str, rewritten: str, max_chars: int) -> str | None:
    """Why a model's rewrite cannot be searched (then the question is, as asked), or ``None``.

    >>> accepted("How do I test it?", "How do I test a WebSocket endpoint?", 200)
    >>> accepted("How do I test it?", "  ", 200)
    'empty rewrite'
    >>> accepted("How do I test it?", "x" * 300, 200)
    'rewrite longer than 200 characters'
    >>> accepted("How do I test it?", "How do I open a WebSocket endpoint?", 200)
    "rewrite drops every content word of the question ('test')"
    """
    text = rewritten.strip()
    if not text:
        return "empty rewrite"
    if len(text) > max_chars:
        return f"rewrite longer than {max_chars} characters"
    asked = content_words(question)
    kept = set(content_words(text))
    if asked and not kept.intersection(asked):
        return f"rewrite drops every content word of the question ({', '.join(map(repr, asked))})"
    return None


class Rewrite(BaseModel):
    """Whether a follow-up was written out before it was searched, by what, and why."""

    triggered: bool = Field(
        description="The question seemed to lean on the history (a referring word, an ellipsis, "
        "or few words of its own)."
    )
    by: str = Field(description="What wrote the searched text: `deterministic`, a litellm model, or `none` (as asked).")
    why: str = Field(description="The trigger's reason, and a model's failure when the question was searched as asked.")
