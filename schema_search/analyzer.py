"""Words out of identifiers and questions, and the tantivy analyzer that indexes them.

tantivy's regex tokenizer has no lookahead, so it cannot split ``HTTPServerLog`` at
its case changes. We split in Python, on both sides (documents and questions), and
hand tantivy plain space-separated words; its analyzer then only lower-cases and
stems, so ``singers`` in a question meets ``singer`` in a table name.
"""

from __future__ import annotations

import re

import tantivy

ANALYZER = "schema_words"

# Case changes: "HTTPServer" -> "HTTP Server", "contactList" -> "contact List",
# "v2Users" -> "v2 Users". Digits stay glued to the letters before them ("v2", "k12")
# because that is how people write such codes in questions too.
_ACRONYM_BOUNDARY = re.compile(r"([A-Z]+)([A-Z][a-z])")
_CAMEL_BOUNDARY = re.compile(r"([a-z0-9])([A-Z])")
_WORD = re.compile(r"[^\W_]+")


def split_identifier(identifier: str) -> list[str]:
    """Split an identifier into lower-case words.

    >>> split_identifier("contact_list")
    ['contact', 'list']
    >>> split_identifier("ContactList")
    ['contact', 'list']
    >>> split_identifier("HTTPServerLog")
    ['http', 'server', 'log']
    >>> split_identifier("Free Meal Count (K-12)")
    ['free', 'meal', 'count', 'k', '12']
    """
    spaced = _CAMEL_BOUNDARY.sub(r"\1 \2", _ACRONYM_BOUNDARY.sub(r"\1 \2", identifier))
    return [w.lower() for w in _WORD.findall(spaced)]


def words(text: str) -> list[str]:
    """Words of free text, splitting any identifiers written in it.

    >>> words("Which contact_lists hold VIP contacts?")
    ['which', 'contact', 'lists', 'hold', 'vip', 'contacts']
    """
    return [w for token in text.split() for w in split_identifier(token)]


def identifier_text(identifier: str) -> str:
    """An identifier as its words, plus the joined form when it splits.

    Keeping ``contactlist`` next to ``contact list`` lets a question that writes the
    name solid (``contactlist``) or verbatim (``contact_list`` -> ``contact list``)
    match either way.

    >>> identifier_text("contact_list")
    'contact list contactlist'
    >>> identifier_text("singer")
    'singer'
    """
    parts = split_identifier(identifier)
    if len(parts) > 1:
        parts.append("".join(parts))
    return " ".join(parts)


def build_analyzer() -> tantivy.TextAnalyzer:
    """Lower-case, drop English stop words, stem, over whitespace-separated words.

    Stop words go so that ``the``/``of`` in a question cannot make every commented
    table "match" and pad a channel's ranking with noise.
    """
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.stopword("english"))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def register(index: tantivy.Index) -> None:
    """Register our analyzer on an index; tantivy does not persist custom tokenizers."""
    index.register_tokenizer(ANALYZER, build_analyzer())
