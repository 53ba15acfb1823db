"""The one line diff every view of a file change uses: bounded in time and size.

``difflib`` alone is quadratic on a file with many small changes (a 100 000-line
file with every other line changed did not finish in five minutes), and a diff
is computed while the user waits: for an approval question, and for the result
of every ``write_file`` / ``edit_file``. So the work here has a budget whatever
the input:

- lines both sides share at the start and the end are cut off first (linear);
- lines that occur exactly once on each side anchor the rest (a patience diff,
  ``O(n log n)``), and only the gaps between anchors go to ``difflib``;
- a gap ``difflib`` would take too long on, or any gap once the budget is spent,
  is shown as a plain replacement: still a correct diff (applying it gives the
  new text), only not the smallest one.

The text is bounded too: past :data:`MAX_DIFF_LINES` lines the diff stops with a
line that says how much is not shown and how many lines change in all.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Iterator, Sequence

from .textsafety import path_text

MAX_DIFF_LINES = 2000
"""Lines of diff text shown; a longer one ends with a note saying what is left out."""

GAP_BUDGET = 200_000
"""``difflib`` runs on a gap only when its two sides' line counts multiply to at most
this (difflib's worst case is about that product; 200 000 is a tenth of a second)."""

TOTAL_BUDGET = 2_000_000
"""All the work of one diff (lines looked at, and the products of gaps given to
difflib): past it, what is left is diffed as plain replacements."""

Opcode = tuple[str, int, int, int, int]


class _Budget:
    """Work left for one diff; every step that can grow with the input charges it."""

    def __init__(self, total: int) -> None:
        self.left = total

    def take(self, amount: int) -> bool:
        if amount > self.left:
            self.left = 0
            return False
        self.left -= amount
        return True


def opcodes(a: Sequence[str], b: Sequence[str], *, budget: int = TOTAL_BUDGET) -> list[Opcode]:
    """``difflib.SequenceMatcher(None, a, b).get_opcodes()`` in shape, computed in
    bounded work (see the module's docstring); consecutive equal runs are merged."""
    spent = _Budget(budget)
    out: list[Opcode] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        out_part, more = _range(a, b, alo, ahi, blo, bhi, spent)
        out.extend(out_part)
        stack.extend(reversed(more))  # ranges come back in order; the stack pops the last first
    return _merged(sorted(out, key=lambda op: (op[1], op[3])))


def _range(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int, spent: _Budget
) -> tuple[list[Opcode], list[tuple[int, int, int, int]]]:
    """The opcodes settled for one range, and the sub-ranges still to diff."""
    done: list[Opcode] = []
    start_a, start_b = alo, blo
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        alo, blo = alo + 1, blo + 1
    if alo > start_a:
        done.append(("equal", start_a, alo, start_b, blo))
    end_a, end_b = ahi, bhi
    while ahi > alo and bhi > blo and a[ahi - 1] == b[bhi - 1]:
        ahi, bhi = ahi - 1, bhi - 1
    if ahi < end_a:
        done.append(("equal", ahi, end_a, bhi, end_b))
    spent.take(end_a - ahi + end_b - bhi + alo - start_a + blo - start_b)
    if alo == ahi or blo == bhi:
        return done + _replaced(alo, ahi, blo, bhi), []
    if ahi - alo == 1 or bhi - blo == 1:  # the usual one-line change, without difflib's set-up
        return done + _one_line(a, b, alo, ahi, blo, bhi), []
    size = (ahi - alo) * (bhi - blo)
    if size <= GAP_BUDGET and spent.take(size):
        matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi])
        ops = matcher.get_opcodes()
        done += [(tag, i1 + alo, i2 + alo, j1 + blo, j2 + blo) for tag, i1, i2, j1, j2 in ops]
        return done, []
    if not spent.take((ahi - alo) + (bhi - blo)):
        return done + _replaced(alo, ahi, blo, bhi), []
    anchors = _unique_anchors(a, b, alo, ahi, blo, bhi)
    if not anchors:
        return done + _replaced(alo, ahi, blo, bhi), []
    more: list[tuple[int, int, int, int]] = []
    i, j = alo, blo
    for ai, bj in anchors:
        more.append((i, ai, j, bj))
        done.append(("equal", ai, ai + 1, bj, bj + 1))
        i, j = ai + 1, bj + 1
    more.append((i, ahi, j, bhi))
    return done, [r for r in more if r[0] < r[1] or r[2] < r[3]]


