"""The compiled form of the one secrets policy's shapes and values (for
:mod:`shell.core.secrets`, kept apart only for size): one RE2 expression over the
UTF-8 bytes, matched in a single linear-time pass, and what a match means (its kind,
the context kept around it, a check that may veto it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from shell.core.secretshapes import SHAPES, Shape

REDACTED = "[REDACTED]"


def options() -> Any:
    import re2  # type: ignore[import-untyped]  # (~3-4 ms, on the way to no start: only a redaction compiles)

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1  # any bytes, surrogates' included
    options.log_errors = False
    options.max_mem = 128 << 20  # 64 MB: with M4's 83 shapes the DFA ran out, 20x slower on code
    return options


@dataclass(frozen=True, slots=True)
class Alternative:
    name: str
    group: int
    keep: int | None
    tail: int | None
    check: Callable[[bytes, bytes], bool] | None


Compiled = tuple[Any, dict[int, Alternative]]
"""One RE2 expression and what each of its alternatives means, by group number."""


@lru_cache(maxsize=32)
def compiled(values: tuple[str, ...], patterns: bool) -> Compiled | None:
    """Every value and (with ``patterns``) every shape as one expression: what redaction
    replaces in one pass (leftmost match first)."""
    if not values and not patterns:
        return None  # (NO_SECRETS, made at import: re2 is not needed for it)
    return _expression(values, tuple(enumerate(SHAPES)) if patterns else ())


PART_SHAPES = 12
"""Shapes in one expression of :func:`compiled_parts`."""


@lru_cache(maxsize=32)
def compiled_parts(values: tuple[str, ...], patterns: bool) -> tuple[Compiled, ...]:
    """The same values and shapes as several smaller expressions: the values, then the
    shapes a dozen at a time, for a search that only asks whether (and which) a text
    holds one (finding Z5). RE2 builds its DFA's states as a text needs them, and with
    all 84 shapes in one expression a state is a set of thousands of places: 60 KB of
    uuencode or base64 letters, each new reading of it, cost 0.1-0.9 s in building states
    before it was read at speed; a dozen shapes at a time build few small states."""
    numbered = tuple(enumerate(SHAPES)) if patterns else ()
    found = [_expression(values, ())] if values else []
    found += [_expression((), numbered[at : at + PART_SHAPES]) for at in range(0, len(numbered), PART_SHAPES)]
    return tuple(e for e in found if e is not None)


def _expression(values: tuple[str, ...], shapes: tuple[tuple[int, Shape], ...]) -> Compiled | None:
    import re2

    parts: list[str] = []
    names: list[tuple[str, Shape | None]] = []
    if values:
        literal = "|".join(re2.escape(v.encode("utf-8", "surrogatepass")).decode("latin-1") for v in values)
        parts.append(f"(?P<v>{literal})")
        names.append(("v", None))
    for n, shape in shapes:
        body = shape.pattern.replace("(?P<keep>", f"(?P<k{n}_>").replace("(?P<tail>", f"(?P<t{n}_>")
        body = body.replace("(?P<quote>", f"(?P<q{n}_>")
        parts.append(f"(?P<s{n}_>{body})")
        names.append((f"s{n}_", shape))
    if not parts:
        return None
    regex = re2.compile("|".join(parts).encode("latin-1"), options=options())
    index = {k.decode(): v for k, v in regex.groupindex.items()}
    table: dict[int, Alternative] = {}
    for group, known in names:
        tag = group[1:-1]
        table[index[group]] = Alternative(
            known.name if known else "a secret value of your environment or config", index[group],
            index.get(f"k{tag}_"), index.get(f"t{tag}_"), known.check if known else None,
        )
    return regex, table


def first_match(parts: tuple[Compiled, ...], data: bytes) -> tuple[str, bytes] | None:
    """The kind and the secret of the first match in ``data`` of any of ``parts``
    (:func:`compiled_parts`), by where the secret starts; ``None`` when none matches."""
    best: tuple[int, str, bytes] | None = None
    for regex, table in parts:
        kinds: list[tuple[str, bytes]] = []
        spans: list[tuple[int, int]] = []
        substitute(regex, table, data, None, kinds, spans)
        if kinds and (best is None or spans[0][0] < best[0]):
            best = (spans[0][0], *kinds[0])
    return None if best is None else best[1:]


@lru_cache(maxsize=1)
def hidden_characters() -> Any:
    """What :func:`~shell.core.textsafety.without_hidden` takes away, as RE2 over UTF-8."""
    import re2

    from .textsafety import HIDDEN_PATTERN

    options = re2.Options()
    options.log_errors = False
    return re2.compile(HIDDEN_PATTERN.encode("utf-8"), options=options)


REDACTED_BYTES = REDACTED.encode()


def substitute(regex: Any, table: dict[int, Alternative], data: bytes,
                found: list[bytes] | None = None, kinds: list[tuple[str, bytes]] | None = None,
                spans: list[tuple[int, int]] | None = None, offset: int = 0) -> bytes:
    """``data`` with each match replaced; ``data`` itself when nothing matched. A
    match its check vetoes (``password=self.password``) is searched again past its
    name, so a real token inside it is still found. ``found`` collects the values
    that were recognised only by their context (``password=…``, a URL's password):
    nothing else would know them again once the context is gone. ``kinds`` collects
    each match's kind and the secret itself (for a question that names it, masked)."""

    def replace(match: Any) -> bytes:
        alt = table[match.lastindex]
        start, end = match.span()
        head = match.end(alt.keep) if alt.keep is not None else start
        tail = match.start(alt.tail) if alt.tail is not None else end
        if alt.check is not None and not alt.check(data[head:tail], data[end : end + 1]):
            rest = data[head:end]
            again = (substitute(regex, table, rest, found, kinds, spans, offset + head)
                     if head > start else rest)
            return data[start:head] + again
        if found is not None and alt.keep is not None:
            found.append(data[head:tail])
        if kinds is not None:
            kinds.append((alt.name, data[head:tail]))
        if spans is not None:
            spans.append((offset + head, offset + tail))
        return data[start:head] + REDACTED_BYTES + data[tail:end]

    out, count = regex.subn(replace, data)
    return data if count == 0 or out == data else bytes(out)


__all__ = ["PART_SHAPES", "REDACTED", "REDACTED_BYTES", "Alternative", "Compiled", "compiled",
           "compiled_parts", "first_match", "hidden_characters", "options", "substitute"]
