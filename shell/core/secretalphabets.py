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
_OCTAL_RUN = re.compile(r"(?<![0-9])[0-7]{0,2}(?:[0-3][0-7]{2}[\s,;:.|-]{0,2}){8,}")
"""Eight bytes or more as three octal digits each (a byte is at most ``377``), after up
to two digits glued on before them (finding A8's twin)."""
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


def base32_letters(letters: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The runs of a base32 alphabet's ``letters`` (a class: ``A-Z2-7``), twelve or more:
    in any case, and in one case."""
    return (re.compile(f"(?i)[{letters}]{{12,}}"),
            re.compile(f"[{letters}]{{12,}}|[{letters.lower()}]{{12,}}"))


def base32_bytes(
    token: str, letters: tuple[re.Pattern[str], re.Pattern[str]], alphabet: dict[int, str] | None = None
) -> list[bytes]:
    """What each run of base32 ``letters`` in ``token`` says (``alphabet``: from these
    letters to RFC 4648's), decoded at C speed; each run in one case (base32 as every
    tool writes it) read from each of its first eight letters too (finding A8's twin: a
    letter or a word glued before a key; after one, its last bits make no byte). Runs
    are cut at a letter not the alphabet's and where the case changes, so a glued letter
    of the other case leaves the key's run whole. A run in mixed case (base64's) is read
    only when it is the whole token, from its first letter: read eight ways, or read
    wherever one is, 60 KB of base64 cost 1.6x."""
    any_case, one_case = letters
    runs = [(token, 1)] if any_case.fullmatch(token) and not one_case.fullmatch(token) else []
    raws: list[bytes] = []
    for run, starts in runs + [(run, 8) for run in one_case.findall(token)]:
        upper = run.upper()
        raws += _shifted(upper.translate(alphabet) if alphabet else upper, starts)
    return raws


def _shifted(run: str, starts: int) -> list[bytes]:
    """``run`` (RFC 4648's letters) decoded from each of its first ``starts`` letters:
    decoded once (a number built a letter at a time grew with the run: 60 KB of hex took
    0.5 s, finding Z5), then read shifted five bits at a time."""
    full = base64.b32decode(run + "A" * (-len(run) % 8))
    bits = len(run) * 5
    number = int.from_bytes(full, "big") >> (len(full) * 8 - bits)
    raws: list[bytes] = []
    for start in range(starts):
        left = bits - 5 * start
        size = left // 8
        if size < 8:
            break
        rest = number & ((1 << left) - 1)
        raws.append((rest >> (left - 8 * size)).to_bytes(size, "big"))
    return raws


_BASE32_HEX_LETTERS = base32_letters("0-9A-V")
_CROCKFORD_LETTERS = base32_letters("0-9A-TV-Z")


def numbers(runs: Iterable[str]) -> Iterator[tuple[str, str]]:
    """What the runs of letters (``x``, ``a_b``: the caller's tokens) say as base58,
    base36, base32hex and Crockford's base32, per encoding, one a line."""
    found: dict[str, list[str]] = {"base58": [], "base36": [], "base32hex": [], "Crockford base32": []}
    hexes: list[bytes] = []
    crockfords: list[bytes] = []
    for run in runs:
        run = run.rstrip("=")
        hexes += base32_bytes(run, _BASE32_HEX_LETTERS, _FROM_BASE32_HEX)
        crockfords += base32_bytes(run, _CROCKFORD_LETTERS, _FROM_CROCKFORD)
        if len(run) < 12 or _NOT_BASE36.search(run) or len(run) > MAX_NUMBER_RUN:
            continue
        found["base36"].append(_printable(_number_bytes(int(run, 36))))
        if not _NOT_BASE58.search(run):
            found["base58"].append(_printable(_base58(run)))
    found["base32hex"].append(_printable(b"\n".join(hexes)))
    found["Crockford base32"].append(_printable(b"\n".join(crockfords)))
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
