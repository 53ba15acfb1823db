"""What the user typed, kept across runs: Up walks it, Ctrl+R searches it.

One JSON line per prompt in ``<data dir>/prompt-history.jsonl``, mode 0600,
written with the one secrets policy applied (a key pasted into the prompt is
kept as ``[REDACTED]``, never as itself; a file that holds one anyway, written by
an older version, is rewritten without it when read). A full disk costs the
history, never the message. The newest ``MAX_ENTRIES`` are read
back; a file grown past twice that is rewritten with only those (atomically).
A damaged line costs only itself. The TUI and the line mode share the file.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shell.core.secrets import Secrets

FILE_NAME = "prompt-history.jsonl"
MAX_ENTRIES = 1000
MAX_CHARS = 20_000
"""Of one prompt (a pasted log is not worth keeping whole)."""


class PromptHistory:
    """The prompts of every run, oldest first."""

    def __init__(
        self,
        path: Path | None = None,
        redactor: Secrets | None = None,
        *,
        make_redactor: Callable[[], Secrets] | None = None,
    ) -> None:
        """``make_redactor`` instead of ``redactor``: the policy is made when there is
        first something to redact (making it compiles a pattern for every known key,
        ~10 ms a start with an empty history need not spend before the first screen)."""
        if path is None:
            from shell.core.dirs import data_dir

            path = data_dir() / FILE_NAME
        self.path = path
        self._redactor = redactor
        self._make_redactor = make_redactor
        self._lock = threading.Lock()
        self._entries: list[str] | None = None
        self._lines = 0

    @property
    def redactor(self) -> Secrets | None:
        if self._redactor is None and self._make_redactor is not None:
            self._redactor, self._make_redactor = self._make_redactor(), None
        return self._redactor

    def entries(self) -> list[str]:
        """Oldest first, at most ``MAX_ENTRIES``; consecutive repeats once."""
        with self._lock:
            if self._entries is None:
                read = self._read()
                redactor = self.redactor if read else None
                self._entries = [redactor.text(t) for t in read] if redactor else read
                if self._entries != read:  # an older file held a secret: it is rewritten without
                    self._compact()
            return list(self._entries)

    def _read(self) -> list[str]:
        try:
            data = self.path.read_bytes()
        except OSError:
            return []
        out: list[str] = []
        lines = data.split(b"\n")
        self._lines = sum(1 for line in lines if line.strip())
        for raw in lines:
            try:
                text = json.loads(raw)["text"]
            except (ValueError, KeyError, TypeError, RecursionError):
                continue
            if isinstance(text, str) and text and (not out or out[-1] != text):
                out.append(text)
        return out[-MAX_ENTRIES:]

    def add(self, text: str) -> str:
        """Keep ``text`` (redacted, capped); returns what was kept ('' for nothing)."""
        if not text.strip():
            return ""
        kept = (self.redactor.text(text) if self.redactor is not None else text)[:MAX_CHARS]
        entries = self.entries()
        if entries and entries[-1] == kept:
            return kept
        line = json.dumps({"text": kept, "at": int(time.time())}, ensure_ascii=False) + "\n"
        with self._lock:
            assert self._entries is not None
            self._entries.append(kept)
            del self._entries[:-MAX_ENTRIES]
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
                try:
                    os.fchmod(fd, 0o600)  # a file made by an older version keeps no wider mode
                    os.write(fd, line.encode("utf-8", "replace"))
                finally:
                    os.close(fd)
                self._lines += 1
                if self._lines > 2 * MAX_ENTRIES:
                    self._compact()
            except OSError:
                pass  # the history is a convenience: a full disk must not stop a message
        return kept

    def _compact(self) -> None:
        assert self._entries is not None
        tmp = self.path.with_name(f".{self.path.name}.{secrets.token_hex(4)}.tmp")
        data = "".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in self._entries)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as f:
                f.write(data)
            os.replace(tmp, self.path)
            self._lines = len(self._entries)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)

    def search(self, query: str, limit: int = 50) -> list[str]:
        """The prompts holding every word of ``query`` (any case), newest first, each once."""
        words = query.lower().split()
        found: list[str] = []
        for text in reversed(self.entries()):
            low = text.lower()
            if all(w in low for w in words) and text not in found:
                found.append(text)
                if len(found) >= limit:
                    break
        return found
