"""E-mail addresses and phone numbers masked where they are not the point.

A company's documents are full of its staff's addresses and numbers: in a signature, a
"contact Maria at ...", an escalation list. An agent answering "how do refunds work?" needs
none of them, and a corpus that never stored them cannot leak them. With masking on, each is
replaced before anything is stored or indexed (the stored text, the keyword channels, the
vectors), so no search can find it and no answer can quote it.

Phone numbers are found by ``phonenumbers`` (Google's libphonenumber, maintained): numbers in
international format (``+49 30 23125 100``) always; national formats (``(415) 555-0132``) only
with a region (``US``, ``DE``), because "030 2312" is a number only where its country says so.
E-mail addresses are a pattern: a local part, ``@``, a domain with a dot.
"""

from __future__ import annotations

import re
from collections import Counter

import phonenumbers

EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
EMAIL_MASK = "[e-mail]"
PHONE_MASK = "[phone]"


def mask(text: str, region: str | None = None, counts: Counter | None = None) -> str:
    """``text`` with its e-mail addresses and phone numbers replaced; ``counts`` (if given) counts them.

    >>> mask("Write to maria.lopez@acme.example or call +49 30 23125 100.")
    'Write to [e-mail] or call [phone].'
    >>> mask("Call (415) 555-0132 by 2024-11-03; version 3.12.1.", "US")
    'Call [phone] by 2024-11-03; version 3.12.1.'
    >>> mask("Call (415) 555-0132.")  # a national number, and no region to read it in
    'Call (415) 555-0132.'
    """
    counts = Counter() if counts is None else counts
    text, emails = EMAIL.subn(EMAIL_MASK, text)
    counts["e-mail addresses"] += emails
    found = list(phonenumbers.PhoneNumberMatcher(text, region.upper() if region else None))
    for match in reversed(found):  # from the end, so the offsets of the earlier ones still hold
        text = text[: match.start] + PHONE_MASK + text[match.end :]
    counts["phone numbers"] += len(found)
    return text
