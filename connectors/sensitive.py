"""Which columns must never lend their values as hints: secrets and personal data.

Decided twice, and either is enough to leave a column out: by its name before any
row is read (so a password column is never even selected), and by the values a
sample brought back (a ``notes`` column full of e-mail addresses, a ``ref`` column of
API tokens). One such value disqualifies the whole column: what else it holds is of
the same kind, only not caught.

Two kinds of data, and only one can be let in. ``CONTACT`` (e-mail addresses, phone
numbers) is personal data an operator may want searchable and may opt in to;
everything else here (passwords, hashes, tokens and keys, government and tax ids,
card and bank numbers, IP addresses, dates of birth, street addresses) never is.
"""

from __future__ import annotations

import re

from ..core.analyzer import split_identifier

CONTACT = "contact"
NEVER = "never"

# Pieces that mark a column even inside a solid name (``userpassword``, ``contactemail``).
_NEVER_INSIDE = ("password", "passwd", "passphrase", "secret", "token", "apikey", "credential", "birth")
_CONTACT_INSIDE = ("email", "phone")

# Whole words (an identifier's parts), and phrases of consecutive words, first kind first:
# ``email_hash`` is a hash, ``email_address`` an e-mail address, not a street address.
_RULES: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = (
    (
        NEVER,
        tuple(
            (w,)
            for w in (
                "pwd",
                "pass",
                "hash",
                "hashed",
                "salt",
                "digest",
                "nonce",
                "otp",
                "pin",
                "cvv",
                "cvc",
                "jwt",
                "bearer",
                # "ssn" only as a word: inside a solid name it is "bu-ssn-ess_name" or "cla-ss-n-ame".
                "ssn",
                "cookie",
                "signature",
                "auth",
                "oauth",
            )
        )
        + (
            ("api", "key"),
            ("access", "key"),
            ("private", "key"),
            ("secret", "key"),
            ("signing", "key"),
            ("encryption", "key"),
            ("license", "key"),
            ("refresh", "key"),
            ("session", "id"),
            ("session", "key"),
        ),
    ),
    (CONTACT, tuple((w,) for w in ("mail", "mobile", "cell", "fax", "tel", "telephone", "msisdn", "whatsapp"))),
    (
        NEVER,
        tuple(
            (w,)
            for w in (
                # government and tax ids
                "sin",
                "nino",
                "taxid",
                "tin",
                "passport",
                "npi",
                # cards and bank accounts
                "iban",
                "ccnum",
                "pan",
                "cardnumber",
                # network addresses
                "ip",
                "ipv4",
                "ipv6",
                "ipaddr",
                "ipaddress",
                # dates of birth
                "dob",
                "birthday",
                "birthdate",
                # street addresses
                "address",
                "addr",
                "street",
                "postcode",
                "zip",
                "zipcode",
                "apartment",
                "apt",
            )
        )
        + (
            ("social", "security"),
            ("tax", "id"),
            ("tax", "number"),
            ("tax", "no"),
            ("tax", "code"),
            ("vat", "id"),
            ("vat", "number"),
            ("vat", "no"),
            ("national", "id"),
            ("id", "number"),
            ("driver", "license"),
            ("drivers", "license"),
            ("driving", "licence"),
            ("license", "number"),
            ("licence", "number"),
            ("card", "number"),
            ("card", "no"),
            ("cc", "number"),
            ("credit", "card"),
            ("account", "number"),
            ("account", "no"),
            ("bank", "account"),
            ("routing", "number"),
            ("sort", "code"),
            ("remote", "addr"),
            ("mac", "address"),
            ("postal", "code"),
            ("house", "number"),
            ("line", "1"),
            ("line", "2"),
        ),
    ),
)


def column_kind(name: str) -> str | None:
    """What a column's name says it holds: ``NEVER``, ``CONTACT``, or ``None`` (nothing sensitive).

    >>> [column_kind(n) for n in ("password_hash", "userPassword", "api_key", "AccessToken")]
    ['never', 'never', 'never', 'never']
    >>> [column_kind(n) for n in ("email", "ContactEmail", "email_address", "mobile_no", "fax")]
    ['contact', 'contact', 'contact', 'contact', 'contact']
    >>> [column_kind(n) for n in ("email_hash", "ssn", "ip_address", "date_of_birth", "street", "card_number")]
    ['never', 'never', 'never', 'never', 'never', 'never']
    >>> [column_kind(n) for n in ("name", "status", "country_code", "priority", "city", "category")]
    [None, None, None, None, None, None]
    >>> [column_kind(n) for n in ("business_name", "class_name", "access_number", "member_ssn", "SSN")]
    [None, None, None, 'never', 'never']
    """
    words = split_identifier(name)
    solid = "".join(words)
    if any(piece in solid for piece in _NEVER_INSIDE):
        return NEVER
    for kind, phrases in _RULES:
        if kind == CONTACT and any(piece in solid for piece in _CONTACT_INSIDE):
            return CONTACT
        if any(_has_phrase(words, phrase) for phrase in phrases):
            return kind
    return None


