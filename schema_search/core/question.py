"""The words of a question that say what it is about, not how it is asked.

"How do I bake sourdough bread?" shares ``how`` and ``do`` with any catalog whose
comments say "how" something is done, so BM25 matched nine CRM tables on them and the
relevance floor, which trusts a keyword match, kept them: the question was never
called off topic. Interrogatives (``what``, ``which``, ``how``), the pronouns and
auxiliaries that come with them (``do I``, ``can you``, ``me``) and request verbs
(``show me``, ``list``, ``give``) are how English asks, in any domain; they go before
the keyword channels see the question, so they neither match nor count as evidence.

Request verbs go only where they request: at the start of the question, or after
``please``/``you``, and only as a word of their own. "List the contact lists" keeps
the second ``lists``, "tv shows" keeps ``shows``, "returns and list memberships" keeps
both, and ``list_price`` is a name, not a request. A word written in capitals is a
code, not a pronoun: "orders from the US" keeps ``us``, "WHO guidelines" keeps
``who``. The dense model still reads the whole sentence: it was trained on questions
and is not fooled by ``how``.

CJK bigrams pass through untouched.
"""

from __future__ import annotations

from . import analyzer

# Asked anywhere, they never name data.
INTERROGATIVES = frozenset("what which who whom whose when where why how".split())
# Who is asking and the auxiliaries of a question: "how do I", "can you", "show me".
PRONOUNS_AND_AUXILIARIES = frozenset("i me my we us our you your do does did can could would should please".split())
# Verbs that ask for a result, when they open the request.
REQUEST_VERBS = frozenset("show list give tell find get display return fetch retrieve provide".split())
# "how many", "how much": the quantity words only after "how".
_AFTER_HOW = frozenset("many much".split())
# After these, the next word opens a request: "please list", "can you give".
_OPENERS = frozenset("please you".split())


def content_words(text: str) -> list[str]:
    """``analyzer.words(text)`` without the words that only ask.

    >>> content_words("How do I bake sourdough bread?")
    ['bake', 'sourdough', 'bread']
    >>> content_words("List the contact lists, and show me their owners")
    ['the', 'contact', 'lists', 'and', 'show', 'their', 'owners']
    >>> content_words("Which tv shows aired in 2019?")
    ['tv', 'shows', 'aired', 'in', '2019']
    >>> content_words("How many singers do we have?")
    ['singers', 'have']
    >>> content_words("list_price of orders from the US")
    ['list', 'price', 'of', 'orders', 'from', 'the', 'us']
    >>> content_words("如何使用BackgroundTasks")
    ['如何', '何使', '使用', 'background', 'tasks']
    """
    kept: list[str] = []
    previous = None  # the word before, kept or not
    position = 0
    for token, words in analyzer.tokens(text):
        letters = "".join(ch for ch in token if ch.isalpha())
        code = len(letters) > 1 and letters.isupper()  # "US", "CAN", "WHO": written as codes
        for word in words:
            dropped = not code and (
                word in INTERROGATIVES
                or word in PRONOUNS_AND_AUXILIARIES
                or (word in _AFTER_HOW and previous == "how")
                or (word in REQUEST_VERBS and len(words) == 1 and (position == 0 or previous in _OPENERS))
            )
            if not dropped:
                kept.append(word)
            previous = word
            position += 1
    return kept


def question_terms(text: str) -> list[str]:
    """The index terms of the question's content words, each once, in order: what BM25 sees."""
    return list(dict.fromkeys(_ANALYZER.analyze(" ".join(content_words(text)))))


_ANALYZER = analyzer.build_analyzer()
