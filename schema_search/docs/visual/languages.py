"""The Tesseract language a page or a figure is read in.

Tesseract reads best in the page's own language, and a model per language costs time
(two combined take about 1.3 times one), so one is chosen, never all of them:

- a page with a text layer: the language of that text (:mod:`..language`, py3langid);
- a page without one (a scan): Tesseract's script detection (``--psm 0``, which also
  says how the page is turned) names the script (Latin, Han, Japanese, ...) and so the
  candidates among ``languages``; the page is read in the document's language so far (its
  text layer's, or its first scanned page's) when that is a candidate, else in the first
  candidate, and when the text read then reads as another candidate (German), read again
  in that one, keeping the reading Tesseract is surer of (:func:`~.ocr.transcribe_page`);
- a figure: its page's language, with English beside it, since diagram labels are often
  English in documents written in any language.

Script detection rather than a first pass in every language: it is one fast pass on a
small model (0.3 s a page here), and it is what tells Chinese from Japanese from Latin
text, which a language guess on garbage from the wrong model cannot. Only a page in
another language than the one tried first is read twice.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..language import document_language

# ISO 639-1 codes (py3langid, documents' headers) and Tesseract's names for the same languages.
TESSERACT = {
    "en": "eng", "de": "deu", "fr": "fra", "es": "spa", "it": "ita", "pt": "por", "nl": "nld",
    "sv": "swe", "da": "dan", "nb": "nor", "no": "nor", "fi": "fin", "pl": "pol", "cs": "ces",
    "hu": "hun", "ro": "ron", "tr": "tur", "vi": "vie", "id": "ind", "ru": "rus", "uk": "ukr",
    "bg": "bul", "el": "ell", "ar": "ara", "fa": "fas", "he": "heb", "hi": "hin", "th": "tha",
    "zh": "chi_sim", "ja": "jpn", "ko": "kor",
}  # fmt: skip
# Scripts Tesseract's detection names, and the languages written in them; any other is Latin.
SCRIPTS = {
    "Han": ("chi_sim", "chi_tra", "jpn"),
    "Japanese": ("jpn",),
    "Katakana": ("jpn",),
    "Hiragana": ("jpn",),
    "Hangul": ("kor",),
    "Korean": ("kor",),
    "Cyrillic": ("rus", "ukr", "bul", "srp"),
    "Greek": ("ell",),
    "Arabic": ("ara", "fas", "urd"),
    "Hebrew": ("heb",),
    "Devanagari": ("hin", "mar", "nep"),
    "Thai": ("tha",),
}
_NOT_LATIN = {language for languages in SCRIPTS.values() for language in languages}


def text_language(text: str, languages: Sequence[str]) -> str | None:
    """The Tesseract language of ``languages`` that ``text`` is written in, ``None`` when it is
    too short to tell or in none of them.

    >>> text_language("Die Rechnungen werden jede Nacht geprüft und abgeglichen.", ("eng", "deu"))
    'deu'
    >>> text_language("Seite 3", ("eng", "deu")) is None
    True
    """
    code = document_language({}, text)
    found = TESSERACT.get(code or "")
    return found if found in languages else None


def script_languages(script: str | None, languages: Sequence[str]) -> list[str]:
    """The languages of ``languages`` written in ``script`` (Tesseract's name for it), in their
    order; ``languages`` itself when none is or the script is unknown.

    >>> script_languages("Han", ("eng", "deu", "chi_sim", "jpn"))
    ['chi_sim', 'jpn']
    >>> script_languages("Latin", ("eng", "deu", "chi_sim", "jpn"))
    ['eng', 'deu']
    >>> script_languages("Cyrillic", ("eng", "deu"))
    ['eng', 'deu']
    """
    if script in SCRIPTS:
        found = [language for language in languages if language in SCRIPTS[script]]
    else:
        found = [language for language in languages if language not in _NOT_LATIN]
    return found or list(languages)


def for_figure(page_language: str | None, languages: Sequence[str]) -> str:
    """What a figure's labels are read in: its page's language and English, else the first of ``languages``.

    >>> for_figure("deu", ("eng", "deu")), for_figure("eng", ("eng", "deu")), for_figure(None, ("deu", "eng"))
    ('deu+eng', 'eng', 'deu')
    """
    if page_language is None:
        return languages[0]
    if page_language != "eng" and "eng" in languages:
        return f"{page_language}+eng"
    return page_language
