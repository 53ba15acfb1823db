"""Known secret values in the other spellings a command, a file or a server may print
them in: for the nets that take known values out of what the model reads (findings Z1,
Z7: only the value as written was taken out).

A prompt-injected model that cannot read a hidden ``.env`` has a command read the
copy git keeps and print the value reversed, base64- or hex-encoded, upper-cased,
spaced, in halves or rot13'd; the plain net let all of those through. The egress check
decodes what it is given in every reading (:func:`shell.core.secrets.secret_going_out`),
which costs a search of the shapes per reading: too much for every line of a build log.
Here it is turned around: each known value is spelled once per set of values, in each
spelling that can be written out ahead (base64 and base32 at each offset, hex, escapes,
percent-encoding …) or written as an expression (its letters and digits in order, any
case, up to seven other characters between them, line breaks among them: spaced,
grouped, dashed, folded over lines; reversed; rot13 and atbash, as they are and
reversed; each half of it and every other letter of it when random-looking). A text is
first read for plain anchors of them all (the letters of the text alone, its hex digits
alone, and the text as it is, each against an RE2 set of plain strings: finding D18,
the expressions themselves cost seconds a command past ~100 values), then in full for
the values those name only. A line holding one is withheld whole: a spelling cannot be
cut out letter by letter.

What is not read here (the egress check reads some of it): a value encoded twice,
compressed, encrypted, or in bits, base85, uuencode or numbers; base64 wrapped inside it;
more than seven characters between its letters; a Caesar shift other than rot13 (24
more expressions a value: finding C5 measured it too slow for every output); every
third letter; folded over lines of four letters or fewer.
"""

from __future__ import annotations

import base64
import bisect
import re
import string
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from shell.core.secrets import TOO_LONG, Secrets, secret_going_out

AS_WRITTEN = "as written"
"""The group of forms :func:`holds_any` looks for as they are."""
MIN_SPELLED = 8
"""Letters and digits a value (or a half of one) needs to be looked for spelled otherwise."""
MAX_SPELLED = 256
"""Longest value looked for spelled otherwise (a key, a password; not a certificate)."""
MAX_VALUES = 2048
"""Values looked for spelled otherwise, the first given (each adds ~0.4 ms to compiling
the anchors, once per set of values: :func:`_anchors`; the values net's own bound,
``hiddenvalues.MAX_VALUES``). The rest are still taken out as written by the caller's
plain net."""
GAP = r"[^0-9A-Za-z]{0,7}"
"""What may stand between two letters of a value spelled with separators: up to seven
characters that are no letter or digit, a line break among them (finding C5: ``sed
's/./&    /g'`` put four spaces, ``fold -w7`` a line break every seven letters; past
three, nothing was read). A spelling so spread is at most eight times its value's
length: what a stream holds back before a cut (``hiddenvalues.SPELLED_ROOM``)."""
_NOT_ALNUM = re.compile(r"[^0-9A-Za-z]+")
_HEX_GAP = r"[\s:,.-]{0,2}(?:\\x|0x)?"
"""What may stand between two bytes of hex: ``73 6b``, ``73:6b``, ``\\x73\\x6b``, ``0x73,0x6b``."""


def _folded(value: str) -> str:
    return _NOT_ALNUM.sub("", value)


def _random_looking(piece: str) -> bool:
    return any(c.isdigit() for c in piece) and any(c.isalpha() for c in piece)


def _gapped(letters: str) -> str:
    """``letters`` in order, any case, with up to seven separators between them."""
    return GAP.join(re.escape(c) for c in letters)


def _shifted_letters(letters: str, by: int) -> str:
    """``letters`` with each Latin letter moved ``by`` places on in the alphabet, its
    case kept (a Caesar cipher: ``tr a-zA-Z b-zaB-ZA`` is one place, rot13 thirteen)."""
    lower, upper = string.ascii_lowercase, string.ascii_uppercase
    table = str.maketrans(lower + upper, lower[by:] + lower[:by] + upper[by:] + upper[:by])
    return letters.translate(table)