def _has_phrase(words: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(words[i : i + n]) == phrase for i in range(len(words) - n + 1))


_HASH_PREFIX = re.compile(
    r"^(\$(2[abxy]?|argon2(id|i|d)?|[156]|scrypt|pbkdf2[\w-]*)\$|(pbkdf2|bcrypt|scrypt|sha\d+|md5)[_$])", re.I
)
_KEY_PREFIX = re.compile(r"^(sk-|(sk|pk|rk)_(live|test)_|gh[pousr]_|github_pat_|xox[abprs]-|AKIA[0-9A-Z]{12}|AIza|eyJ)")
_HEX = re.compile(r"^(0x)?[0-9a-f]{16,}$", re.I)
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_BASE64 = re.compile(r"^[A-Za-z0-9+/_-]{24,}={0,2}$")
# Lower-case (or upper-case) letters and digits, 20 or more, without a break, with at
# least 3 digits among them: base-36 codes ("k3j9x0q2m8v7b1n4z6c5"), not words or SKUs.
_TOKEN = re.compile(r"^(?=(?:.*\d){3})(?=.*[a-z])[a-z0-9]{20,}$", re.I)
_IBAN = re.compile(r"^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$")
_SSN = re.compile(r"^\d{3}-\d{2}-\d{4}$")
_IPV4 = re.compile(r"^\d{1,3}(\.\d{1,3}){3}(/\d{1,2})?$")
_IPV6 = re.compile(r"^(?=.*::|(.*:){4})[0-9a-f:]{2,39}(/\d{1,3})?$", re.I)
_DATE = re.compile(r"^(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})\b")
# Bounded as addresses are (64 characters before the @, 253 after): unbounded, a search tried
# from every character scanned to the end of the value, and a 60 KB value held a worker 27.7 s.
_EMAIL = re.compile(r"[^\s@<>()]{1,64}@[^\s@<>()]{1,253}\.[a-z]{2,63}", re.I)
_DIGIT_RUN = re.compile(r"\+?\d[\d ().-]{5,}\d")


def value_kind(value: str) -> str | None:
    """What a stored value looks like: ``NEVER`` (a secret or private datum), ``CONTACT``, or ``None``.

    >>> [value_kind(v) for v in ("$2b$12$abcdefghijklmnopqrstuv", "5f4dcc3b5aa765d61d8327deb882cf99", "eyJhbGciOi.x.y")]
    ['never', 'never', 'never']
    >>> [value_kind(v) for v in ("4111 1111 1111 1111", "NL91ABNA0417164300", "078-05-1120", "10.0.0.1", "1990-04-01")]
    ['never', 'never', 'never', 'never', 'never']
    >>> [value_kind(v) for v in ("ann@example.com", "Ann <ann@example.com>", "+31 20 555 0100", "(555) 123-4567")]
    ['contact', 'contact', 'contact', 'contact']
    >>> [value_kind(v) for v in ("xmagnet", "urgent", "New York", "P-100", "Q1 2024", "10:30:00", "v1.2.3")]
    [None, None, None, None, None, None, None]
    >>> value_kind("k3j9x0q2m8v7b1n4z6c5"), value_kind("internationalization"), value_kind("SKU-2024-ABC")
    ('never', None, None)
    """
    text = value.strip()
    compact = re.sub(r"[\s-]", "", text)
    if _HASH_PREFIX.match(text) or _KEY_PREFIX.match(text) or _UUID.match(text) or _HEX.match(compact):
        return NEVER
    if _BASE64.match(text) and _mixed(text):
        return NEVER
    if _TOKEN.match(text):
        return NEVER  # a reset or invite code: 20+ letters and digits run together, no word
    if compact.isdigit() and 13 <= len(compact) <= 19 and _luhn(compact):
        return NEVER  # a payment card number
    if _IBAN.match(compact.upper()) or _SSN.match(text) or _IPV4.match(text) or _IPV6.match(text) or _DATE.match(text):
        return NEVER
    if "@" in text and _EMAIL.search(text):
        return CONTACT
    if any(sum(c.isdigit() for c in run) >= 7 for run in _DIGIT_RUN.findall(text)):
        return CONTACT  # a phone number (or a number as long as one, which is no hint either)
    return None


def _mixed(text: str) -> bool:
    """Upper and lower case letters and digits together: how random tokens look, and words do not."""
    return any(c.isdigit() for c in text) and any(c.islower() for c in text) and any(c.isupper() for c in text)


def _luhn(digits: str) -> bool:
    """The check digit of payment card numbers.

    >>> _luhn("4111111111111111"), _luhn("4111111111111112")
    (True, False)
    """
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0
