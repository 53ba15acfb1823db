"""``agent-shell acp``: the agent side of the Agent Client Protocol over stdio.

:class:`AcpServer` implements the SDK's ``Agent`` interface: ``initialize``
(protocol version 1 and what we can do), ``session/new`` (a runtime in the
client's directory, with the client's MCP servers added to the config's),
``session/load`` and ``session/list`` (our session store: a conversation started
in the TUI can be continued in the editor and back), ``session/prompt``,
``session/cancel``, ``session/set_mode`` and ``session/set_config_option``.

stdout is the protocol: :func:`run_acp` takes the real stdin and stdout for the
connection and points file descriptors 0 and 1 elsewhere (``/dev/null`` and
stderr) before anything else runs, so no ``print``, no warning and no child
process can write a stray byte into the JSON stream or read the client's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import stat
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import anyio
from acp import PROTOCOL_VERSION, RequestError, run_agent
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from shell import __version__
from shell.config import ConfigError, Settings
from shell.core.textsafety import SafeLogFormatter
from shell.runtime import RuntimeOptions, ShellError, ShellRuntime

from .mcp_servers import mcp_specs
from .sdklog import UnknownNotificationLine
from .session import AcpSession, invalid, refused

if TYPE_CHECKING:
    from acp.interfaces import Agent

log = logging.getLogger("agent_shell.acp")

SESSIONS_PER_PAGE = 50
MODEL_LIST_WAIT = 3.0
"""Seconds ``session/new`` waits for the model list (it goes on in the background)."""
STDIO_LIMIT = 50 * 1024 * 1024
"""Largest JSON-RPC line read (images and attached files make long lines)."""


class AcpServer:
    """The agent an editor talks to: sessions by id, each an :class:`AcpSession`."""

    def __init__(self, options: RuntimeOptions, settings: Settings) -> None:
        self.options = options
        self.settings = settings
        self.client: Any = None
        self.capabilities: ClientCapabilities | None = None
        self.sessions: dict[str, AcpSession] = {}
        self.task_group: Any = None
        self._models: list[str] = []
        self._models_done = anyio.Event()
        self._models_started = False

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    # -- initialize ----------------------------------------------------------------
    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.capabilities = client_capabilities
        self._start_model_list()
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, audio=False, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            agent_info=Implementation(name="agent-shell", title="agent-shell", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse | None:
        return AuthenticateResponse()

    # -- models --------------------------------------------------------------------
    def _start_model_list(self) -> None:
        if self._models_started or self.task_group is None:
            return
        self._models_started = True
        self.task_group.start_soon(self._list_models)

    async def _list_models(self) -> None:
        from shell.providers.registry import list_models

        try:
            found = await list_models(self.settings, timeout=5.0)
        except Exception as exc:  # never worth failing a session over
            log.warning("listing the models failed: %s", exc)
            found = {}
        specs: list[str] = []
        for provider, names in found.items():
            if isinstance(names, list):
                specs.extend(n if n == provider else f"{provider}:{n}" for n in names)
        self._models = specs
        self._models_done.set()

    def models(self) -> Sequence[str]:
        return self._models

    async def _await_models(self) -> None:
        if self._models_started:
            with anyio.move_on_after(MODEL_LIST_WAIT):
                await self._models_done.wait()

    # -- sessions ------------------------------------------------------------------
    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        from shell.sessions import Redactor, SessionRecorder, SessionStore
        from shell.sessions.store import new_session_id

        runtime, notes = self._runtime(cwd, mcp_servers)
        session_id = new_session_id()
        runtime.session_recorder = SessionRecorder(
            SessionStore(),
            runtime.agent,
            session_id=session_id,
            cwd=str(runtime.workspace.root),
            redactor=Redactor.from_environment(runtime.settings),
        )
        session = await self._open(session_id, runtime, notes)
        return NewSessionResponse(
            session_id=session_id, modes=session.mode_state(), config_options=session.config_options()
        )

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        old = self.sessions.pop(session_id, None)
        if old is not None:  # the editor reopens a thread we still hold: let go of it first
            await old.close()
        from shell.sessions import SessionError, SessionStore

        try:  # the exact id: a prefix is for people typing, not for an editor
            exists = SessionStore().path(session_id).is_file()
        except SessionError:
            exists = False
        if not exists:
            raise refused(-32002, f"No saved session {session_id}", {"uri": session_id})
        runtime, notes = self._runtime(cwd, mcp_servers)
        try:
            loaded = runtime.resume(session_id)
        except ShellError as exc:
            await runtime.aclose()
            raise refused(-32002, f"Cannot load session {session_id}: {exc}", {"uri": session_id}) from None
        notes.extend(f"session {loaded.session_id}: {p}" for p in loaded.problems)
        session = await self._open(loaded.session_id, runtime, notes)
        await session.replay()
        return LoadSessionResponse(modes=session.mode_state(), config_options=session.config_options())

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        from shell.sessions import SessionStore

        start = int(cursor) if cursor and cursor.isdigit() else 0
        infos = await anyio.to_thread.run_sync(SessionStore().list, cwd)
        page = infos[start : start + SESSIONS_PER_PAGE]
        more = start + SESSIONS_PER_PAGE < len(infos)
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=info.id,
                    cwd=info.cwd or str(Path.home()),
                    title=info.title,
                    updated_at=datetime.fromtimestamp(info.updated, UTC).isoformat(timespec="seconds"),
                )
                for info in page
            ],
            next_cursor=str(start + SESSIONS_PER_PAGE) if more else None,
        )

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse | None:
        session = self.sessions.pop(session_id, None)
        if session is not None:
            await session.close()
        return CloseSessionResponse()

    def _runtime(self, cwd: str, mcp_servers: list[Any] | None) -> tuple[ShellRuntime, list[str]]:
        if not os.path.isabs(cwd) or not os.path.isdir(cwd):
            raise invalid(f"cwd must be an absolute path to a directory, not {cwd!r}")
        specs, notes = mcp_specs(mcp_servers or [])
        options = replace(self.options, cwd=cwd, mcp_servers=[*self.options.mcp_servers, *specs])
        try:
            with _interrupted_at_once():
                runtime = ShellRuntime.create(options, settings=self.settings)
        except (ConfigError, ShellError) as exc:
            raise refused(-32603, str(exc)) from None
        return runtime, [*notes, *runtime.problems]

    async def _open(self, session_id: str, runtime: ShellRuntime, notes: list[str]) -> AcpSession:
        await self._await_models()
        session = AcpSession(session_id, runtime, self.client, self.capabilities, models=self.models)
        session.notes.extend(notes)
        runtime.on_mcp_change.append(lambda status: _mcp_note(session, status))
        if self.task_group is not None:
            await runtime.start(self.task_group)
        self.sessions[session_id] = session
        return session

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise refused(-32002, f"No session {session_id} (create or load it first)", {"uri": session_id})
        return session

    # -- inside a session ------------------------------------------------------------
    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> SetSessionModeResponse:
        await self._session(session_id).set_mode(mode_id)
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        await session.set_option(config_id, value)
        return SetSessionConfigOptionResponse(config_options=session.config_options())

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        return await self._session(session_id).prompt(prompt)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    async def aclose(self) -> None:
        sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            with anyio.CancelScope(shield=True):
                await session.close()


def _mcp_note(session: AcpSession, status: Any) -> None:
    if getattr(status, "state", "") == "failed":
        session.notes.append(f"MCP server {status.name} failed: {getattr(status, 'message', '')}")


# -- stdio -------------------------------------------------------------------------


def take_stdio() -> tuple[int, int]:
    """Duplicate stdin and stdout for the protocol and point fds 0 and 1 away from
    them (fd 0 at /dev/null, fd 1 at stderr): whatever else writes "to stdout"
    lands in the editor's log instead of corrupting the JSON stream."""
    proto_in, proto_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return proto_in, proto_out


