"""The other spellings of a text a secret may hide in on its way out: for
:func:`shell.core.secrets.secret_going_out` (the one secrets policy), which looks
for a secret in each of them.

Kept apart from the policy only for size: nothing else should import from here. A
prompt-injected model that has read a key and may send text out (a URL, an MCP
tool's arguments) hides the key from a plain search by encoding it: percent-encoding,
base64 (wrapped at any width), base32, hex (``73 6b 2d``, ``\\x73\\x6b``, ``0x73``),
UTF-16 (with or without a byte-order mark, either byte order, then percent- or
base64-encoded), zero-width characters or soft hyphens between its letters, the
text reversed, or a number: its bytes as one decimal integer, or its letters' character
codes (``103,104,112,…``); and :mod:`.secretescapes`' one more step (HTML references,
string escapes, quoted-printable, bits, base85, look-alike letters) and
:mod:`.secretalphabets`' (base58, base36, base32hex, Crockford's base32, octal bytes,
uuencode, a run with its halves swapped). Each reading costs
a pass over the text, so the policy caps the text's length first and calls a text over
the cap unchecked, not clean.

What is still not read, and README says so: an encoding twice over, compression,
encryption, a key spelled with spaces between all its letters (one separator class
inside a key with a known prefix is read: :mod:`.secretseparators`). (A key split over several arguments is
:mod:`shell.permissions.egresspieces`'s: it puts the pieces back together.)
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
import urllib.parse
from collections.abc import Callable, Iterator, Sequence

from shell.core.secretalphabets import (
    base32_bytes,
    base32_letters,
    halves_swapped,
    numbers,
    octal_bytes,
    uudecoded,
)
from shell.core.secretescapes import base85s, bits, unconfused, unescaped, whole_floats
from shell.core.secretseparators import between_its_letters, without_a_separator
from shell.core.textsafety import without_hidden

HALVES_SWAPPED = "with its halves swapped"
"""The reading of runs written twice over: only known values are looked for in it."""
MIN_DECODED = 8
"""Decoded text shorter than this (stripped) is no secret (the policy's MIN_SECRET_LEN)."""

_ENCODED = re.compile(r"[A-Za-z0-9+_-]{12,}={0,6}")
_ENCODED_WITH_SLASHES = re.compile(r"[A-Za-z0-9+/_-]{12,}={0,6}")  # base64's own "/", first too
_WRAPPED = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]++(?:[ \t]*+\r?\n[ \t]*+[A-Za-z0-9+/_-]++)++")
"""Lines of base64 letters, indented or not: ``base64 -w 20``, a mail's 76 columns. (Not
any white space: prose would be one run of 64 KB, decoded four ways, for nothing.) Tried
only where a run of letters starts, never backtracking: a run of 64 KB of letters
without a line break took a minute (each of its letters a start, each read to its end)."""
_BLANKS = re.compile(r"\s+")
_HEX_RUN = re.compile(r"(?i)(?<![0-9a-f])(?:(?:\\x|0x)?[0-9a-f]{2}[\s:,.-]{0,2}){8,}[0-9a-f]?")
"""Hex however it is written between its pairs: ``736b2d70``, ``73 6b 2d``, ``73:6b``,
``\\x73\\x6b``, ``0x73,0x6b``; and a last lone digit, which read from the second
digit is a byte (``1`` glued before a key's hex: finding A8's twin)."""
_NOT_HEX = re.compile(r"(?i)\\x|0x|[^0-9a-f]")
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\U00010000-\U0010ffff]+")
"""Outside printable ASCII and U+00A0-U+FFFF, spelled as what lies outside: the same set,
but its negated form made ``re`` build a map of 65,536 code points (2-10 ms at every start)."""
_PERCENT_UTF16 = re.compile(r"(?i)%00|%ff%fe|%fe%ff")
_UTF16_RUN = re.compile(rb"(?:[\x01-\xff]\x00){8}|(?:\x00[\x01-\xff]){8}")
"""Eight letters of UTF-16 (Latin-1's, either byte order): only then are decoded bytes
read as UTF-16 too; binary noise holds zero bytes everywhere, and reading each of
thousands of tokens four more ways tripled the cost of 64 KB of base64."""
_DECIMAL_RUN = re.compile(r"(?<![0-9])[0-9]{19,}")
"""A number of 19 digits or more: eight bytes or more (a key's bytes as one integer)."""
_CODES_RUN = re.compile(r"(?<![0-9])(?:[0-9]{1,7}[ \t\r\n,;:|]{1,3}){7,}[0-9]{1,7}")
"""Eight numbers or more, each a character code (``103,104,112``, ``103 104 112``)."""
_CODE = re.compile(r"[0-9]+")
_DIGITS_AT_ONCE = 4000
"""Digits turned into an integer at a time: Python refuses more than 4,300 at once."""


def percent_decoded(text: str) -> str:
    """``text`` percent-decoded (``+`` a space), or ``text`` when it has nothing to decode."""
    return urllib.parse.unquote_plus(text) if "%" in text or "+" in text else text


