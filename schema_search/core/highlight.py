"""Which words of an item a page should mark for a question: those whose index terms the question has. Pure.

The ranking matches analysed terms (``contact`` for "contacts", ``compani`` for
"companies"), which a reader cannot find in the text; a page marks the words
themselves. Words come lower-cased (``analyzer.words``): mark them case-insensitively.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from . import analyzer

_ANALYZER = analyzer.build_analyzer()


def words_by_term(text: str) -> dict[str, tuple[str, ...]]:
    """Each index term of ``text`` with the distinct words that give it.

    >>> words_by_term("Contacts and contact_lists")["contact"]
    ('contacts', 'contact')
    """
    found: dict[str, dict[str, None]] = {}
    for word in dict.fromkeys(analyzer.words(text)):
        for term in _ANALYZER.analyze(word):
            found.setdefault(term, {})[word] = None
    return {term: tuple(words) for term, words in found.items()}


def matching_words(vocabulary: Mapping[str, tuple[str, ...]], terms: Collection[str]) -> list[str]:
    """The words of a ``words_by_term`` vocabulary that give any of ``terms``, each once.

    >>> matching_words(words_by_term("Refunds over 500 EUR need a manager"), ["refund", "manag"])
    ['refunds', 'manager']
    """
    return list(dict.fromkeys(word for term in terms for word in vocabulary.get(term, ())))
