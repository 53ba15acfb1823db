"""``agent-shell acp`` as a subprocess, driven by the Python SDK's client side.

:class:`EditorClient` plays the editor: it records every ``session/update``,
answers ``session/request_permission`` with the option a test chooses, and, when
a test gives it the capabilities, serves ``fs/*`` from its own "buffers" (what
an editor holds unsaved) and ``terminal/*`` with real processes.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process
from acp.schema import (
    AcceptElicitationResponse,
    AgentMessageChunk,
    AgentThoughtChunk,
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeclineElicitationResponse,
    DeniedOutcome,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from tests.scripted_cli import provider_free_env

ROOT = Path(__file__).resolve().parents[2]


class EditorClient:
    """What an editor does, recorded for the test to look at."""

    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.permission_requests: list[Any] = []
        self.answer: Any = "allow_once"
        """The option id to pick (None: the user closed the dialog)."""
        self.answer_meta: dict[str, Any] | None = None
        self.reason: str | None = None
        """What the user types when asked why they rejected a call (None: declines)."""
        self.elicitations: list[tuple[str, Any]] = []
        self.buffers: dict[str, str] = {}
        """Unsaved editor buffers by absolute path (reads prefer them; writes land here)."""
        self.fs_log: list[tuple[str, str]] = []
        self.saves = False
        self.environ: dict[str, str] = {}  # the editor's own variables, over ours, in its terminals
        """Writes go to the disk too, as an editor that saves at once does."""
        self.terminals: dict[str, asyncio.subprocess.Process] = {}
        self.terminal_bytes: dict[str, bytearray] = {}
        self.terminal_commands: list[list[str]] = []
        self.pumps: list[asyncio.Future[None]] = []
        self.changed = asyncio.Event()

    # -- what the agent sends ---------------------------------------------------------
    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        self.changed.set()

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any
    ) -> Any:
        self.permission_requests.append((tool_call, options))
        self.changed.set()
        answer = self.answer(tool_call) if callable(self.answer) else self.answer
        if asyncio.iscoroutine(answer):
            answer = await answer
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        if answer == "wait":
            await asyncio.sleep(3600)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer), field_meta=self.answer_meta
        )

    async def read_text_file(
        self, path: str, session_id: str, limit: int | None = None, line: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        self.fs_log.append(("read", path))
        if path in self.buffers:
            text = self.buffers[path]
        else:
            try:  # a small file of the test's own: no need for a thread
                text = Path(path).read_text(encoding="utf-8")  # noqa: ASYNC240
            except OSError:
                raise RequestError.resource_not_found(path) from None
        lines = text.splitlines(keepends=True)
        start = (line or 1) - 1
        end = start + limit if limit is not None else None
        return ReadTextFileResponse(content="".join(lines[start:end]))

    async def write_text_file(
        self, content: str, path: str, session_id: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.fs_log.append(("write", path))
        self.buffers[path] = content
        if self.saves:  # an editor that saves at once
            Path(path).write_text(content, encoding="utf-8")  # noqa: ASYNC240
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        command: str,
        session_id: str,
        args: list[str] | None = None,
        cwd: str | None = None,
        env: Any = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        self.terminal_commands.append([command, *(args or [])])
        process = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            env={**os.environ, **self.environ, **{v.name: v.value for v in env or ()}},  # as editors do
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = process
        self.terminal_bytes[terminal_id] = bytearray()

        async def pump() -> None:
            assert process.stdout is not None
            while chunk := await process.stdout.read(4096):
                self.terminal_bytes[terminal_id] += chunk

        self.pumps.append(asyncio.ensure_future(pump()))
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        process = self.terminals[terminal_id]
        status = None
        if process.returncode is not None:
            await asyncio.sleep(0.05)  # let the pump catch up
            status = TerminalExitStatus(
                exit_code=process.returncode if process.returncode >= 0 else None,
                signal=None if process.returncode >= 0 else "SIGKILL",
            )
        return TerminalOutputResponse(
            output=self.terminal_bytes[terminal_id].decode("utf-8", "replace"),
            truncated=False,
            exit_status=status,
        )

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        code = await self.terminals[terminal_id].wait()
        return WaitForTerminalExitResponse(
            exit_code=code if code >= 0 else None, signal=None if code >= 0 else "SIGKILL"
        )

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> KillTerminalResponse:
        process = self.terminals[terminal_id]
        if process.returncode is None:
            process.kill()
        return KillTerminalResponse()

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse:
        return ReleaseTerminalResponse()

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        self.elicitations.append((message, mode))
        if self.reason is None:
            return DeclineElicitationResponse(action="decline")
        return AcceptElicitationResponse(action="accept", content={"reason": self.reason})

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        pass

    # -- what the test reads -------------------------------------------------------------
    def text(self, kind: type = AgentMessageChunk) -> str:
        return "".join(
            u.content.text
            for u in self.updates
            if isinstance(u, kind) and isinstance(u.content, TextContentBlock)
        )

    def thoughts(self) -> str:
        return self.text(AgentThoughtChunk)

    def user_text(self) -> str:
        return self.text(UserMessageChunk)

    def tool_updates(self, call_id: str | None = None) -> list[Any]:
        return [
            u
            for u in self.updates
            if isinstance(u, (ToolCallStart, ToolCallProgress))
            and (call_id is None or u.tool_call_id == call_id)
        ]

    def tool_status(self, call_id: str) -> str | None:
        statuses = [u.status for u in self.tool_updates(call_id) if u.status]
        return statuses[-1] if statuses else None

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 20.0) -> None:
        async def loop() -> None:
            while not predicate():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(loop(), timeout)


Spawn = Callable[..., Any]


@pytest.fixture
def acp_env(tmp_path: Path) -> dict[str, str]:
    """No provider, no user config, no user data: the agent sees only what a test gives it."""
    env = provider_free_env(tmp_path)
    env.update(
        PYTHONPATH=str(ROOT),
    )
    return env


@pytest.fixture
def spawn(acp_env: dict[str, str], workspace: Path) -> Spawn:
    """``async with spawn(client, "--model", spec) as conn``: an initialized connection."""

    @asynccontextmanager
    async def run(
        client: EditorClient, *args: str, capabilities: ClientCapabilities | None = None
    ) -> AsyncIterator[Any]:
        async with spawn_agent_process(
            client,
            sys.executable,
            "-m",
            "shell",
            "acp",
            *args,
            env=acp_env,
            cwd=workspace,
            use_unstable_protocol=True,  # elicitation/create is unstable
        ) as (conn, process):
            try:
                await asyncio.wait_for(
                    conn.initialize(
                        protocol_version=PROTOCOL_VERSION,
                        client_capabilities=capabilities or ClientCapabilities(),
                    ),
                    30,
                )
                yield conn
            finally:
                if process.returncode is None:
                    process.terminate()

    return run
