"""``LongTermMemory``: facts that outlive the session, in a local full-text store
(AgentScope's long-term memory shape: pre-reply search, post-reply write-back,
memory tools via ``list_tools``, advertised in the system prompt).

The store is one SQLite file with an FTS5 index (stemmed, so "colours" finds
"colour"): no server, no embeddings, nothing leaves the machine. By default it is
``memory.sqlite3`` in the user data dir of ``agent-shell``, shared by every
session, which is the point: what one session learnt, the next one knows.

Each reply: before it, the user's input is searched and the best ``top_k`` hits go
into the system prompt for this reply only (``reply_state`` +
``transform_system_prompt``). After it, with ``auto_save`` (the default), a
compact "User: ... / Assistant: ..." record of the exchange is stored, so recall
works even when the model never thought to save anything; that is what people
expect from a memory they switched on. Only replies that ended normally are
saved, each side cut to ``max_chars``, exact duplicates skipped. Set
``auto_save=False`` to store only what the model chooses with ``add_memory``
(AgentScope's "agent control" mode). The model can also ``search_memory``.

SQLite calls run in a worker thread (``anyio.to_thread.run_sync``) so the UI never
waits on the disk; a store that fails (disk full, locked) costs a warning, not
the reply.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

import anyio.to_thread

from shell.core.events import Event, Notice, ReplyEnd

if TYPE_CHECKING:
    import sqlite3
from shell.core.messages import UserMessage
from shell.core.tools import FunctionTool, Tool

from .base import Middleware, ReplyNext
from .context import HookContext
from .types import ReplyRequest

T = TypeVar("T")

DEFAULT_PROMPT = """\
## Long-term memory

