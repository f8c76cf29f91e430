"""The coverage check: is what the question asks for in the passages found, and if not, what to search for.

A search can return passages that are all on topic yet none holding the fact: "how much does
the Starter plan cost?" finds the Starter page, the usage guide and the terms, none with a
price, and a model handed a page titled Starter without a number supplies one. Two string
checks on what came back, decided in code:

* **the subject**: words of the question that are the corpus's own vocabulary (a word of
  some document's title, or a capitalised name) yet in none of the passages found;
* **the aspect**: what the question asks about, where that has a fixed form (a price carries
  a currency sign or code, a duration a number and a time unit, a contact an e-mail address,
  a phone number or a URL), or else its topic words (refunds, compliance, trials,
  integrations, retention), in English, German, Chinese and Japanese.

When either is missing, :func:`missing` says what, and :func:`follow_up_query` the one more
search to run for it. Pure functions: the search runs it once and merges, never in a loop.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..core.followup import STOP_WORDS


@dataclass(frozen=True)
class Aspect:
    """An aspect a question can ask about: the words that ask for it, and what a passage holding it shows."""

    name: str
    asks: re.Pattern[str]
    holds: re.Pattern[str]
    terms: str  # searched with the subject when the aspect is missing


_I = re.IGNORECASE
ASPECTS = (
    Aspect(
        "price",
        re.compile(
            r"\b(price|pricing|cost|costs|how much|fee|fees|pay|per month|per year|preis|kosten)\b|价格|多少钱|料金|価格",
            _I,
        ),
        re.compile(r"[$€£¥]|\b(USD|EUR|GBP|JPY|CHF|euros?|dollars?|pounds?|cents?)\b|\d+[.,]\d{2}\b|元|円", _I),
        "price per month EUR USD",
    ),
    Aspect(
        "duration",
        re.compile(
            r"\b(how long|how many (days|weeks|months|years|hours)|duration|period|until when|wie lange)\b|多久|多长时间|どのくらい|何日",
            _I,
        ),
        re.compile(
            r"\b\d+\s*(-\s*)?(second|minute|hour|day|week|month|year|tag|woche|monat|jahr)e?s?\b|\d+\s*(天|日|周|月|年|時間|分)",
            _I,
        ),
        "days months duration",
    ),
    Aspect(
        "contact",
        re.compile(
            r"\b(contact|reach|e-?mail|phone|call|telephone|hotline|kontakt)\b|联系|电话|邮箱|連絡|電話|メール", _I
        ),
        re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+|\+?\d[\d ()-]{6,}\d|https?://", _I),
        "contact e-mail phone",
    ),
    Aspect(
        "refund",
        re.compile(r"\b(refund|refunds|money back|cancel|cancellation|erstattung)\b|退款|返金", _I),
        re.compile(r"\b(refund|refunds|refunded|money back|erstattung)\b|退款|返金", _I),
        "refund",
    ),
    Aspect(
        "compliance",
        re.compile(
            r"\b(compliance|compliant|gdpr|soc ?2|hipaa|iso ?27001|certified|dsgvo)\b|合规|コンプライアンス", _I
        ),
        re.compile(
            r"\b(compliance|compliant|gdpr|soc ?2|hipaa|iso ?27001|certif\w*|dsgvo)\b|合规|コンプライアンス", _I
        ),
        "compliance GDPR SOC 2",
    ),
    Aspect(
        "retention",
        re.compile(r"\b(retention|retain|kept|keep|stored|deleted|aufbewahrung)\b|保留|保存|保持", _I),
        re.compile(r"\b(retention|retain\w*|kept|deleted|purged|aufbewahr\w*)\b|保留|保存|保持", _I),
        "retention kept deleted",
    ),
    Aspect(
        "trial",
        re.compile(r"\b(trial|try it|free period|testphase)\b|试用|トライアル|試用", _I),
        re.compile(r"\b(trial|testphase)\b|试用|トライアル|試用", _I),
        "free trial",
    ),
    Aspect(
        "integration",
        re.compile(r"\b(integration|integrations|integrate|connect to|works with|slack|zapier)\b|集成|連携", _I),
        re.compile(r"\b(integration\w*|integrate\w*|connect\w*)\b|集成|連携", _I),
        "integrations",
    ),
)
_WORD = re.compile(r"[^\W\d_][\w'-]*")
# Passages a second pass may put in place of the last ones found.
MOST_ADDED = 2
# Words a question has around its subject: never a subject themselves. The follow-up rule's
# list, so a rewritten follow-up's "(about ...)" is not read as a subject the passages lack.
_COMMON = STOP_WORDS | frozenset("much long many per month year day".split())


@dataclass(frozen=True)
class Missing:
    """What the passages found lack: subject words, and aspects (by name)."""

    subject: tuple[str, ...] = ()
    aspects: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.subject or self.aspects)

    def described(self) -> str:
        """What the second pass looked for, in words.

        >>> Missing(("starter",), ("price",)).described()
        'the subject starter; a price'
        """
        parts = [f"the subject {' '.join(self.subject)}"] if self.subject else []
        parts += [f"a {aspect}" for aspect in self.aspects]
        return "; ".join(parts)


def title_words(titles: Iterable[str]) -> frozenset[str]:
    """The corpus's own vocabulary: the lower-cased words of its documents' titles, common words aside.

    >>> sorted(title_words(["Starter plan", "Pricing", "How to reach support"]))
    ['plan', 'pricing', 'reach', 'starter', 'support']
    """
    return frozenset(
        w for t in titles for w in (m.lower() for m in _WORD.findall(t)) if w not in _COMMON and len(w) > 2
    )


def missing(question: str, passages: Sequence[str], vocabulary: frozenset[str]) -> Missing:
    """What the question asks for that none of ``passages`` (their text and headers) shows.

    >>> found = ["Starter plan: 5 notebooks, sync on three devices.", "Usage: create a notebook."]
    >>> missing("How much does the Starter plan cost per month?", found, frozenset({"starter", "pricing"}))
    Missing(subject=(), aspects=('price',))
    >>> missing("How much does the Team plan cost?", found, frozenset({"team", "starter"}))
    Missing(subject=('team',), aspects=('price',))
    >>> missing("How much is Starter?", ["Starter: €8 per month"], frozenset({"starter"}))
    Missing(subject=(), aspects=())
    """
    text = "\n".join(passages)
    present = {w.lower() for w in _WORD.findall(text)}
    asked = [w for w in _WORD.findall(question) if w.lower() not in _COMMON and len(w) > 2]
    subject = tuple(
        dict.fromkeys(
            w.lower()
            for w in asked
            if (w.lower() in vocabulary or (w[:1].isupper() and w != asked[0])) and w.lower() not in present
        )
    )
    aspects = tuple(a.name for a in ASPECTS if a.asks.search(question) and not a.holds.search(text))
    return Missing(subject, aspects)


def follow_up_query(question: str, lacking: Missing) -> str:
    """The one more search to run: the question's subject words with the missing aspects' terms.

    >>> follow_up_query("How much does the Starter plan cost per month?", Missing((), ("price",)))
    'Starter plan price per month EUR USD'
    >>> follow_up_query("How much does a refund cost?", Missing((), ("price",)))
    'refund price per month EUR USD'
    """
    subject = [w for w in _WORD.findall(question) if w.lower() not in _COMMON and len(w) > 2]
    asking = {
        word.lower() for aspect in ASPECTS if aspect.name in lacking.aspects for word in _WORD.findall(aspect.terms)
    }
    # The words that ask for a missing aspect give way to its terms; any other word is the subject ("refund").
    lacked = [a for a in ASPECTS if a.name in lacking.aspects]
    kept = [w for w in subject if not any(a.asks.fullmatch(w) for a in lacked) and w.lower() not in asking]
    terms = [aspect.terms for aspect in ASPECTS if aspect.name in lacking.aspects]
    return " ".join(dict.fromkeys([*kept, *lacking.subject, *terms]))


def fixes(question: str, passage: str, lacking: Missing, vocabulary: frozenset[str]) -> bool:
    """Whether ``passage`` shows some of what the first passages lacked.

    >>> lacking = Missing((), ("price",))
    >>> fixes("How much is Starter?", "Starter: €8 a month", lacking, frozenset()), fixes("How much is Starter?", "Starter syncs", lacking, frozenset())
    (True, False)
    """
    left = missing(question, [passage], vocabulary)
    fixed_subject = bool(lacking.subject) and len(set(left.subject) & set(lacking.subject)) < len(lacking.subject)
    return fixed_subject or len(set(left.aspects) & set(lacking.aspects)) < len(lacking.aspects)
