"""More one-step spellings of a text a secret may hide in on its way out (finding U3):
for :func:`shell.core.secretencodings.readings`.

Each is one standard step a model can be told to take ("send it as HTML entities"),
like hex and base32, which were read already, and each is decoded where it parses:

- escapes: HTML's character references (``&#88;``, ``&#x58;``, ``&amp;``), a string
  literal's ``\\u0058``, ``\\U00000058``, ``\\x58`` and octal ``\\130``, quoted-printable
  ``=58`` (with its ``=`` line breaks), all in one pass over the text;
- bits: eight-bit groups of ``0``/``1`` (``01011000 01110001``, or one run), and a
  list of ``true``/``false`` read as bits;
- base85 (Python's and git's alphabet) and ascii85 (Adobe's ``<~ ~>``): each run of
  their letters long enough to hold eight bytes, from its first letter;
- look-alike letters: Cyrillic, Greek and other scripts' letters drawn like Latin
  ones (Cyrillic Ha and Qa, Greek nu, a Canadian syllabic drawn as L), read as those
  (NFKC leaves them be);
- numbers written as floats (``88.0``) read as the whole numbers they are.

Bytes that are no printable text become line breaks, as in the other readings. What
is still not read: an encoding twice over, compression, a cipher (Caesar, atbash,
rot47), letters doubled or interleaved with others (README says so).
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from collections.abc import Iterator

_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\U00010000-\U0010ffff]+")
_ESCAPE = re.compile(
    r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})|\\x([0-9a-fA-F]{2})|\\([0-7]{1,3})|=([0-9A-F]{2})|=\r?\n")
"""A string literal's escapes and quoted-printable's ``=XX`` (upper case, as RFC 2045
writes it; lower case is a query string's ``a=bc``) and soft line break."""
_BITS = re.compile(r"(?<![01])(?:[01]{8}[\s,;:|_-]{0,3}){8,}[01]{0,7}")
"""Eight bytes or more written as bits, one group of eight at a time, separated or not,
and the last few digits a run glued on before them pushed past the last group."""
_BOOLS = re.compile(r"(?i)(?<![a-z])(?:(?:true|false)[\s,;]{1,3}){63,}(?:true|false)(?![a-z])")
"""Sixty-four booleans or more in a row: eight bytes as bits."""
_B85_RUN = re.compile(r"[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]{10,}")
"""Letters of Python's (and git's) base85, ten or more: eight bytes."""
_A85_RUN = re.compile(r"(?:<~)?[!-uz]{10,}(?:~>)?")
_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/=_-]")
"""A letter base85 has and base64 has not: a key's twenty letters of base85 hold one
but once in a thousand times; runs without one are not decoded (pure Python: decoding
every base64 run and long word again cost 40% more on base64 text)."""
_NOT_BASE64_OR_WORDS = re.compile(r"[!#$%&()*;<>?@^`{|}~]")
"""A letter of base85's that base64's and words' are not: without one, no base85 run has one."""
_FLOAT_ZERO = re.compile(r"(?<=[0-9])\.0+(?![0-9])")

_FROM = (
    "АВЕКМНОРСТХЅІЈԚԜҮавекмнорстухѕіјԛԝԁһгпьү"
    "ɡӏӀᎳΑΒΕΖΗΙΚΜΝΟΡΤΥΧαβγεικνορτυχωᒪᐯᑭᑕᗪᕼᴀʙᴄ"
    "ᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢօսհոᎪᏴᏟᎬᎻᏦᎷᏢᎢᏚ"
)
_TO = (
    "ABEKMHOPCTXSIJQWYabekmhopctyxsijqwdhrnby"
    "glIWABEZHIKMNOPTYXabyeikvoptuxwLVPCDHABC"
    "DEGHIJKLMNOPRSTUVWYZouhnABCEHKMPTS"
)
LOOKALIKES = str.maketrans(_FROM, _TO)
"""Letters of other scripts drawn like Latin ones (a subset of Unicode's confusables:
those a key's letters and digits are mistaken for), read as the Latin letter."""