You have a long-term memory that persists across sessions. Use `search_memory` \
to look up what you may have learnt before (the user's preferences, earlier \
decisions, facts about their projects) and `add_memory` to store durable facts \
worth knowing next time: short, self-contained statements. Do not store secrets."""

_STOPWORD_TEXT = """
a an and are as at be but by can do does for from had has have how i if in is it its me my
of on or our so that the their them then there these they this to us was we were what when
where which who why will with you your
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def default_path() -> Path:
    """``memory.sqlite3`` in agent-shell's user data dir (``AGENT_SHELL_DATA_DIR``
    moves it, as it moves the sessions)."""
    from shell.core.dirs import data_dir

    return data_dir() / "memory.sqlite3"


def fts_query(text: str) -> str:
    """Free text as a safe FTS5 query: its words, quoted, joined with OR (so
    quotes, ``*`` or ``NOT`` in the input can never be a syntax error)."""
    words: list[str] = []
    for word in re.findall(r"\w+", text.lower()):
        if len(word) > 1 and word not in _STOPWORDS and word not in words:
            words.append(word)
    return " OR ".join(f'"{w}"' for w in words)


@dataclass(frozen=True, slots=True)
class Memory:
    id: int
    content: str
    kind: str
    """``note`` (stored by ``add_memory``) or ``exchange`` (auto-saved)."""
    created: str


class MemoryStore:
    """The SQLite FTS5 file. Synchronous: call it from a worker thread. A new
    connection per operation keeps it safe across threads and processes."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _connect(self) -> sqlite3.Connection:
        import sqlite3  # loaded with the first memory, not at every start-up

        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=5.0)
        conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS memories USING "
            "fts5(content, kind UNINDEXED, created UNINDEXED, tokenize='porter unicode61')"
        )
        return conn

    def add(self, content: str, kind: str = "note") -> int:
        """Store ``content``; the id of the new row, or of an identical one."""
        with closing(self._connect()) as conn, conn:
            row = conn.execute("SELECT rowid FROM memories WHERE content = ?", (content,)).fetchone()
            if row is not None:
                return int(row[0])
            created = datetime.now(UTC).isoformat(timespec="seconds")
            cursor = conn.execute(
                "INSERT INTO memories (content, kind, created) VALUES (?, ?, ?)", (content, kind, created)
            )
            return int(cursor.lastrowid or 0)

    def search(self, query: str, limit: int = 5) -> list[Memory]:
        """The best matches for free text, best first."""
        match = fts_query(query)
        if not match or limit <= 0:
            return []
        with closing(self._connect()) as conn:
            rows = conn.execute(
                "SELECT rowid, content, kind, created FROM memories WHERE memories MATCH ? "
                "ORDER BY rank LIMIT ?",
                (match, limit),
            ).fetchall()
        return [Memory(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]

    def count(self) -> int:
        with closing(self._connect()) as conn:
            return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class LongTermMemory(Middleware):
    """Remembers across sessions: recalls relevant memories and saves new ones."""

    builtin: ClassVar[bool] = True
    name = "LongTermMemory"
    description = "Recalls and saves memories across sessions in a local full-text store."

    def __init__(
        self,
        *,
        path: str | Path | None = None,
        top_k: int = 3,
        auto_save: bool = True,
        max_chars: int = 500,
        system_prompt: str = DEFAULT_PROMPT,
    ) -> None:
        """``path``: the SQLite file (default: :func:`default_path`); ``top_k``
        memories recalled per reply; ``max_chars`` per side of a saved exchange."""
        if top_k < 0 or max_chars < 20:
            raise ValueError("top_k must be >= 0 and max_chars >= 20")
        self.store = MemoryStore(Path(path).expanduser() if path is not None else default_path())
        self.top_k = top_k
        self.auto_save = auto_save
        self.max_chars = max_chars
        self.system_prompt = system_prompt
        self.tools: list[Tool] = [
            FunctionTool(self._search_tool, name="search_memory", read_only=True),
            FunctionTool(self._add_tool, name="add_memory"),
        ]

    async def _run(self, fn: Callable[[], T]) -> T:
        return await anyio.to_thread.run_sync(fn)

    def list_tools(self) -> list[Tool]:
        return list(self.tools)

    async def on_reply(
        self, ctx: HookContext, request: ReplyRequest, next: ReplyNext
    ) -> AsyncIterator[Event]:
        query = "\n".join(m.text for m in request.input if isinstance(m, UserMessage))
        try:
            hits = await self._run(partial(self.store.search, query, self.top_k)) if query.strip() else []
        except Exception as exc:
            hits = []
            ctx.emit(Notice("warning", f"Long-term memory could not be searched: {exc}", self.name))
        ctx.reply_state["recalled"] = [h.content for h in hits]
        async for event in next(request):
            if isinstance(event, ReplyEnd) and self.auto_save:
                problem = await self._save_exchange(query, event)
                if problem:
                    yield Notice("warning", problem, self.name)
            yield event

    async def _save_exchange(self, query: str, end: ReplyEnd) -> str | None:
        """Store the exchange that just ended; a problem to report, or None."""
        answer = end.message.text if end.message is not None else ""
        if end.stop_reason != "end_turn" or not query.strip() or not answer.strip():
            return None
        record = f"User: {_clip(query, self.max_chars)}\nAssistant: {_clip(answer, self.max_chars)}"
        try:
            await self._run(partial(self.store.add, record, "exchange"))
        except Exception as exc:
            return f"Long-term memory could not save this exchange: {exc}"
        return None

    async def transform_system_prompt(self, ctx: HookContext, prompt: str) -> str:
        parts = [prompt] if prompt else []
        if self.system_prompt:
            parts.append(self.system_prompt)
        recalled: list[str] = ctx.reply_state.get("recalled", [])
        if recalled:
            lines = "\n".join(f"- {m.replace(chr(10), chr(10) + '  ')}" for m in recalled)
            parts.append(f"Memories that may be relevant to this request:\n{lines}")
        return "\n\n".join(parts)

    async def _search_tool(self, query: str, limit: int = 5) -> str:
        """Search long-term memory (it persists across sessions) for notes and past exchanges.

        Args:
            query: Words to look for.
            limit: How many memories to return at most (1-20).
        """
        hits = await self._run(partial(self.store.search, query, max(1, min(limit, 20))))
        if not hits:
            return "No memories found."
        return "\n".join(f"[{h.id}] ({h.created[:10]}) {h.content}" for h in hits)

    async def _add_tool(self, content: str) -> str:
        """Store a durable fact in long-term memory, for this and future sessions.

        Args:
            content: A short, self-contained statement (no secrets).
        """
        text = content.strip()
        if not text:
            raise ValueError("content is empty")
        memory_id = await self._run(partial(self.store.add, text, "note"))
        return f"Stored memory {memory_id}."