def readings(text: str, plain: str) -> Iterator[tuple[str, str]]:
    """The other spellings of ``text`` (``plain``: :func:`percent_decoded`) to look for
    a secret in, cheapest first, each with how it was hidden (``base64-encoded``).
    Neither ``text`` nor ``plain`` is among them: the caller looks there first, and
    caps the length of ``plain`` before asking for these. The runs of letters to
    decode are read with invisible characters taken out too (base64 with U+200B in it)."""
    normal = _normal(plain)
    yield from _hidden(text, plain, normal)
    if unseparated := without_a_separator(normal):
        yield "with a separator inside it", unseparated
    if spaced := between_its_letters(normal):
        yield "with a separator between its letters", spaced
    for_base64, for_others = _tokens(normal)
    if "+" in text:  # base64's "+", which percent-decoding made a space: read base64
        # from the text with its "+" kept (its runs hold the others whole), the rest from both
        for_base64, more = _tokens(_normal(urllib.parse.unquote(text)))
        for_others = for_others + more
    if swapped := halves_swapped(for_others):
        yield HALVES_SWAPPED, swapped
    yield from _decoded(text, normal, for_base64, for_others)
    if as_number := _decimal_runs(normal):
        yield "as a number", as_number
    if codes := _code_runs(whole_floats(normal)):
        yield "as character codes", codes


def _decoded(
    sent: str, normal: str, for_base64: Sequence[str], for_others: Sequence[str]
) -> Iterator[tuple[str, str]]:
    """The readings of ``normal`` (``sent``: as sent) that decode an encoding (not
    those that only take characters out or reverse)."""
    if (escaped := unescaped(normal)) != normal:
        yield "as HTML entities or escapes", escaped
    for how, text in _decodings(for_base64, for_others):
        yield f"{how}-encoded", text
    if hexes := _hex_runs(normal):
        yield "hex-encoded", hexes
    if as_bits := bits(normal):
        yield "as bits", as_bits
    # base85's "+", which percent-decoding made a space (no base85 run has one): read from the text as sent
    for how, text in base85s(_normal(urllib.parse.unquote(sent)) if "+" in sent else normal):
        yield f"{how}-encoded", text
    for how, text in numbers(for_others):
        yield f"{how}-encoded", text
    if octal := octal_bytes(normal):
        yield "as octal bytes", octal
    if uu := "\n".join(filter(None, (uudecoded(normal), uudecoded(sent) if "%" in sent else ""))):
        yield "uuencoded", uu  # (as sent too: uuencode's letters hold "%")


def _normal(text: str) -> str:
    """``text`` without invisible characters, its look-alike letters (full-width ones)
    made plain."""
    return unconfused(unicodedata.normalize("NFKC", without_hidden(text)))


def _hidden(text: str, plain: str, normal: str) -> Iterator[tuple[str, str]]:
    """Zero-width characters and look-alike letters taken out, UTF-16's zero bytes
    dropped, and the text reversed."""
    if normal != plain:
        yield "with invisible or look-alike characters between its letters", normal
    if "\x00" in normal:
        yield "UTF-16-encoded", _utf16_text(normal.encode("utf-8", "surrogatepass"))
    if _PERCENT_UTF16.search(text):
        raw = urllib.parse.unquote_to_bytes(text)
        yield "UTF-16-encoded, percent-encoded", _utf16_text(raw)
    yield "reversed", normal[::-1]


def _utf16_text(raw: bytes) -> str:
    """``raw`` read as UTF-16 every way (little- and big-endian, from either of its
    first two bytes) and with its zero bytes dropped (ASCII in UTF-16, either order,
    a byte-order mark or not), one reading a line."""
    ways = [raw.replace(b"\x00", b"").decode("utf-8", "replace")]
    for start in (0, 1):
        body = raw[start:]
        body = body[: len(body) - len(body) % 2]
        ways += [body.decode("utf-16-le", "replace"), body.decode("utf-16-be", "replace")]
    return "\n".join(_UNPRINTABLE.sub("\n", way.replace("\ufffd", "\n")) for way in ways)


def _tokens(plain: str) -> tuple[list[str], list[str]]:
    """The runs of letters that may be base64, base32 or hex: each on its own, each
    white-space-wrapped run joined up, and a host's labels together (``c2stcHJv….evil.io``
    split over labels). Two lists: for base64, where a wrapped run's lines are read
    only joined (read from each of its first four letters, the joined run holds each
    line's key whatever its place, once :func:`_padded` drops the dangling letter a next
    line's word may leave, finding A8; reading the lines alone too cost 85 ms more on
    60 KB of base64 and found nothing more); and for base32 and hex, each line on its
    own too."""
    wrapped = [line for run in _WRAPPED.findall(plain) if len(line := _BLANKS.sub("", run)) >= 12]
    try:
        host = urllib.parse.urlsplit(plain).hostname if "://" in plain else None
    except ValueError:  # "http://[not-an-address": no host to read
        host = None
    labels = host.split(".")[:-2] if host else []
    joined = wrapped + ["".join(labels[:n]) for n in range(2, min(len(labels), 8) + 1)]
    every = _runs(plain) + joined
    return (_runs(_WRAPPED.sub(" ", plain)) + joined if wrapped else every), every