def ciphered(letters: str, every_shift: bool = False) -> list[tuple[str, str]]:
    """Each one-step letter cipher of ``letters`` a model can ask of ``tr`` (finding C5:
    ``tr a-zA-Z b-zaB-ZA``, rot13 of the value reversed), as it is and reversed, by how
    it hides it: rot13 and atbash, and with ``every_shift`` the 24 other Caesar shifts.
    The values net reads rot13 and atbash only: each spelling is one more expression a
    value in its one pass over all output, and 48 more made it too slow; the egress check
    reads them all (a look-up a spelling, once per call)."""
    atbash = letters.translate(_ATBASH)
    found = [("rot13", _shifted_letters(letters, 13)),
             ("reversed and rot13'd", _shifted_letters(letters[::-1], 13)),
             ("in atbash", atbash), ("reversed, in atbash", atbash[::-1])]
    for by in (*range(1, 13), *range(14, 26)) if every_shift else ():
        found += [(SHIFTED, _shifted_letters(letters, by)),
                  (f"reversed and {SHIFTED}", _shifted_letters(letters[::-1], by))]
    return found


SHIFTED = "shifted in the alphabet (a Caesar cipher)"
_ATBASH = str.maketrans(string.ascii_lowercase + string.ascii_uppercase,
                        string.ascii_lowercase[::-1] + string.ascii_uppercase[::-1])


