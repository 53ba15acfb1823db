"""A secret split over several arguments, or sent as numbers: the texts a receiver
could put back together from a network call's arguments, for :mod:`.egress` to look
through as it looks through each string.

Looking at each string alone, ``?a=ghp_abcd&b=EFGH…`` (a key in two query values),
``/ghp_abcd/EFGH…`` (two path segments), ``{"a": "sk-proj-…", "b": "…"}`` and a JSON
array of the key's character codes ``[103, 104, 112, …]`` carried a key out unasked:
no one piece holds it. The receiver joins them in any order it likes, so the pieces are
joined here in order, in reverse order and two by two in either order; a list of
numbers is written out as text for the secrets policy's number readings.

A known value (the environment's, a config's, a hidden file's) cut into pieces is found
however the pieces are ordered or spread over the call (finding Z4: ``?c=C&a=A&b=B`` and
``?a=A&z=hello&b=B&y=world&c=C`` passed): :func:`pieced_value` looks for the pieces that
are substrings of a value (at least :data:`MIN_PIECE` letters) and asks when together
they cover it. The pieces may stand inside one string with other text between them too
(finding C4: ``?q=<7 letters>hello<7 letters>world<6 letters>``): runs of a value's
letters are looked for inside each string, as long as a run that long is unlikely to
stand in the call by chance (:func:`least_piece`: four letters in a URL, six or seven in
a megabyte).

Not read, and README says so: a known value in pieces shorter than :func:`least_piece`
inside strings (five letters among a megabyte of letters and digits), or one without a
digit (a passphrase's words stand in any prose) in pieces inside strings; pieces each
reversed, rot13'd or encoded on their own inside a string, or the whole string reversed
(lower- and upper-cased pieces and a whole string the check decodes are read: finding
D20); a key with no
known value (one the run never saw) in three pieces or more that are not next to each
other, or split among more than :data:`MAX_PAIRED` pieces with others between its halves;
a key split over several calls.
"""

from __future__ import annotations

import functools
import math
import re
import urllib.parse
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from itertools import permutations
from typing import Any

EDGE = 256
"""Characters of a long piece's start and end that are joined with its neighbours: a
key split between two pieces lies within this much of where they meet (a long key,
base64-encoded, is 150-200 letters). Each piece was looked through whole already."""
MIN_NUMBER = 19
"""Digits a whole number needs to hold eight bytes (the shortest secret) on its own."""
MAX_PAIRED = 32
"""Pieces joined two by two (in any order, whatever lies between them): 32 pieces make
992 pairs, one search over ~250 KB at most. Past it only neighbours are joined."""
PAIR_EDGE = 128
"""Characters of each piece's end and start joined in a pair."""


def joined_texts(args: Any) -> Iterator[tuple[str, str]]:
    """The texts to look for a split secret in, each with how it was put together: the
    leaves of ``args`` (a URL among them in its path segments, query values and
    fragment) joined in order and in reverse order, one after another and with commas
    (character codes one an argument); the mapping keys and query keys the same way;
    every two pieces joined in either order (or, past :data:`MAX_PAIRED` pieces, each
    list in reverse order); every number or list of numbers as text."""
    leaves, keys, numbers = _pieces(args)
    yield from (("", text) for text in numbers)  # the readings say "as a number"
    paired = list(dict.fromkeys(p for p in [*leaves, *keys] if p))
    for pieces in (leaves, keys):
        if len(pieces) < 2:
            continue
        edged = [_edges(p, EDGE) for p in pieces]
        yield "split over several arguments", "".join(edged)
        if len(paired) > MAX_PAIRED:
            yield "split over several arguments, in reverse order", "".join(reversed(edged))
        if len(digits := [p for p in pieces if p.isascii() and p.isdigit()]) > 1:
            yield "", ",".join(digits)  # character codes one an argument: "as character codes"
    if 2 <= len(paired) <= MAX_PAIRED:
        yield "split over two arguments", "\n".join(
            a[-PAIR_EDGE:] + b[:PAIR_EDGE] for a, b in permutations(paired, 2))


def _edges(piece: str, edge: int) -> str:
    """``piece``, or its first and last ``edge`` characters with a line break between."""
    return piece if len(piece) <= 2 * edge else f"{piece[:edge]}\n{piece[-edge:]}"


