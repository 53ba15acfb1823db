"""Fixtures for the tool tests: a workspace, its built-in tools, and tool contexts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from shell.core.approvals import ApprovalDecision, ApprovalRequest
from shell.core.messages import ToolCallBlock, ToolResult
from shell.core.tools import Tool, ToolContext
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace


@dataclass
class Recorder:
    """A ToolContext's other end: collects progress and answers approval requests."""

    answer: str = "reject"
    progress: list[Any] = field(default_factory=list)
    asked: list[ApprovalRequest] = field(default_factory=list)

    def context(self, name: str, args: dict[str, Any]) -> ToolContext:
        async def ask(request: ApprovalRequest) -> ApprovalDecision:
            self.asked.append(request)
            return ApprovalDecision(self.answer, message="not there" if self.answer == "reject" else None)

        return ToolContext(ToolCallBlock("c1", name, args), self.progress.append, ask)


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    return Workspace(root)


@pytest.fixture
def tools(workspace: Workspace) -> dict[str, Tool]:
    return {t.name: t for t in builtin_tools(workspace)}


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


Call = Callable[..., Any]


@pytest.fixture
def call(tools: dict[str, Tool], recorder: Recorder) -> Call:
    """``await call("read_file", path="a.txt")``: validate and run like the agent does."""

    async def run(name: str, **args: Any) -> ToolResult:
        tool = tools[name]
        tool.validate(args)
        return await tool.run(args, recorder.context(name, args))

    return run
