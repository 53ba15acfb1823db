"""A known secret value going out respelled: case changed, separators put between its
letters, rot13'd, or only a long piece of it (finding S14).

:mod:`.egress` looks for each known value (the environment's, a ``.env``'s, a config's)
as it is and in the encodings :mod:`shell.core.secretencodings` reads (reversed,
base64, hex…). A prompt-injected model tries simpler things first, and these passed:
``xq9vlr2mts8wpz4k`` (lower case), ``X q 9 v …`` / ``X-q-9-v-…`` / ``Xq9v Lr2m Ts8w``
(separated, grouped), ``Kd9iYe2zGf8jCm4x`` (rot13), and the value in two halves over two
calls. So every argument string is folded (case folded, everything but letters and
digits taken out, percent-decoded first, all of a call's strings one after another) and
looked through, as is and reversed, shifted by any Caesar shift, in atbash, and as every
other letter of it (finding C5: ``tr a-zA-Z b-zaB-ZA``, ``?a=<even letters>&b=<odd
letters>``), for any piece of a spelling at least half its length and at least
:data:`MIN_PIECE` long. Only random-looking values and pieces count (a letter and a
digit in them): a ``DATABASE_URL``'s ``postgresadmin…`` is ordinary words folded.

Not read, and README says so: a value split into three pieces or more over as many calls
(each under half), or respelled in ways beyond these (every third letter, pairs swapped,
rot47, a cipher with a key).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from shell.core.secretencodings import percent_decoded
from shell.core.secretescapes import unconfused
from shell.core.secretspellings import EVERY_OTHER, ciphered

MIN_PIECE = 8
"""Letters and digits a piece of a value needs to count (a half of a 16-letter key)."""
MAX_FOLDED = 1 << 16
"""Folded characters looked through at most (each string was looked through whole already)."""
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


def fold(text: str) -> str:
    """``text`` case folded, with everything but ASCII letters and digits taken out
    (look-alike letters of other scripts read as the Latin ones first: Cyrillic Ha as X)."""
    return _NOT_ALNUM.sub("", unconfused(text).casefold())


def _random_looking(piece: str) -> bool:
    return any(c.isdigit() for c in piece) and any(c.isalpha() for c in piece)


@functools.lru_cache(maxsize=8)
def _grams(values: tuple[str, ...]) -> dict[str, list[tuple[str, str, str]]]:
    """Each random-looking run of :data:`MIN_PIECE` letters of each folded value, as it is,
    rot13'd and reversed, with the spelling it is of, how, and the value: one pass over
    the text finds where a piece may start."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for value in values:
        folded = fold(value)
        if len(folded) < MIN_PIECE or not _random_looking(folded):
            continue
        spellings = [("with its case or separators changed", folded),
                     ("reversed and respelled", folded[::-1]), *ciphered(folded, every_shift=True),
                     *((EVERY_OTHER, folded[start::2]) for start in (0, 1) if len(folded) >= 2 * MIN_PIECE)]
        for how, spelling in spellings:
            for start in range(len(spelling) - MIN_PIECE + 1):
                gram = spelling[start : start + MIN_PIECE]
                if _random_looking(gram):
                    out.setdefault(gram, []).append((spelling, how, value))
    return out


def respelled_value(texts: Iterable[str], values: tuple[str, ...]) -> tuple[str, str] | None:
    """How a known value (or a long piece of it) is respelled in ``texts`` (one call's
    argument strings), and the value; or ``None``."""
    grams = _grams(values)
    if not grams:
        return None
    folded: list[str] = []
    size = 0
    for piece in texts:
        if size >= MAX_FOLDED:
            break
        folded.append(fold(percent_decoded(piece[: 4 * MAX_FOLDED])))
        size += len(folded[-1])
    text = "".join(folded)[:MAX_FOLDED]
    starts = range(len(text) - MIN_PIECE + 1)
    if grams.keys().isdisjoint(map(text.__getitem__, map(slice, starts, range(MIN_PIECE, len(text) + 1)))):
        return None  # (one pass in C: an ordinary call stops here)
    for at in starts:
        for spelling, how, value in grams.get(text[at : at + MIN_PIECE], ()):
            if _shares_half(text, at, spelling):
                whole = spelling in text
                return (how if whole else f"a piece of it, {how}"), value
    return None


def _shares_half(text: str, at: int, spelling: str) -> bool:
    """Whether ``text`` from ``at`` on holds a run of ``spelling`` at least half its length
    (and :data:`MIN_PIECE` or more) starting with the letters there."""
    need = max(MIN_PIECE, (len(spelling) + 1) // 2)
    gram = text[at : at + MIN_PIECE]
    offset = spelling.find(gram)
    while offset >= 0:
        if len(spelling) - offset >= need and text.startswith(spelling[offset : offset + need], at):
            return True
        offset = spelling.find(gram, offset + 1)
    return False


__all__ = ["MIN_PIECE", "fold", "respelled_value"]
