"""Find a session by what was said in it: a SQLite FTS5 index of every session file.

The index lives in ``<data dir>/search.sqlite`` (mode 0600) and is only ever a
copy: the session files are the truth. Each session is read from where the last
pass stopped (the files only grow), so keeping it current costs a ``stat`` per
session and the new lines; a file that shrank or was replaced is read again
whole, a session whose file is gone is dropped. :meth:`SearchIndex.search`
catches up before it answers, so a word said a moment ago is found; the
runtime also brings its own session up to date after every reply.

What the user took back (``/rewind``, Esc Esc) leaves the index: a ``rewind``
record says from which byte of the file on the conversation was taken back, and
every passage first said there is dropped (each passage keeps the offset of the
record it came from). A compaction's ``history`` record drops nothing: the
summarised messages are still what the user said, and still found.

A missing index is built; a damaged one (not a database, a bad page) is thrown
away and built again from the session files: nothing is lost.

Secrets: session files are already redacted when written; the text is redacted
again here with today's secrets (the environment's and the config's values and
the known shapes) before it is stored, and every snippet once more before it is
returned, so a secret that reached a file written by an older version, or one
learnt since, is neither stored nor shown.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shell.core.dirs import data_dir

from .store import SUFFIX, SessionStore, message_title

if TYPE_CHECKING:
    from shell.core.secrets import Secrets

SCHEMA_VERSION = "3"  # 2: passages keep their offset (a rewind drops them); 3: names without attached text
INDEX_NAME = "search.sqlite"
MAX_INDEXED_CHARS = 20_000
"""Of one message's text (user and assistant words are rarely longer)."""
MAX_TOOL_CHARS = 2_000
"""Of a tool call's arguments or a tool's result (file contents are the workspace's, not the talk)."""
MAX_RESULTS = 20
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One session that matches, with its best passage."""

    session_id: str
    title: str
    cwd: str
    updated: float
    snippet: str
    """The passage, the matched words in ``[`` ``]``; redacted, controls neutralised."""
    role: str


class SearchIndex:
    """The full-text index of one sessions directory. Thread-safe; one connection."""

    def __init__(self, store: SessionStore | None = None, path: Path | None = None,
                 redactor: Secrets | None = None) -> None:
        self.store = store or SessionStore()
        self.path = path or data_dir() / INDEX_NAME
        self.redactor = redactor
        self.rebuilt = 0
        """How many times a damaged index was thrown away (for tests and the user)."""
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None

    # -- the database ---------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        os.close(fd)
        db = sqlite3.connect(self.path, timeout=5.0, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            version = None
            with contextlib.suppress(sqlite3.OperationalError):
                row = db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
                version = row[0] if row else None
            if version != SCHEMA_VERSION:
                self._create(db)
        except BaseException:
            db.close()
            raise
        self._db = db
        return db

    def _create(self, db: sqlite3.Connection) -> None:
        db.executescript(
            """
            DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS sessions; DROP TABLE IF EXISTS seen;
            DROP TABLE IF EXISTS chunks;
            CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
            CREATE TABLE sessions(id TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, ino INTEGER,
                                  indexed_to INTEGER, title TEXT, user_title TEXT, first TEXT,
                                  cwd TEXT, updated REAL);
            CREATE TABLE seen(session_id TEXT, digest TEXT, pos INTEGER, chunk INTEGER,
                              PRIMARY KEY(session_id, digest)) WITHOUT ROWID;
            CREATE VIRTUAL TABLE chunks USING fts5(session_id UNINDEXED, role UNINDEXED, text,
                                                   tokenize='unicode61 remove_diacritics 2');
            """
        )
        db.execute("INSERT INTO meta(key, value) VALUES('version', ?)", (SCHEMA_VERSION,))

    def _reset(self) -> None:
        """Throw a damaged index away (the session files are the truth)."""
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")
        self.rebuilt += 1

    def _guarded(self, fn: Any, *args: Any) -> Any:
        with self._lock:
            try:
                return fn(self._connect(), *args)
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                    raise
                self._reset()  # not a database, a bad page, a broken schema: build it again
                return fn(self._connect(), *args)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # -- keeping it current ---------------------------------------------------------------
    def refresh(self, session_id: str | None = None) -> int:
        """Index what was written since the last pass (every session, or one);
        returns how many sessions were read."""
        return int(self._guarded(self._refresh, session_id))

    def _refresh(self, db: sqlite3.Connection, only: str | None) -> int:
        known = {row[0]: row[1:] for row in db.execute(
            "SELECT id, size, mtime_ns, ino, indexed_to FROM sessions"
            + (" WHERE id = ?" if only else ""), (only,) if only else ())}
        ids = [only] if only else self.store.ids()
        read = 0
        for session_id in ids:
            path = self.store.root / f"{session_id}{SUFFIX}"
            try:
                info = os.stat(path)
            except OSError:
                if session_id in known:
                    self._forget(db, session_id)
                continue
            old = known.get(session_id)
            if old is not None and (old[0], old[1], old[2]) == (info.st_size, info.st_mtime_ns, info.st_ino):
                continue
            start = old[3] if old is not None and old[2] == info.st_ino and old[3] <= info.st_size else 0
            if start == 0 and old is not None:
                self._forget(db, session_id)
            self._read(db, session_id, path, start, info)
            read += 1
        if only is None:
            for gone in set(known) - set(ids):
                self._forget(db, gone)
        return read

    def _forget(self, db: sqlite3.Connection, session_id: str) -> None:
        db.execute("DELETE FROM chunks WHERE session_id = ?", (session_id,))
        db.execute("DELETE FROM seen WHERE session_id = ?", (session_id,))
        db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def _read(self, db: sqlite3.Connection, session_id: str, path: Path, start: int,
              info: os.stat_result) -> None:
        try:
            with path.open("rb") as f:
                f.seek(start)
                data = f.read(max(0, info.st_size - start))
        except OSError:
            return
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next pass
        row = db.execute("SELECT title, user_title, first, cwd FROM sessions WHERE id = ?",
                         (session_id,)).fetchone()
        title, user_title, first, cwd = row if row else ("", "", "", "")
        db.execute("BEGIN")
        try:
            for pos, record in _records(data[:end], start):
                kind = record.get("kind")
                if kind == "header":
                    cwd = str(record.get("cwd") or cwd or "")
                elif kind == "title" and isinstance(record.get("title"), str):
                    if record.get("source") == "user":
                        user_title = self._clean(record["title"])[:200]
                    else:
                        title = self._clean(record["title"])[:200]
                elif kind in ("message", "tool_result"):
                    message = record.get("message")
                    text = self._message_text(message)
                    if text and not first and isinstance(message, dict) and message.get("role") == "user":
                        first = message_title(message, self._clean)
                    self._add(db, session_id, message, text, pos)
                elif kind in ("history", "rewind") and isinstance(record.get("messages"), list):
                    to = record.get("to")
                    if kind == "rewind" and isinstance(to, int) and not isinstance(to, bool):
                        self._take_back(db, session_id, to)
                        first = ""
                    for message in record["messages"]:
                        text = self._message_text(message)
                        if kind == "rewind" and text and not first and isinstance(message, dict) \
                                and message.get("role") == "user":
                            first = message_title(message, self._clean)
                        self._add(db, session_id, message, text, pos)
            db.execute(
                "INSERT OR REPLACE INTO sessions(id, size, mtime_ns, ino, indexed_to, title, user_title, "
                "first, cwd, updated) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, info.st_size if end == len(data) else -1, info.st_mtime_ns, info.st_ino,
                 start + end, title, user_title, first, cwd, info.st_mtime),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _add(self, db: sqlite3.Connection, session_id: str, message: Any, text: str, pos: int) -> None:
        if not text or not isinstance(message, dict):
            return
        role = str(message.get("role", ""))
        digest = hashlib.sha256(f"{role}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
        seen = db.execute("SELECT 1 FROM seen WHERE session_id = ? AND digest = ?", (session_id, digest))
        if seen.fetchone():
            return  # a history record repeats what was indexed already: once is enough
        chunk = db.execute("INSERT INTO chunks(session_id, role, text) VALUES(?, ?, ?)",
                           (session_id, role, text))
        db.execute("INSERT INTO seen(session_id, digest, pos, chunk) VALUES(?, ?, ?, ?)",
                   (session_id, digest, pos, chunk.lastrowid))

    def _take_back(self, db: sqlite3.Connection, session_id: str, to: int) -> None:
        """A rewind: every passage first said at byte ``to`` of the file or later goes
        (what the conversation still holds comes back with the rewind's own list)."""
        gone = [row[0] for row in db.execute(
            "SELECT chunk FROM seen WHERE session_id = ? AND pos >= ?", (session_id, to))]
        db.executemany("DELETE FROM chunks WHERE rowid = ?", [(chunk,) for chunk in gone])
        db.execute("DELETE FROM seen WHERE session_id = ? AND pos >= ?", (session_id, to))

    def _message_text(self, message: Any) -> str:
        if not isinstance(message, dict):
            return ""
        role = message.get("role")
        cap = MAX_TOOL_CHARS if role == "tool" else MAX_INDEXED_CHARS
        parts: list[str] = []
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            for block in content:
                if not isinstance(block, dict):
                    continue
                kind = block.get("type")
                if kind in ("text", "thinking") and isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif kind == "tool_call":
                    args = json.dumps(block.get("args"), ensure_ascii=False)[:MAX_TOOL_CHARS]
                    parts.append(f"{block.get('name', '')} {args}")
        text = "\n".join(parts)[:cap]
        return self._clean(text)

    def _clean(self, text: str) -> str:
        text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates cannot be stored
        return self.redactor.text(text) if self.redactor is not None else text

    # -- asking ---------------------------------------------------------------------------
    def search(self, query: str, *, limit: int = MAX_RESULTS, refresh: bool = True) -> list[SearchHit]:
        """The sessions that hold every word of ``query`` (the last one as a prefix),
        best match first, one passage each."""
        match = fts_query(query)
        if not match:
            return []
        if refresh:
            self.refresh()
        rows = self._guarded(self._search, match, limit)
        return [self._hit(*row) for row in rows]

    def _search(self, db: sqlite3.Connection, match: str, limit: int) -> list[tuple[Any, ...]]:
        found: list[tuple[Any, ...]] = []
        seen: set[str] = set()
        cursor = db.execute(
            "SELECT c.session_id, snippet(chunks, 2, '[', ']', '…', 12), c.role, "
            "s.user_title, s.title, s.first, s.cwd, s.updated "
            "FROM chunks c JOIN sessions s ON s.id = c.session_id "
            "WHERE chunks MATCH ? ORDER BY rank LIMIT 2000", (match,))
        for row in cursor:
            if row[0] in seen:
                continue
            seen.add(row[0])
            found.append(row)
            if len(found) >= limit:
                break
        return found

    def _hit(self, session_id: str, snippet: str, role: str, user_title: str, title: str, first: str,
             cwd: str, updated: float) -> SearchHit:
        from shell.core.textsafety import sanitize_line

        shown = _around_the_match(sanitize_line(" ".join(self._clean(snippet).split())))
        name = sanitize_line(self._clean(user_title or title or first or "(no messages)"))[:TITLE_CHARS]
        return SearchHit(session_id, name, sanitize_line(cwd), float(updated or 0), shown, role)

    def titles(self) -> Iterator[tuple[str, str]]:
        """``(session id, title)`` of the sessions indexed (model or user titles only)."""
        rows = self._guarded(lambda db: db.execute(
            "SELECT id, COALESCE(NULLIF(user_title, ''), title) FROM sessions").fetchall())
        for session_id, title in rows:
            if title:
                yield session_id, title


SNIPPET_CHARS = 240
"""The passage shown for a hit, around the first match: the index's snippet counts
words, and one word can be a 60 MB paste with no spaces."""
TITLE_CHARS = 120


def _around_the_match(shown: str, width: int = SNIPPET_CHARS) -> str:
    if len(shown) <= width:
        return shown
    start = max(0, shown.find("[") - width // 3)
    cut = shown[start : start + width]
    return ("…" if start else "") + cut + "…"


def fts_query(text: str) -> str:
    """The user's words as an FTS5 query: every word must appear, the last one may be
    the start of a word; nothing the user types can be FTS5 syntax."""
    words = _WORD.findall(text)[:32]
    if not words:
        return ""
    quoted = ['"' + w.replace('"', '""') + '"' for w in words]
    quoted[-1] += "*"
    return " ".join(quoted)


def _records(data: bytes, start: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each record of ``data`` with its offset in the file (``data`` begins at ``start``)."""
    pos = start
    for raw in data.split(b"\n"):
        at, pos = pos, pos + len(raw) + 1
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict):
            yield at, record


def search_sessions(query: str, redactor: Secrets | None = None) -> list[SearchHit]:
    """One search over the default store (``agent-shell sessions --search``)."""
    index = SearchIndex(redactor=redactor)
    try:
        return index.search(query)
    finally:
        index.close()


def format_hits(hits: list[SearchHit]) -> str:
    """Plain text: one block per session (title, then id and date, then the passage),
    every line at most ``listing.LISTING_WIDTH`` columns (see :mod:`.listing`)."""
    from .listing import when, wrapped

    rows: list[str] = []
    for hit in hits:
        rows += wrapped(hit.title, "", "  ")
        rows.append(f"    {hit.session_id}  {when(hit.updated) if hit.updated else ''}".rstrip())
        rows += wrapped(hit.snippet, "    ", "    ")
    return "\n".join(rows)