_LOOKALIKE = re.compile("[" + re.escape("".join(chr(c) for c in LOOKALIKES)) + "]")


def unconfused(text: str) -> str:
    """``text`` with look-alike letters read as the Latin letters they are drawn like."""
    if text.isascii() or not _LOOKALIKE.search(text):
        return text  # (most text, Japanese too: one search, not a copy)
    return text.translate(LOOKALIKES)


def _printable(raw: bytes) -> str:
    text = _UNPRINTABLE.sub("\n", raw.decode("utf-8", "replace").replace("\ufffd", "\n"))
    return text if len(text.strip()) >= 8 else ""


def _unescape(match: re.Match[str]) -> str:
    for group in match.groups()[:3]:
        if group is not None:
            code = int(group, 16)
            return chr(code) if code <= 0x10FFFF else "\n"
    if (octal := match.group(4)) is not None:
        return chr(int(octal, 8))
    return chr(int(hex_pair, 16)) if (hex_pair := match.group(5)) is not None else ""


def unescaped(text: str) -> str:
    """``text`` with HTML's character references, a string literal's escapes and
    quoted-printable's ``=XX`` decoded (one pass each, only where the text has them);
    ``text`` itself when it has none."""
    out = html.unescape(text) if "&" in text else text
    return _ESCAPE.sub(_unescape, out) if "\\" in out or "=" in out else out


def bits(text: str) -> str:
    """Every run of eight-bit groups (and of booleans) as the bytes they spell, one a
    line; empty when there is none."""
    parts: list[str] = []
    if "0" in text or "1" in text:
        for run in _BITS.findall(text):
            parts += _bytes_of(re.sub(r"[^01]", "", run))
    if "true" in text.lower():
        for run in _BOOLS.findall(text):
            words = re.findall(r"(?i)true|false", run)
            parts += _bytes_of("".join("1" if w.lower() == "true" else "0" for w in words))
    return "\n".join(p for p in parts if p)


def _bytes_of(digits: str) -> list[str]:
    """The bytes ``digits`` (bits) spell read from each of its first eight digits
    (finding A8's twin: a digit or a word glued before a key's bits made its groups noise)."""
    parts: list[str] = []
    for start in range(8):
        body = digits[start : len(digits) - (len(digits) - start) % 8]
        if len(body) < 64:
            break
        parts.append(_printable(int(body, 2).to_bytes(len(body) // 8, "big")))
    return parts


def base85s(text: str) -> Iterator[tuple[str, str]]:
    """What each run of base85 and ascii85 letters decodes to, per alphabet, one a
    line (nothing for an alphabet no run of the text decodes in); read from each of a
    run's first five letters (finding A8's twin: a letter glued before a key's base85
    made its groups of five noise)."""
    if not _NOT_BASE64_OR_WORDS.search(text):
        return  # (most text: one search, not two passes of runs)
    for how, runs, decode in (("base85", _B85_RUN, base64.b85decode), ("ascii85", _A85_RUN, _a85)):
        parts: list[str] = []
        for run in runs.findall(text):
            if not _NOT_BASE64.search(run):
                continue  # base64's letters only (a base64 run, a long word): base85 holds others
            for start in range(5 if len(run) >= 15 else 1):
                try:
                    parts.append(_printable(decode(run[start:])))
                except (ValueError, binascii.Error):
                    continue
        if found := "\n".join(p for p in parts if p):
            yield how, found


def _a85(run: str) -> bytes:
    adobe = run.startswith("<~") and run.endswith("~>")
    return base64.a85decode(run, adobe=adobe)


def whole_floats(text: str) -> str:
    """``text`` with numbers written as floats (``88.0``) written as whole numbers."""
    return _FLOAT_ZERO.sub("", text) if ".0" in text else text


__all__ = ["LOOKALIKES", "base85s", "bits", "unconfused", "unescaped", "whole_floats"]