def _pieces(args: Any) -> tuple[list[str], list[str], list[str]]:
    """The leaf strings of a JSON value (a URL's pieces in its place), its mapping keys
    (and URLs' query keys), and its numbers as text (a list of whole numbers one text,
    comma-separated; a number alone only when long enough to hold a key), breadth first."""
    leaves: list[str] = []
    keys: list[str] = []
    numbers: list[str] = []
    queue = deque([args])
    while queue:
        item = queue.popleft()
        if isinstance(item, str):
            url = _url_pieces(item)
            if url is None:
                leaves.append(item)
            else:
                leaves += url[0]
                keys += url[1]
        elif isinstance(item, Mapping):
            for key, inner in item.items():
                keys.append(str(key))
                queue.append(inner)
        elif isinstance(item, (list, tuple)):
            whole = [str(int(n)) for n in item if _whole(n)]
            if len(whole) > 1:
                numbers.append(",".join(whole))
            if len(flags := [n for n in item if isinstance(n, bool)]) >= 64:
                numbers.append("".join("1" if n else "0" for n in flags))  # bits: "as bits"
            queue.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool) and len(text := str(item)) >= MIN_NUMBER:
            numbers.append(text)
    return leaves, keys, numbers


def _whole(n: Any) -> bool:
    """A whole number, however JSON wrote it: ``88``, ``88.0`` (not a boolean)."""
    return (isinstance(n, int) and not isinstance(n, bool)) or (isinstance(n, float) and n.is_integer()
                                                               and abs(n) < 1 << 53)


def _url_pieces(text: str) -> tuple[list[str], list[str]] | None:
    """A URL's host labels (but its last), path segments, query values and fragment,
    and its query keys; ``None``
    for a text that is no URL."""
    if "://" not in text[:32]:
        return None
    try:
        parts = urllib.parse.urlsplit(text)
    except ValueError:
        return None
    pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    labels = (parts.hostname or "").split(".")[:-1]  # a key's half in a subdomain (finding P5)
    values = [s for s in labels if s] + [s for s in parts.path.split("/") if s] + [v for _, v in pairs]
    if parts.fragment:
        values.append(parts.fragment)
    return values, [k for k, _ in pairs]


MIN_PIECE = 4
"""Letters a piece needs to count as a part of a known value (shorter ones, ``a``, ``id``,
``1``, are in every value)."""


def pieced_value(args: Any, values: Iterable[str], decoded: Iterable[str] = ()) -> str | None:
    """A known value that pieces of ``args`` cover together, in any order and wherever
    they stand, two pieces or more; ``None`` when none is. A piece is a leaf (a URL's
    label, segment, query value or key) that is part of a value, :data:`MIN_PIECE`
    letters or more, or a run of a random-looking value's letters inside a leaf, with
    other text around it (finding C4: ``?q=<7 letters>hello<7 letters>world<6 letters>``
    passed): :func:`inner_pieces`. Each is found in the values by its first letters
    (one look-up a piece or a place, not a search of every value).

    ``decoded``: what the call's strings said decoded (base64, hex …: the egress check's
    readings), read as leaves too; and every leaf is read again lower-cased, against the
    values lower-cased (finding D20: the same pieces lower-cased, or the whole string
    base64-encoded, passed)."""
    leaves, keys, _ = _pieces(args)
    texts = list(dict.fromkeys(p for p in (*leaves, *keys, *decoded) if len(p) >= MIN_PIECE))
    if not texts:
        return None
    known = tuple(values)
    if (found := _covered(texts, known)) is not None:
        return found
    lowered = {value.lower(): value for value in reversed(known)}  # (the first given, when two share one)
    found = _covered(list(dict.fromkeys(t.lower() for t in texts)), tuple(lowered))
    return lowered[found] if found is not None else None