async def _streams(proto_in: int, proto_out: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=STDIO_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(proto_in, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), os.fdopen(proto_out, "wb", 0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer


def _pumped(fd: int, *, reading: bool) -> tuple[int, threading.Thread | None]:
    """An fd asyncio can use as a pipe: ``fd`` itself when it is a pipe, socket or
    terminal, else (a regular file: ``agent-shell acp < requests.jsonl``) one end of
    a pipe that a thread copies to or from it."""
    mode = os.fstat(fd).st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode):
        return fd, None
    read_end, write_end = os.pipe()
    source, target = (fd, write_end) if reading else (read_end, fd)

    def copy() -> None:
        try:
            while chunk := os.read(source, 65536):
                os.write(target, chunk)
        except OSError:
            pass
        finally:
            os.close(source)
            os.close(target)

    thread = threading.Thread(target=copy, name="acp-stdio", daemon=True)
    thread.start()
    return (read_end if reading else write_end), thread


@contextlib.contextmanager
def _interrupted_at_once() -> Iterator[None]:
    """While a session's runtime is built (in the loop's thread, with no await in it):
    Ctrl+C raises ``KeyboardInterrupt`` there and then, ending ``agent-shell acp`` with
    130. asyncio's own handler only marks the main task cancelled, which nothing reads
    until the build is done (seconds: a big config, a slow disk); the line mode had the
    same race (:mod:`shell.plain_start`). Left as it is when SIGINT is ignored (an editor
    may start us so) or when this is not the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous) or previous is signal.default_int_handler:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


async def serve(server: AcpServer, proto_in: int, proto_out: int) -> None:
    """Serve one client until it closes its end (EOF on stdin)."""
    from .framing import pump

    raw, writer = await _streams(proto_in, proto_out)
    reader = asyncio.StreamReader(limit=STDIO_LIMIT)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(pump, raw, reader, writer.write)  # a bad line costs only itself
            server.task_group = tg
            # cast: the SDK's protocol also lists unstable methods (fork, resume) we do not offer
            await run_agent(cast("Agent", server), writer, reader)
            tg.cancel_scope.cancel()
    finally:
        await server.aclose()


def run_acp(options: RuntimeOptions, settings: Settings) -> int:
    """The ``agent-shell acp`` command: returns the exit code. ``options.permission_mode``
    (``--permission-mode``) is the mode new sessions start in (else the config's)."""
    if options.permission_mode is not None:
        from shell.permissions.modes import ModeError, parse_mode

        try:
            parse_mode(options.permission_mode)
        except ModeError as exc:
            raise ShellError(f"--permission-mode: {exc}") from None
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(SafeLogFormatter("agent-shell acp: %(message)s"))
    handler.addFilter(UnknownNotificationLine())
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    if sys.stdin.isatty():
        print(
            "agent-shell acp speaks the Agent Client Protocol (JSON-RPC) on stdin and stdout; "
            "start it from an editor (see README, 'Use it from your editor'). Ctrl+D ends it.",
            file=sys.stderr,
        )
    proto_in, proto_out = take_stdio()
    proto_in, _ = _pumped(proto_in, reading=True)
    proto_out, out_pump = _pumped(proto_out, reading=False)
    server = AcpServer(options, settings)
    asyncio.run(serve(server, proto_in, proto_out))
    if out_pump is not None:
        out_pump.join(timeout=5)  # what was written reaches the file before we exit
    return 0
