"""Still more one-step spellings of a text a secret may hide in on its way out (finding
X5): for :func:`shell.core.secretencodings.readings`, kept apart only for size.

Each is one standard step a model can be told to take ("send it as base58"), like the
base64, base32, hex and base85 already read:

- base58 (Bitcoin's alphabet) and base36: a key's bytes as one big number, written
  in those digits. Only a whole run of letters is read (a number's digits cannot be
  read from the middle), and only runs up to :data:`MAX_NUMBER_RUN` letters (a key's
  few hundred bytes; Python refuses to turn more than 4,300 digits into a number);
- base32 in the other alphabets: RFC 4648's "extended hex" (``0-9A-V``) and
  Crockford's (no I, L, O, U), read as a stream of bits whatever the run's length;
- octal bytes: three octal digits a byte (``163153055``), separated or not;
- uuencode: each line (``begin 666 name`` or not) from its length letter;
- a run of a key's letters with its two halves swapped (any place of the cut): the
  run written twice over holds the key whole.

Bytes that are no printable text become line breaks, as in the other readings.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Iterator, Sequence

MAX_NUMBER_RUN = 512
"""Longest run read as one base58 or base36 number (370 bytes in base58), or as a key
with its halves swapped."""
_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58_VALUES = {letter: value for value, letter in enumerate(_BASE58)}
_NOT_BASE58 = re.compile(r"[^1-9A-HJ-NP-Za-km-z]")
_NOT_BASE36 = re.compile(r"[^0-9A-Za-z]")
_BASE32_HEX = {letter: value for value, letter in enumerate("0123456789ABCDEFGHIJKLMNOPQRSTUV")}
_CROCKFORD = {letter: value for value, letter in enumerate("0123456789ABCDEFGHJKMNPQRSTVWXYZ")}
_CROCKFORD |= {"O": 0, "I": 1, "L": 1}
_OCTAL_RUN = re.compile(r"(?<![0-9])(?:[0-3][0-7]{2}[\s,;:.|-]{0,2}){8,}")
"""Eight bytes or more as three octal digits each (a byte is at most ``377``)."""
_NOT_OCTAL = re.compile(r"[^0-7]")
_UU_LINE = re.compile(r"(?m)(?:^|(?<=[=/?&:]))[!-M][ -`]{4,84}")
"""A uuencoded line: its length letter (one to 45 bytes), then its letters; at a line's
start or after a URL's ``=``/``/`` (a query value). Lower-case letters are no uuencode,
so prose never matches past its first word."""
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\U00010000-\U0010ffff]+")


def _printable(raw: bytes) -> str:
    text = _UNPRINTABLE.sub("\n", raw.decode("utf-8", "replace").replace("\ufffd", "\n"))
    return text if len(text.strip()) >= 8 else ""


def _number_bytes(number: int) -> bytes:
    return number.to_bytes((number.bit_length() + 7) // 8 or 1, "big")


def _base58(run: str) -> bytes:
    number = 0
    for letter in run:
        number = number * 58 + _BASE58_VALUES[letter]
    return _number_bytes(number)


_STANDARD_BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def _as_standard(values: dict[str, int]) -> dict[int, str]:
    return str.maketrans({letter: _STANDARD_BASE32[value] for letter, value in values.items()})


_FROM_BASE32_HEX = _as_standard(_BASE32_HEX)
_FROM_CROCKFORD = _as_standard(_CROCKFORD)


def _bit_stream(run: str, alphabet: dict[int, str]) -> bytes:
    """``run``'s letters as five bits each, in order, the last few bits dropped: its
    letters spelled in RFC 4648's alphabet and decoded at C speed (a number built a
    letter at a time grew with the run: 60 KB of hex took 0.5 s, finding Z5)."""
    standard = run.translate(alphabet)
    return base64.b32decode(standard + "A" * (-len(standard) % 8))[: len(run) * 5 // 8]


def numbers(runs: Iterable[str]) -> Iterator[tuple[str, str]]:
    """What the runs of letters (``x``, ``a_b``: the caller's tokens) say as base58,
    base36, base32hex and Crockford's base32, per encoding, one a line."""
    found: dict[str, list[str]] = {"base58": [], "base36": [], "base32hex": [], "Crockford base32": []}
    for run in runs:
        run = run.rstrip("=")
        if len(run) < 12 or _NOT_BASE36.search(run):
            continue
        upper = run.upper()
        if len(run) <= MAX_NUMBER_RUN:
            found["base36"].append(_printable(_number_bytes(int(run, 36))))
            if not _NOT_BASE58.search(run):
                found["base58"].append(_printable(_base58(run)))
        if all(letter in _BASE32_HEX for letter in upper):
            found["base32hex"].append(_printable(_bit_stream(upper, _FROM_BASE32_HEX)))
        if all(letter in _CROCKFORD for letter in upper):
            found["Crockford base32"].append(_printable(_bit_stream(upper, _FROM_CROCKFORD)))
    for how, parts in found.items():
        if text := "\n".join(p for p in parts if p):
            yield how, text


def octal_bytes(text: str) -> str:
    """Every run of three-digit octal bytes as the text it spells (from each of the
    run's first three digits: one glued to a number before it), one a line."""
    parts: list[str] = []
    for run in _OCTAL_RUN.findall(text):
        digits = _NOT_OCTAL.sub("", run)
        for start in range(3):
            body = digits[start : start + (len(digits) - start) // 3 * 3]
            raw = bytes(int(body[i : i + 3], 8) & 0xFF for i in range(0, len(body), 3))
            parts.append(_printable(raw))
    return "\n".join(p for p in parts if p)


def uudecoded(text: str) -> str:
    """Every uuencoded line's bytes, one a line; empty when there is none."""
    parts: list[str] = []
    for line in _UU_LINE.findall(text):
        try:
            parts.append(_printable(binascii.a2b_uu(line.rstrip())))
        except binascii.Error:
            continue
    return "\n".join(p for p in parts if p)


def halves_swapped(runs: Sequence[str]) -> str:
    """Every run of up to :data:`MAX_NUMBER_RUN` letters written twice over, one a
    line: a key cut anywhere and its halves swapped (``KEY0123…sk-test-OUTER``) is
    whole in its run twice over (the run is the key's length: longer runs are not it)."""
    return "\n".join(run + run for run in runs if len(run) <= MAX_NUMBER_RUN)


__all__ = ["MAX_NUMBER_RUN", "halves_swapped", "numbers", "octal_bytes", "uudecoded"]
