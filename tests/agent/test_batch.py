"""How a turn's calls are grouped into steps: mutating calls alone and in order,
read-only runs together; and the grouping costs one look per call (a hostile model
can send thousands of calls in one turn)."""

from __future__ import annotations

from shell.agent.batch import steps
from shell.core.messages import ToolCallBlock


def calls(names: str) -> list[ToolCallBlock]:
    return [ToolCallBlock(f"c{i}", name, {}) for i, name in enumerate(names.split())]


def grouped(names: str, parallel: bool = True) -> list[list[str]]:
    return [[c.name for c in step] for step in steps(calls(names), lambda c: c.name == "read", parallel)]


def test_mutating_calls_stand_alone_and_read_only_runs_group() -> None:
    assert grouped("read read write read read write write read") == [
        ["read", "read"], ["write"], ["read", "read"], ["write"], ["write"], ["read"]]
    assert grouped("write read") == [["write"], ["read"]]
    assert grouped("read read", parallel=False) == [["read"], ["read"]]
    assert grouped("") == []


def test_grouping_looks_at_each_call_once() -> None:
    looked = 0

    def read_only(call: ToolCallBlock) -> bool:
        nonlocal looked
        looked += 1
        return True

    many = calls("read " * 5000)
    assert [len(step) for step in steps(many, read_only, True)] == [5000]
    assert looked == 5000