def _shifted(raw: bytes, encode: Any, group: int, bits: int) -> list[str]:
    """What ``raw`` encodes to after each count of leading bytes (0 … ``group``-1): the
    letters of that encoding that depend on ``raw`` alone, ``bits`` bits a letter."""
    found: list[str] = []
    for lead in range(group):
        spelled = encode(b"\0" * lead + raw).decode().rstrip("=")
        start = -(-8 * lead // bits)
        end = 8 * (lead + len(raw)) // bits
        if end - start >= MIN_SPELLED:
            found.append(spelled[start:end])
    return found


def _literals(value: str) -> dict[str, list[str]]:
    """The spellings of ``value`` that can be written out ahead, by how they hide it."""
    raw = value.encode("utf-8", "surrogatepass")
    b64 = _shifted(raw, base64.b64encode, 3, 6)
    return {
        "base64-encoded": [*b64, *(s.translate(str.maketrans("+/", "-_")) for s in b64)],
        "base32-encoded": _shifted(raw, base64.b32encode, 5, 5),
        "as escapes": ["".join(f"\\u{ord(c):04x}" for c in value), "".join(f"\\x{b:02x}" for b in raw),
                       "".join(f"&#{ord(c)};" for c in value), "".join(f"&#x{ord(c):x};" for c in value)],
        "percent-encoded": ["".join(f"%{b:02x}" for b in raw)],
    }


LETTERS_A_PASS = 512
"""Letters of values (folded: about 16 keys) one RE2 expression looks for; more are
searched in more passes. Placing a match runs RE2 backwards from where it ends, and
the states of an expression for many values ran out of RE2's memory, which then falls
back to a search a thousand times slower: 64 KB of output holding five values took
300 ms past 75 keys (2 ms at 50), and a megabyte of a build log 16 s with all 256
(finding C5's measures; in passes of this size 2-5 ms)."""
@lru_cache(maxsize=16)
def _passes(
    values: tuple[str, ...], written: tuple[str, ...], kept: tuple[str, ...], letters_a_pass: int
) -> tuple[tuple[dict[str, list[str]], ...], dict[str, str]]:
    """The expressions of every spelling of ``values`` by way of hiding, in passes of
    ``letters_a_pass`` letters of values (``written``, the forms looked for as they are,
    in the first); and what each written-out spelling stands for, and each value by its
    folded letters. A half that a ``kept`` value holds (one the call may show: a shown
    file's, committed code's) is not looked for: it would withhold that value's lines."""
    value_of: dict[str, str] = {}
    shown = "\n".join(_folded(k).lower() for k in kept)
    passes = _groups_of(values, letters_a_pass) or ((),)
    found = []
    for n, some in enumerate(passes):
        groups = _groups(tuple(some), shown, value_of)
        if written and not n:
            groups[AS_WRITTEN] = [re.escape(w) for w in written if w.isascii()]
        if groups:
            found.append(groups)
    return tuple(found), value_of


@lru_cache(maxsize=128)
def _expression(
    values: tuple[str, ...], kept: tuple[str, ...] = ()
) -> tuple[tuple[tuple[Any, dict[bytes, str]], ...], dict[str, str]]:
    """RE2 expressions of every spelling of ``values`` (:func:`_passes`), a group per way
    of hiding, each with its groups' names; and what each spelling stands for."""
    import re2  # type: ignore[import-untyped]

    from .secretmatcher import options

    passes, value_of = _passes(values, (), kept, LETTERS_A_PASS)
    compiled = []
    for groups in passes:
        body = "|".join(f"(?P<g{n}>{_either(how, parts)})" for n, (how, parts) in enumerate(groups.items()))
        names = {f"g{n}".encode(): how for n, how in enumerate(groups)}
        compiled.append((re2.compile(body.encode("ascii"), options=options()), names))
    return tuple(compiled), value_of


_LOWER_BYTES = bytes.maketrans(string.ascii_uppercase.encode(), string.ascii_lowercase.encode())
_NOT_ALNUM_BYTES = bytes(b for b in range(256) if not (b < 128 and chr(b).isalnum()))
_NOT_HEX_BYTES = bytes(b for b in range(256) if not (b < 128 and chr(b) in "0123456789abcdef"))


def _letters_read(data: bytes) -> bytes:
    """``data``'s (UTF-8) ASCII letters and digits alone, lower-cased: every spelling read
    with separators (:data:`GAP`) is, so read, its letters as they are."""
    return data.translate(_LOWER_BYTES, _NOT_ALNUM_BYTES)


def _hex_read(data: bytes) -> bytes:
    """``data``'s (UTF-8) hex digits alone, lower-cased, each ``0x`` taken out first: hex
    read with separators and prefixes (``73:6b``, ``\\x73\\x6b``, ``0x73,0x6b``) is, so
    read, its hex as it is, but for its last digit when an ``x`` follows it (``…30x``)."""
    return data.translate(_LOWER_BYTES).replace(b"0x", b"").translate(None, _NOT_HEX_BYTES)


def _as_it_is(data: bytes) -> bytes:
    return data


_READINGS = (_letters_read, _hex_read, _as_it_is)
"""How a text is read for the anchors of :func:`_anchors`, in their order."""


ANCHOR_VALUES = 1024
"""Values whose anchors one RE2 set holds (at 2,048 a set of the written-out spellings
would not compile; 512 a set cost twice the time of 1,024 over the same output); more
are read in more sets."""


@lru_cache(maxsize=16)
def _anchors(
    values: tuple[str, ...], written: tuple[str, ...], kept: tuple[str, ...]
) -> tuple[tuple[tuple[Any, tuple[str, ...]], ...], ...]:
    """For each of :data:`_READINGS`: RE2 sets of the plain strings that every spelling
    of ``values`` (:func:`_spellings`) and every form in ``written`` becomes so read, and
    the value each stands for (``""``: a written form). Plain strings only, so a set is a
    trie RE2 keeps as a DFA whatever the number of values (finding D18: the spellings'
    own expressions, separators between each letter, ran out of the DFA's memory past
    ~30 values and cost seconds a command); a text no anchor is in holds no spelling,
    and one that holds some is read in full for those values only."""
    import re2

    from .secretmatcher import options

    shown = "\n".join(_folded(k).lower() for k in kept)
    readings: tuple[list[tuple[tuple[str, str], ...]], ...] = ([], [], [])
    for first in range(0, max(len(values), 1), ANCHOR_VALUES):
        written_out = [(re.escape(w), "") for w in written if w.isascii()] if not first else []
        anchors: tuple[list[tuple[str, str]], ...] = ([], [], written_out)
        for value in values[first : first + ANCHOR_VALUES]:
            for _how, kind, spelled in _spellings(value, shown):
                if kind == GAPPED:
                    anchors[0].append((spelled.lower(), value))
                elif kind == HEXED:
                    anchors[1].append((spelled[:-2], value))  # (its last pair: an x after it takes a 0 out)
                else:
                    wrap = "(?i:{})" if kind == ANY_CASE else "{}"
                    anchors[2].append((wrap.format(re.escape(spelled)), value))
        for reading, held in zip(readings, anchors, strict=True):
            if held:
                reading.append(tuple(held))
    found = []
    for reading in readings:
        sets = []
        for chunk in reading:
            teller = re2.Set.SearchSet(options())
            for pattern, _ in chunk:
                teller.Add(pattern.encode("ascii"))
            teller.Compile()
            sets.append((teller, tuple(value for _, value in chunk)))
        found.append(tuple(sets))
    return tuple(found)


def may_hold(
    text: str, values: tuple[str, ...], written: tuple[str, ...], kept: tuple[str, ...] = ()
) -> tuple[tuple[str, ...], bool]:
    """The values of ``values`` that ``text`` may hold in a spelling read here (the rest
    it holds in none), and whether it may hold one of ``written`` as it is: three passes
    over plain strings, whatever the number of values. A form that is not ASCII is
    not looked for here: ``True`` then, the caller's own search decides."""
    spelled: dict[str, None] = {}
    as_written = any(not w.isascii() for w in written)
    sent = text.encode("utf-8", "surrogatepass")
    for read, sets in zip(_READINGS, _anchors(_first(values), written, kept), strict=True):
        data = read(sent) if sets else b""
        for teller, value_of in sets:
            for index in teller.Match(data) or ():  # (None: no match)
                if value_of[index]:
                    spelled[value_of[index]] = None
                else:
                    as_written = True
    return tuple(spelled), as_written


def _either(how: str, parts: list[str]) -> str:
    """``parts`` as one alternative, read in any case but for the spellings that are not."""
    exact = ("base64-encoded", "base32-encoded", AS_WRITTEN)
    return f"(?{'' if how in exact else 'i'}:{'|'.join(parts)})"


GAPPED, HEXED, LITERAL, ANY_CASE = "gapped", "hexed", "literal", "any case"
"""Kinds of spelling :func:`_spellings` gives: a value's folded letters read with
separators in any case, its hex read with separators, a text read exactly, a text read
in any case."""


def _spellings(value: str, shown: str) -> list[tuple[str, str, str]]:
    """Each spelling of ``value`` read here: how it hides it, its kind (:data:`GAPPED` …)
    and the spelling. The one list both searches are built from: the full expressions
    (:func:`_groups`) and the anchors that tell which values a text may hold
    (:func:`_anchors`). A half that a ``shown`` value holds is left out."""
    folded = _folded(value)
    if not MIN_SPELLED <= len(folded) <= MAX_SPELLED:
        return []
    found = [("spelled with separators or in another case", GAPPED, folded),
             ("reversed", GAPPED, folded[::-1])]
    found += [(how, GAPPED, spelled) for how, spelled in ciphered(folded)]
    half = -(-len(folded) // 2)
    for how, piece in (("a half of it", folded[:half]), ("a half of it", folded[-half:]),
                       (EVERY_OTHER, folded[0::2]), (EVERY_OTHER, folded[1::2])):
        if len(piece) >= MIN_SPELLED and _random_looking(piece) and piece.lower() not in shown:
            found.append((how, GAPPED, piece))
    found.append(("hex-encoded", HEXED, value.encode("utf-8", "surrogatepass").hex()))
    for how, spellings in _literals(value).items():
        kind = LITERAL if how in ("base64-encoded", "base32-encoded") else ANY_CASE
        found += [(how, kind, spelling) for spelling in spellings]
    return found


def _groups(values: tuple[str, ...], shown: str, value_of: dict[str, str]) -> dict[str, list[str]]:
    """The expressions of each way ``values`` may be hidden, by how; what each spelling
    stands for goes into ``value_of`` (folded spellings as ``folded:<letters>``)."""
    groups: dict[str, list[str]] = {}
    for value in values:
        for how, kind, spelled in _spellings(value, shown):
            if kind == GAPPED:
                if how != "reversed":  # (a reversed match is read back to the value's own letters)
                    value_of.setdefault("folded:" + spelled.lower(), value)
                groups.setdefault(how, []).append(_gapped(spelled))
            elif kind == HEXED:
                value_of.setdefault(spelled, value)
                pairs = (spelled[i : i + 2] for i in range(0, len(spelled), 2))
                groups.setdefault(how, []).append(r"(?:\\x|0x)?" + _HEX_GAP.join(pairs))
            else:
                value_of.setdefault(spelled.lower(), value)
                groups.setdefault(how, []).append(re.escape(spelled))
    return groups


EVERY_OTHER = "every other letter of it"


_HEX_NOISE = re.compile(r"\\x|0x|[\s:,.-]", re.IGNORECASE)


def _first(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))[:MAX_VALUES]


def _hits(text: str, values: Iterable[str], kept: tuple[str, ...] = ()) -> list[tuple[int, int, str, str]]:
    """Each place ``text`` holds one of ``values`` spelled otherwise: its start and end
    (bytes of its UTF-8), how it is hidden, and the value. Only the values its anchors
    say it may hold (:func:`may_hold`) are searched in full: the full expressions of a
    few hundred values cost seconds on a command's output (finding D18)."""
    chosen = _first(values)
    among = set(may_hold(text, chosen, (), kept)[0])
    data = text.encode("utf-8", "surrogatepass")
    found: list[tuple[int, int, str, str]] = []
    for group in _groups_of(chosen) if among else ():
        if among.isdisjoint(group):
            continue
        parts, value_of = _expression(group, kept)  # (one pass: a group is what one pass holds)
        for regex, names in parts:
            found += _placed(regex, names, data, value_of)
    return sorted(found)


@lru_cache(maxsize=16)
def _groups_of(values: tuple[str, ...], letters_a_pass: int = LETTERS_A_PASS) -> tuple[tuple[str, ...], ...]:
    """``values`` in groups of ``letters_a_pass`` letters (what one pass of
    :func:`_passes` reads): each group's expression is compiled once, when an output first holds one of
    its values, and read only for an output whose anchors name one of them; the groups
    an output names change from one output to the next, the groups do not."""
    groups: list[list[str]] = [[]]
    letters = 0
    for value in values:
        if letters >= letters_a_pass:
            groups.append([])
            letters = 0
        groups[-1].append(value)
        letters += min(len(value), MAX_SPELLED)
    return tuple(tuple(group) for group in groups if group)


def _placed(
    regex: Any, names: dict[bytes, str], data: bytes, value_of: dict[str, str]
) -> list[tuple[int, int, str, str]]:
    """Where ``regex`` (one pass of :func:`_expression`) matches ``data``, as :func:`_hits` says it."""
    found: list[tuple[int, int, str, str]] = []
    for match in regex.finditer(data):
        group = next(name for name, got in match.groupdict().items() if got is not None)
        how = names[group]
        said = match.group().decode("utf-8", "surrogatepass")
        if how == "hex-encoded":
            key = _HEX_NOISE.sub("", said).lower()
        elif how in _WRITTEN_OUT:
            key = said.lower()
        else:
            letters = _folded(said).lower()
            key = "folded:" + (letters[::-1] if how == "reversed" else letters)
        found.append((match.start(), match.end(), how, value_of.get(key, "")))
    return found


MIN_PIECE_LINE = 5
"""Letters a short line needs before it is taken for a piece of a spelling folded over
lines (fewer stand in any value's letters by chance: an ``ok`` or ``done`` line)."""


def may_continue(line: str, values: Iterable[str], kept: tuple[str, ...] = ()) -> bool:
    """Whether ``line`` (a line of output with no end yet in view) may be a piece of one
    of ``values`` spelled over several lines (finding C5: ``fold -w7`` put seven letters a
    line, and a stream that shows whole lines as they come showed the first before the
    rest could be read): its letters, :data:`MIN_PIECE_LINE` or more, stand in one of
    the spellings read here. A stream holds such a line back until the next one."""
    letters = _folded(line).lower()
    return len(letters) >= MIN_PIECE_LINE and letters in _spelled_letters(_first(values), kept)


@lru_cache(maxsize=16)
def _spelled_letters(values: tuple[str, ...], kept: tuple[str, ...]) -> str:
    """The folded letters of every spelling of ``values`` read with separators, one a line."""
    value_of = _passes(values, (), kept, LETTERS_A_PASS)[1]
    return "\n".join(key[7:] for key in value_of if key.startswith("folded:"))


def holds_any(
    text: str, values: tuple[str, ...], written: tuple[str, ...], kept: tuple[str, ...] = ()
) -> bool:
    """Whether ``text`` may hold one of ``values`` in any spelling here, or one of
    ``written`` as it is (:func:`may_hold`): output holding none (nearly all of it) costs
    these passes for the plain net and this one together."""
    spelled, as_written = may_hold(text, values, written, kept)
    return bool(spelled) or as_written


_WRITTEN_OUT = ("base64-encoded", "base32-encoded", "as escapes", "percent-encoded")


def first_spelled(text: str, values: Iterable[str]) -> tuple[str, str] | None:
    """How ``text`` holds one of ``values`` spelled otherwise (``reversed``), and the
    value; ``None`` when it holds none."""
    hits = _hits(text, values)
    return (hits[0][2], hits[0][3]) if hits else None


def spelled_spans(text: str, values: Iterable[str], kept: tuple[str, ...] = ()) -> list[tuple[int, int]]:
    """Where (start and end, in characters) ``text`` holds one of ``values`` spelled
    otherwise: for a stream that must not cut one in two."""
    data = text.encode("utf-8", "surrogatepass")

    def chars(at: int) -> int:
        return len(data[:at].decode("utf-8", "surrogatepass"))

    return [(chars(start), chars(end)) for start, end, _, _ in _hits(text, values, kept)]


OWN_KEYS = "one of this run's own keys"
"""Whose a value is that the run's environment or config holds (an MCP server's key)."""


def withheld(how: str, whose: str = OWN_KEYS) -> str:
    """What stands for a line that held a known value in another spelling."""
    return f"[REDACTED: a line holding {whose}, {how}]"


def spelled_lines(
    text: str, values: Iterable[str], whose: str, kept: tuple[str, ...] = ()
) -> tuple[str, list[str]]:
    """``text`` with each line that holds one of ``values`` spelled otherwise withheld
    (:func:`withheld`; each line a spelling runs over: hex may be wrapped), and the
    values so found (one a spelling found)."""
    data = text.encode("utf-8", "surrogatepass")
    hits = _hits(text, values, kept)
    if not hits:
        return text, []
    breaks = [n for n, byte in enumerate(data) if byte == 10] if b"\n" in data else []
    lines = text.split("\n")
    found: list[str] = []
    for start, end, how, value in hits:
        first, last = bisect.bisect_left(breaks, start), bisect.bisect_left(breaks, max(start, end - 1))
        for index in range(first, last + 1):
            lines[index] = withheld(how, whose)
        found.append(value)
    return "\n".join(lines), found


def decoded_lines(text: str, known: Secrets, whose: str) -> tuple[str, list[str]]:
    """``text`` with each line that holds one of ``known``'s values in another spelling
    (base64, hex, reversed, bits, base85, uuencode, numbers …: every reading the egress
    check decodes, :func:`shell.core.secrets.secret_going_out`) withheld, and the values so
    found: more than :func:`spelled_lines` reads, at the cost of a search per reading, for
    what is capped (an MCP answer, finding Z7: a server that is not sandboxed reads the
    ``.env`` itself). The text is read whole (a value wrapped over lines: then, when no
    one line holds it, the whole text is withheld) and line by line, whatever the whole
    said (finding A8: read whole, a line's base64 joined with the next line's first word
    and came out as noise, and the lines were never read). Lines shorter than the
    shortest value are skipped: no spelling read here is shorter than its value."""
    whole = secret_going_out(text, known)
    lines = text.split("\n")
    shortest = min((len(value) for value in known.values), default=0)
    hits = [whole] if len(lines) == 1 else [
        secret_going_out(line, known) if len(line) >= shortest else None for line in lines]
    found: list[str] = []
    for i, hit in enumerate(hits):
        if hit is not None and hit[0] != TOO_LONG:
            lines[i] = withheld(hit[0].split(", ", 1)[-1], whose)  # how it is spelled, not whose it is
            found.append(hit[1])
    if not found and whole is not None and whole[0] != TOO_LONG:
        return withheld(whole[0].split(", ", 1)[-1], whose), [whole[1]]
    return "\n".join(lines), found


__all__ = ["AS_WRITTEN", "EVERY_OTHER", "GAP", "MAX_SPELLED", "MIN_SPELLED", "OWN_KEYS", "ciphered",
           "decoded_lines", "first_spelled",
           "holds_any", "may_continue", "may_hold", "spelled_lines", "spelled_spans", "withheld"]