def _one_line(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> list[Opcode]:
    """A range with one line on a side: that line matches the first equal line of the
    other side, or nothing does."""
    if ahi - alo == 1:
        try:
            j = b.index(a[alo], blo, bhi)
        except ValueError:
            return _replaced(alo, ahi, blo, bhi)
        return [*_replaced(alo, alo, blo, j), ("equal", alo, ahi, j, j + 1), *_replaced(ahi, ahi, j + 1, bhi)]
    try:
        i = a.index(b[blo], alo, ahi)
    except ValueError:
        return _replaced(alo, ahi, blo, bhi)
    return [*_replaced(alo, i, blo, blo), ("equal", i, i + 1, blo, bhi), *_replaced(i + 1, ahi, bhi, bhi)]


def _replaced(alo: int, ahi: int, blo: int, bhi: int) -> list[Opcode]:
    if alo < ahi and blo < bhi:
        return [("replace", alo, ahi, blo, bhi)]
    if alo < ahi:
        return [("delete", alo, ahi, blo, blo)]
    if blo < bhi:
        return [("insert", alo, alo, blo, bhi)]
    return []


def _unique_anchors(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """The longest run of lines unique on both sides that keeps its order (patience
    sorting: ``O(n log n)``), as ``(index in a, index in b)`` pairs."""
    seen_a: dict[str, int] = {}
    for i in range(alo, ahi):
        seen_a[a[i]] = -1 if a[i] in seen_a else i
    seen_b: dict[str, int] = {}
    for j in range(blo, bhi):
        line = b[j]
        if seen_a.get(line, -1) >= 0:
            seen_b[line] = -1 if line in seen_b else j
    pairs = [(seen_a[line], j) for line, j in seen_b.items() if j >= 0]
    pairs.sort()
    tails: list[int] = []  # the b index that ends the best run of each length
    tail_at: list[int] = []  # which pair that is
    back: list[int] = []
    for k, (_, j) in enumerate(pairs):
        n = bisect.bisect_left(tails, j)
        back.append(tail_at[n - 1] if n else -1)
        if n == len(tails):
            tails.append(j)
            tail_at.append(k)
        else:
            tails[n], tail_at[n] = j, k
    run: list[tuple[int, int]] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    return run[::-1]


def _merged(ops: list[Opcode]) -> list[Opcode]:
    out: list[Opcode] = []
    for op in ops:
        if out and out[-1][0] == op[0] == "equal" and out[-1][2] == op[1]:
            out[-1] = ("equal", out[-1][1], op[2], out[-1][3], op[4])
        else:
            out.append(op)
    return out


def _grouped(ops: list[Opcode], n: int) -> Iterator[list[Opcode]]:
    """Hunks with ``n`` lines of context (``SequenceMatcher.get_grouped_opcodes``)."""
    codes = list(ops) or [("equal", 0, 1, 0, 1)]
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > n * 2:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def text_lines(text: str) -> list[str]:
    """``text`` cut into the lines a diff shows, each with its ``\\n``: at ``\\n`` alone.
    ``str.splitlines`` also ends a line at ``\\r``, ``\\v``, ``\\f``, ``\\x1c``..``\\x1e``,
    ``\\x85``, U+2028 and U+2029, which git, ``cat`` and an editor do not: new text
    ``hi\\x1b[2K\\rnothing here`` was shown as two lines (the first with a false "\\ No
    newline at end of file") for a file that ``cat`` shows as "nothing here" (finding
    P17). Kept in its line, the CR is shown as ``␍`` by the sanitiser."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _span(start: int, stop: int) -> str:
    length = stop - start
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


def unified_diff(
    a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str, *, n: int = 3,
    max_lines: int = MAX_DIFF_LINES,
) -> Iterator[str]:
    """``difflib.unified_diff(a, b, fromfile, tofile, n=n)`` (lines keep their ends),
    in bounded work, at most ``max_lines`` lines and then a note of what is left out.
    The file names are written as :func:`.textsafety.path_text` shows a path (``\\n``,
    ``\\x1b``): a name holding a newline forged header and hunk lines of its own in
    an approval's diff (tester finding L5)."""
    ops = opcodes(a, b)
    if all(op[0] == "equal" for op in ops):
        return
    groups = list(_grouped(ops, n))
    total = 2 + sum(1 + sum(_length(op) for op in group) for group in groups)
    yield f"--- {path_text(fromfile)}\n"
    yield f"+++ {path_text(tofile)}\n"
    room = max_lines - 2
    for group in groups:
        first, last = group[0], group[-1]
        lines = [f"@@ -{_span(first[1], last[2])} +{_span(first[3], last[4])} @@\n"]
        for tag, i1, i2, j1, j2 in group:
            if len(lines) > room:
                break
            if tag == "equal":
                lines += [" " + line for line in a[i1:i2]]
                continue
            lines += ["-" + line for line in a[i1:i2]]
            lines += ["+" + line for line in b[j1:j2]]
        if len(lines) > room:
            yield from lines[: max(0, room)]
            yield _not_shown(ops, total - max_lines)
            return
        room -= len(lines)
        yield from lines


def _length(op: Opcode) -> int:
    """Lines of diff text an opcode makes."""
    return op[2] - op[1] if op[0] == "equal" else op[2] - op[1] + op[4] - op[3]


def _not_shown(ops: list[Opcode], left: int) -> str:
    removed = sum(op[2] - op[1] for op in ops if op[0] != "equal")
    added = sum(op[4] - op[3] for op in ops if op[0] != "equal")
    return (f"… the diff is cut here: {left} more line{'' if left == 1 else 's'} of it not shown; "
            f"{removed} line{'' if removed == 1 else 's'} removed and {added} added in all\n")