def _covered(texts: list[str], known: tuple[str, ...]) -> str | None:
    """The value of ``known`` that pieces of ``texts`` cover together (:func:`pieced_value`)."""
    starts = _starts(known)
    covered: dict[str, set[tuple[int, int]]] = {}
    for piece in texts:
        for value, at in starts.get(piece[:MIN_PIECE], ()):
            if len(piece) < len(value) and value.startswith(piece, at):
                covered.setdefault(value, set()).add((at, at + len(piece)))
    inner = tuple(v for v in known if _random_looking(v))
    least = least_piece(texts)
    for text in texts:
        for value, span in inner_pieces(text, inner, least):
            covered.setdefault(value, set()).add(span)
    for value, spans in covered.items():
        reach = 0
        for start, end in sorted(spans):
            if start > reach:
                break
            reach = max(reach, end)
        if reach >= len(value) and len(spans) > 1:
            return value
    return None


CHANCE = 0.01
"""How likely a run of a value's letters may stand in a call by chance, at most: what
sets :func:`least_piece`."""


def least_piece(texts: list[str]) -> int:
    """Letters a run of a value's letters inside a call's ``texts`` needs to count as a
    piece: at least :data:`MIN_PIECE`, and enough that the texts (their length, their
    alphabet, all together: a thousand commit ids hold most runs of four hex digits of a
    hex value between them) hold one given run by chance with a likelihood under
    :data:`CHANCE`. Four in a URL, six in a megabyte of letters and digits, seven in a
    megabyte of hex."""
    size = sum(map(len, texts))
    letters = max(2, len(set().union(*map(set, texts))))
    return max(MIN_PIECE, math.ceil(math.log(max(size, 1) / CHANCE) / math.log(letters)))


def inner_pieces(text: str, values: tuple[str, ...], least: int) -> Iterator[tuple[str, tuple[int, int]]]:
    """Each longest run of a value's letters inside ``text`` (``least`` letters or more:
    :func:`least_piece`, not the whole value: that one is found as it is) with where it stands in the
    value. The places worth a look are found in one RE2 pass for every run of
    :data:`MIN_PIECE` letters of ``values`` (3 ms a megabyte; a look-up of each place in
    Python took 190 ms); an ordinary text has none. A run is grown both ways from where
    it is found: a match of another value's letters just before it (its first letters
    taken by the pass) hides only its first three letters."""
    if len(text) < MIN_PIECE or (search := _runs(values)) is None:
        return
    starts = _starts(values)
    seen: set[tuple[str, int, int]] = set()
    readable = text if text.isascii() else _SURROGATES.sub("\ufffd", text)  # (RE2 reads UTF-8)
    for match in search.finditer(readable):
        place = match.start()
        for value, at in starts[text[place : place + MIN_PIECE]]:
            begin, first = place, at
            while begin and first and text[begin - 1] == value[first - 1]:
                begin, first = begin - 1, first - 1
            end, stop = place + MIN_PIECE, min(len(text), begin + len(value) - first)
            while end < stop and text[end] == value[first + end - begin]:
                end += 1
            if (value, first, begin) not in seen and least <= end - begin < len(value):
                seen.add((value, first, begin))
                yield value, (first, first + end - begin)


_SURROGATES = re.compile("[\ud800-\udfff]")


@functools.lru_cache(maxsize=8)
def _runs(values: tuple[str, ...]) -> Any:
    """One RE2 expression for every run of :data:`MIN_PIECE` letters of ``values``."""
    import re2  # type: ignore[import-untyped]

    runs = sorted({value[at : at + MIN_PIECE] for value in values
                   for at in range(len(value) - MIN_PIECE + 1)})
    if not runs:
        return None
    options = re2.Options()
    options.max_mem = 128 << 20
    options.log_errors = False
    return re2.compile("|".join(map(re.escape, runs)), options)


def _random_looking(value: str) -> bool:
    """A value with a letter and a digit: runs of a word-like one (a passphrase's words)
    stand in ordinary text."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


@functools.lru_cache(maxsize=8)
def _starts(values: tuple[str, ...]) -> dict[str, list[tuple[str, int]]]:
    """Where each run of :data:`MIN_PIECE` letters stands in ``values`` (built once a set)."""
    starts: dict[str, list[tuple[str, int]]] = {}
    for value in values:
        for at in range(len(value) - MIN_PIECE + 1):
            starts.setdefault(value[at : at + MIN_PIECE], []).append((value, at))
    return starts


__all__ = ["CHANCE", "MIN_PIECE", "inner_pieces", "joined_texts", "least_piece", "pieced_value"]
