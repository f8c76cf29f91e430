"""A document's language: as its header declares it, else as its text reads.

Detection is py3langid's (a maintained port of langid.py: 97 languages, its model in the
wheel, ~0.2 ms per document after a 0.5 s first load); a declared ``lang`` wins, since a
page of code samples with one line of prose is detected badly and its author knows better.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

# Header keys that declare a language: front matter (`lang`, `language`, `locale`), <meta>.
DECLARING = ("lang", "language", "locale", "content-language")
# Fewer letters than this and detection is a guess: NULL is the honest answer.
MIN_LETTERS = 20
_CODE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]+)*$")


def document_language(fields: Mapping[str, Sequence[str]], text: str) -> str | None:
    """The ISO 639 code of a document's language, or ``None`` when it has too little text to tell.

    >>> document_language({"lang": ["pt-BR"]}, "")
    'pt'
    >>> document_language({}, "How do I declare a request body with Pydantic models?")
    'en'
    >>> document_language({}, "このページではデータベースに接続する方法を説明します。"), document_language({}, "42")
    ('ja', None)
    """
    declared = declared_language(fields)
    if declared:
        return declared
    if sum(character.isalpha() for character in text) < MIN_LETTERS:
        return None
    import py3langid  # 0.5 s to load its model: only when a corpus is indexed

    return py3langid.classify(text)[0]


def declared_language(fields: Mapping[str, Sequence[str]]) -> str | None:
    """The primary language subtag a header declares (``en-US`` -> ``en``), if it declares one.

    >>> declared_language({"Language": ["zh_CN"]}), declared_language({"lang": ["not a code"]})
    ('zh', None)
    """
    for key, values in fields.items():
        if key.lower() in DECLARING and values and _CODE.match(values[0].strip()):
            return re.split(r"[-_]", values[0].strip())[0].lower()
    return None