def _runs(plain: str) -> list[str]:
    return _ENCODED.findall(plain) + [t for t in _ENCODED_WITH_SLASHES.findall(plain) if "/" in t]


def _decodings(for_base64: Sequence[str], for_others: Sequence[str]) -> Iterator[tuple[str, str]]:
    """What the tokens say in base64 and in base32 and hex: per encoding, every
    token's decoding, joined by new lines (one search per encoding, however many
    tokens: a cap on tokens let a key through after 64 decoys). Bytes that are no printable text
    become line breaks, so ``base64("\\n" + key)`` still shows the key; decoded bytes
    holding zero bytes are read as UTF-16 too. Each is read from every letter its
    encoding's groups may start at: ``x`` + base64(key) is one run of letters, and read
    from its first it decodes to noise; a run's last letters that make no whole byte are
    dropped, not a failed decode (finding A8: a next word glued on)."""
    def b64(t: str) -> bytes:  # "-" and "_" dropped by the decoder: not counted in its length
        return base64.b64decode(_padded(t.translate(_NOT_BASE64)), validate=False)

    def b64url(t: str) -> bytes:
        return base64.urlsafe_b64decode(_padded(t))

    tries: list[tuple[str, Callable[[str], bytes]]] = [
        ("base64", b64), ("base64", b64url), ("hex", bytes.fromhex)]
    for how, decode in tries:
        raws: list[bytes] = []
        for token in for_base64 if how == "base64" else for_others:
            token = token.rstrip("=")
            for start in range(4 if how == "base64" and len(token) >= 16 else 1):
                try:
                    raws.append(decode(token[start:]))
                except (binascii.Error, ValueError):
                    continue
        if parts := _printable(b"\n".join(raws)):  # one pass for all: thousands of lines' calls cost more
            yield how, "\n".join(parts)
    yield from _base32(for_others)


_NOT_BASE64 = str.maketrans("", "", "-_")
_BASE32_LETTERS = base32_letters("A-Z2-7")


def _padded(t: str) -> str:
    """``t`` padded to whole groups of four, without a last letter that holds too few bits
    for a byte (a length one past a multiple of four: no base64 ends so, but a glued-on
    word makes it)."""
    t = t[:-1] if len(t) % 4 == 1 else t
    return t + "=" * (-len(t) % 4)


def _base32(tokens: Sequence[str]) -> Iterator[tuple[str, str]]:
    """What each run of base32 letters in ``tokens`` says
    (:func:`shell.core.secretalphabets.base32_bytes`: from each of its first eight letters)."""
    raws = [raw for token in tokens for raw in base32_bytes(token, _BASE32_LETTERS)]
    if parts := _printable(b"\n".join(raws)):
        yield "base32", "\n".join(parts)


def _printable(raw: bytes) -> list[str]:
    """``raw`` as text to search, if it holds enough printable text to hide a secret."""
    text = _UNPRINTABLE.sub("\n", raw.decode("utf-8", "replace").replace("\ufffd", "\n"))
    found = [text] if len(text.strip()) >= MIN_DECODED else []
    if _UTF16_RUN.search(raw):
        found.append(_utf16_text(raw))
    return found


def _hex_runs(plain: str) -> str:
    """Every hex run's bytes as text (from its first digit and from its second: a run
    glued to a word's last hex letter), one a line; empty when there is none."""
    parts: list[str] = []
    for run in _HEX_RUN.findall(plain):
        digits = _NOT_HEX.sub("", run)
        for start in (0, 1):
            body = digits[start:]
            parts += _printable(bytes.fromhex(body[: len(body) - len(body) % 2]))
    return "\n".join(parts)


def _decimal_runs(plain: str) -> str:
    """Every long run of decimal digits read as one integer's bytes, in either byte
    order (``int.from_bytes(key, "big")`` written out), one a line; empty when there is
    none. Ordinary ids and timestamps decode to unprintable bytes and are dropped."""
    parts: list[str] = []
    for run in _DECIMAL_RUN.findall(plain):
        number = 0
        for start in range(0, len(run), _DIGITS_AT_ONCE):
            chunk = run[start : start + _DIGITS_AT_ONCE]
            number = number * 10 ** len(chunk) + int(chunk)
        raw = number.to_bytes((number.bit_length() + 7) // 8 or 1, "big")
        parts += _printable(raw) + _printable(raw[::-1])
    return "\n".join(parts)


def _code_runs(plain: str) -> str:
    """Every list of numbers read as character codes (a JSON array of a key's letters
    in a query value), one a line; a number that is no character becomes a line break."""
    parts: list[str] = []
    for run in _CODES_RUN.findall(plain):
        letters = (chr(n) if (n := int(code)) <= 0x10FFFF else "\n" for code in _CODE.findall(run))
        parts.append(_UNPRINTABLE.sub("\n", "".join(letters)))
    return "\n".join(parts)
