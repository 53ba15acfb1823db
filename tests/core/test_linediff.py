"""The one line diff every view of a file change uses (approval questions, tool
results): whatever the input, it finishes in bounded work, its text is cut with a
note that says how much is left out, and what it shows is a correct diff."""

from __future__ import annotations

import difflib
import random

from shell.core import linediff


def _lines(n: int) -> list[str]:
    return [f"line {i} original\n" for i in range(n)]


def _every_other_changed(a: list[str]) -> list[str]:
    return [line.replace("original", "CHANGED") if i % 2 == 0 else line for i, line in enumerate(a)]


def _applied(a: list[str], b: list[str], ops: list[linediff.Opcode]) -> list[str]:
    """The new text the opcodes describe (checking that each equal run really is equal)."""
    out: list[str] = []
    at_a = at_b = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (at_a, at_b), "the opcodes must cover both sides without gaps"
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        out += b[j1:j2]
        at_a, at_b = i2, j2
    assert (at_a, at_b) == (len(a), len(b))
    return out


def test_a_hundred_thousand_lines_with_every_other_one_changed_is_a_cut_diff_with_the_totals() -> None:
    """The tester's case (difflib alone had not finished after five minutes)."""
    a = _lines(100_000)
    b = _every_other_changed(a)
    text = "".join(linediff.unified_diff(a, b, "a/big.txt", "b/big.txt"))
    lines = text.splitlines()
    assert lines[:3] == ["--- a/big.txt", "+++ b/big.txt", "@@ -1,100000 +1,100000 @@"]
    assert lines[3:6] == ["-line 0 original", "+line 0 CHANGED", " line 1 original"]
    assert len(lines) == linediff.MAX_DIFF_LINES + 1
    assert lines[-1] == ("… the diff is cut here: 148003 more lines of it not shown; "
                         "50000 lines removed and 50000 added in all")
    assert _applied(a, b, linediff.opcodes(a, b)) == b


def test_a_diff_whose_work_budget_is_spent_is_still_correct_only_coarser() -> None:
    a = _lines(3000)
    b = _every_other_changed(a)
    for budget in (0, 10, 5000):
        ops = linediff.opcodes(a, b, budget=budget)
        assert _applied(a, b, ops) == b
    # no budget: one replacement between the lines both ends share (the last line is unchanged)
    coarse = [("replace", 0, 2999, 0, 2999), ("equal", 2999, 3000, 2999, 3000)]
    assert linediff.opcodes(a, b, budget=0) == coarse


def test_small_changes_are_correct_diffs_in_difflib_s_format() -> None:
    rng = random.Random(7)
    for _ in range(500):
        a = [rng.choice("abcdef") + "\n" for _ in range(rng.randint(0, 25))]
        new = [rng.choice("abcdefg") + "\n" for _ in range(3)]
        b = a[: rng.randint(0, len(a))] + new + a[rng.randint(0, len(a)):]
        assert _applied(a, b, linediff.opcodes(a, b)) == b
    both = [f"{i}\n" for i in range(20)]
    changed = [*both[:5], "five\n", *both[6:15], *both[16:]]
    assert "".join(linediff.unified_diff(both, changed, "a/x", "b/x")) == "".join(
        difflib.unified_diff(both, changed, "a/x", "b/x"))
    one = "".join(linediff.unified_diff(["a\n", "b\n", "c\n"], ["a\n", "B\n", "c\n"], "a/f", "b/f"))
    assert one == "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    assert list(linediff.unified_diff(["same\n"], ["same\n"], "a/f", "b/f")) == []
