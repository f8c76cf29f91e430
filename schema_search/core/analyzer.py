"""Words out of identifiers, questions and prose, and the tantivy analyzer that indexes them.

tantivy's regex tokenizer has no lookahead, so it cannot split ``HTTPServerLog`` at
its case changes. We split in Python, on both sides (documents and questions), and
hand tantivy plain space-separated words; its analyzer then only lower-cases and
stems, so ``singers`` in a question meets ``singer`` in a table name.

Chinese and Japanese put no spaces between words, so a run of Han, kana or Hangul
would be one huge "word" that no question ever matches. Such runs become overlapping
character bigrams instead (``后台任务`` -> ``后台 台任 任务``), the standard CJK
tokenization for BM25: it needs no dictionary and matches any word of two or more
characters. Text without CJK characters is split exactly as before.
"""

from __future__ import annotations

import re
from functools import lru_cache

import tantivy

ANALYZER = "schema_words"

# Case changes: "HTTPServer" -> "HTTP Server", "contactList" -> "contact List",
# "v2Users" -> "v2 Users". Digits stay glued to the letters before them ("v2", "k12")
# because that is how people write such codes in questions too.
# Both boundaries are empty matches between two characters, decided by one character
# either side, so a split is linear in the identifier's length. The older spelling,
# ``([A-Z]+)([A-Z][a-z])``, backtracked over every run of capitals: a 40 KB DDL upload
# of capitals held a worker for 107 s.
_BOUNDARY = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])|(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[^\W_]+")
# Han (with extensions and compatibility forms), Hiragana, Katakana (with half-width
# forms and phonetic extensions), Hangul syllables.
_CJK_RUN = re.compile("[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af]+")


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
    return list(_split(identifier))


# Identifiers longer than this are split each time, not cached: real names are short, and a
# cache of 65,536 megabyte-long "identifiers" from hostile uploads would hold gigabytes.
_CACHED_CHARS = 256


def _split(identifier: str) -> tuple[str, ...]:
    if len(identifier) > _CACHED_CHARS:
        return _split_words(identifier)
    return _cached_split(identifier)


def _split_words(identifier: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _WORD.findall(_BOUNDARY.sub(" ", identifier)))


# Column names repeat across a catalog's tables (id, created_at, customer_id): splitting
# each distinct one once took a 10,000-table build's document pass from 2.1 s to 0.6 s.
_cached_split = lru_cache(maxsize=1 << 16)(_split_words)


def words(text: str) -> list[str]:
    """Words of free text, splitting any identifiers written in it; CJK runs as bigrams.

    >>> words("Which contact_lists hold VIP contacts?")
    ['which', 'contact', 'lists', 'hold', 'vip', 'contacts']
    >>> words("使用BackgroundTasks发送邮件")
    ['使用', 'background', 'tasks', '发送', '送邮', '邮件']
    """
    return [word for _, parts in tokens(text) for word in parts]


def tokens(text: str) -> list[tuple[str, list[str]]]:
    """Each whitespace-separated token of ``text`` as written, with the words it gives.

    >>> tokens("List list_price, US 后台")
    [('List', ['list']), ('list_price,', ['list', 'price']), ('US', ['us']), ('后台', ['后台'])]
    """
    if _CJK_RUN.search(text):
        text = _CJK_RUN.sub(lambda run: f" {run.group()} ", text)
    return [(token, bigrams(token) if _CJK_RUN.fullmatch(token) else split_identifier(token)) for token in text.split()]


def bigrams(run: str) -> list[str]:
    """Overlapping character pairs of a CJK run; a single character stays as it is.

    >>> bigrams("任务"), bigrams("后台任务"), bigrams("字")
    (['任务'], ['后台', '台任', '任务'], ['字'])
    """
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def cjk_share(text: str) -> float:
    """Share of the non-space characters of ``text`` that are Han, kana or Hangul.

    >>> cjk_share("abcd"), cjk_share("后台任务"), cjk_share("用 Depends")
    (0.0, 1.0, 0.125)
    """
    letters = sum(not ch.isspace() for ch in text)
    if not letters:
        return 0.0
    return sum(len(run) for run in _CJK_RUN.findall(text)) / letters


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
