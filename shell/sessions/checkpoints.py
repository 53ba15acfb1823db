"""File checkpoints: what a file held before the agent changed it, so ``/rewind`` can put it back.

Each session keeps them in ``<data dir>/checkpoints/<session id>/``:

- ``blobs/<sha256>``: file contents, content-addressed (a file saved twice is
  stored once), mode 0600;
- ``log.jsonl``: one record per line, in the order things happened. A ``turn``
  record marks each message the user sent (its number, its text with secrets
  redacted, and where the session file stood before it, so the conversation can
  be read back as it was); a ``file`` record says that a file was about to change
  in that turn and which blob holds its old content (or that it did not exist,
  or that it could not be kept and why); a ``shell`` record says a command ran and
  whether what it wrote was captured (only in the sandbox, where its writes can
  only land in the workspace); a ``rewind`` record says the conversation went
  back to before a turn; a ``left`` record holds the digest of what a file tool
  left in a file (so a rewind can tell that the user changed it since, and leave
  it alone rather than destroy the user's own work).

Every write is on disk (fsync) before the tool changes the file, so a crash in
between loses nothing. Only the first change to a file in a turn is kept: a
rewind goes back to the start of a turn, and that is the content it needs. A
file over ``max_file`` bytes, or any file once the session's store reached
``max_total`` bytes, is recorded as not kept, with the reason, and a rewind says
so rather than pretending.

The store holds the user's own files, byte for byte (a rewind must restore a
``.env`` too): it is private to the user (0700/0600), and the sandbox hides the
data dir from commands. The text of messages and commands is redacted, as in
session files.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import secrets
import shutil
import stat
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shell.core.dirs import data_dir

from . import gitkeep, gitstore, tempcheckpoints
from .checkpointhook import CheckpointHook
from .gitkeep import GitState
from .store import utc_now
from .writer import encode_record

if TYPE_CHECKING:
    from shell.core.messages import Message
    from shell.core.secrets import Secrets

log = logging.getLogger("agent_shell.checkpoints")

__all__ = ["CheckpointHook", "Checkpoints", "FileChange", "ShellRun", "Turn"]

ABSENT = "absent"
"""A ``left`` digest saying the agent's command deleted the file."""
MAX_FILE_BYTES = 4 * 1024 * 1024
"""Largest file whose content is kept (``shell.tools.capture.MAX_FILE`` agrees)."""
MAX_TOTAL_BYTES = 256 * 1024 * 1024
"""All the content one session keeps."""
MAX_TEXT = 20_000
"""Characters of a turn's message kept in the log (what a rewind puts back in the prompt)."""


def checkpoints_root() -> Path:
    return data_dir() / "checkpoints"


@dataclass(frozen=True, slots=True)
class Turn:
    """One message the user sent, as ``/rewind`` lists it."""

    number: int
    text: str
    offset: int | None
    """The session file's length before this message (None: no session file)."""
    history_len: int
    """How many messages the conversation held before it."""
    at: str
    seq: int
    """Its place in the log."""


@dataclass(frozen=True, slots=True)
class FileChange:
    """A file about to change in ``turn``, and where its old content is."""

    turn: int
    path: str
    before: str | None
    """The blob's digest; None when the file did not exist (or was not kept)."""
    existed: bool
    mode: int | None
    kept: bool
    why: str
    tool: str
    seq: int


@dataclass(frozen=True, slots=True)
class ShellRun:
    """A ``run_shell`` command of ``turn``; ``captured``: its workspace writes are
    in :class:`FileChange` records (it ran in the sandbox)."""

    turn: int
    command: str
    sandboxed: bool
    captured: bool
    files: int
    note: str
    seq: int
    tree: tuple[tuple[str, str, str], ...] = ()
    """Folders it renamed (``rename``, new name, old name) and symlinks it made
    (``link``, the link, its target): a rewind of files undoes these."""


Record = Turn | FileChange | ShellRun | GitState


class Checkpoints:
    """The checkpoints of one session. Thread-safe: the tools call it from worker threads."""

    def __init__(
        self,
        root: Path,
        *,
        redactor: Secrets | None = None,
        max_file: int = MAX_FILE_BYTES,
        max_total: int = MAX_TOTAL_BYTES,
        ephemeral: bool = False,
    ) -> None:
        self.root = root
        self.redactor = redactor
        self.max_file = max_file
        self.max_total = max_total
        self.ephemeral = ephemeral
        self.turn = 0
        """The turn in progress (0 before the first)."""
        self.inputs: dict[int, Message] = {}
        """Each turn's message object as the history holds it (this process only):
        a rewind cuts the history right there when it is still in it."""
        self.records: list[Record] = []
        self.raw: list[dict[str, Any]] = []
        """The log's records as written, in order (a record's ``seq`` is its index here;
        rewinds are only here, the others are in ``records`` too)."""
        self.rewinds: list[tuple[int, int]] = []
        """``(turn, seq)`` of each conversation rewind: turns from ``turn`` on, logged
        before ``seq``, are no longer in the conversation."""
        self.problems: list[str] = []
        self.left: dict[str, str] = {}
        """Each path's digest of what a file tool last left in it: a file whose content
        differs now was changed by someone else since (the user)."""
        self.git_keepers: dict[str, gitstore.ObjectKeeper] = {}
        """The workspace repository's objects, linked as they appear (:mod:`.gitkeep`)."""
        self._lock = threading.RLock()
        self._seen: set[tuple[int, str]] = set()
        self._stored: dict[str, int] = {}
        self._seq = 0
        self._pending: list[dict[str, Any]] | None = None
        """Records waiting for the end of a :meth:`_batch` (None: none open)."""
        self._read()

    @classmethod
    def for_session(cls, session_id: str, **kwargs: Any) -> Checkpoints:
        if not session_id or "/" in session_id or session_id.startswith("."):
            raise ValueError(f"not a session id: {session_id!r}")
        return cls(checkpoints_root() / session_id, **kwargs)

    @classmethod
    def temporary(cls, **kwargs: Any) -> Checkpoints:
        """For a conversation that is not saved (``--no-session``): a private temporary
        dir, removed by :meth:`close` or at exit (:mod:`.tempcheckpoints`)."""
        return cls(tempcheckpoints.make(), ephemeral=True, **kwargs)

    def close(self) -> None:
        if self.ephemeral:
            shutil.rmtree(self.root, ignore_errors=True)
            tempcheckpoints.forget(self.root)

    @property
    def log_path(self) -> Path:
        return self.root / "log.jsonl"

    @property
    def stored_bytes(self) -> int:
        return sum(self._stored.values()) + sum(k.own_bytes for k in self.git_keepers.values())

    # -- reading -------------------------------------------------------------------------
    def _read(self) -> None:
        try:
            data = self.log_path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            self.problems.append(f"the checkpoints could not be read: {exc}")
            return
        bad = 0
        for raw in data.split(b"\n"):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
                self._take(record)
            except Exception:  # a torn or strange line costs only itself
                bad += 1
        if bad:
            self.problems.append(f"{bad} damaged checkpoint record(s) skipped")

    def _take(self, record: dict[str, Any]) -> None:
        kind = record["kind"]
        if kind == "left":  # not a step of its own: what a tool left in a file
            self.left[str(record["path"])] = str(record["digest"])
            return
        if kind not in ("turn", "file", "shell", "rewind", "git"):
            return  # a newer version's record: kept in the file, not understood here
        self.raw.append(record)
        seq = self._seq
        self._seq += 1
        if kind == "turn":
            turn = Turn(int(record["turn"]), str(record.get("text", "")), _opt_int(record.get("offset")),
                        int(record.get("history_len", 0)), str(record.get("at", "")), seq)
            self.records.append(turn)
            self.turn = max(self.turn, turn.number)
        elif kind == "file":
            before = record.get("before")
            change = FileChange(
                int(record["turn"]), str(record["path"]), str(before) if before else None,
                bool(record.get("existed", before is not None)), _opt_int(record.get("mode")),
                bool(record.get("kept", True)), str(record.get("why", "")), str(record.get("tool", "")), seq,
            )
            self.records.append(change)
            self._seen.add((change.turn, change.path))
            if change.before and change.kept:
                self._stored.setdefault(change.before, int(record.get("size", 0)))
        elif kind == "shell":
            self.records.append(ShellRun(
                int(record["turn"]), str(record.get("command", "")), bool(record.get("sandboxed")),
                bool(record.get("captured")), int(record.get("files", 0)), str(record.get("note", "")), seq,
                _tree(record.get("tree")),
            ))
        elif kind == "git":
            files = record.get("files") or {}
            self.records.append(GitState(int(record["turn"]), str(record["gitdir"]),
                                         tuple((str(k), str(v)) for k, v in files.items()), seq,
                                         bool(record.get("after"))))
        elif kind == "rewind" and record.get("conversation", True):
            self.rewinds.append((int(record["to"]), seq))

    # -- what happened -------------------------------------------------------------------
    def turns(self) -> list[Turn]:
        """The turns still in the conversation, oldest first (a conversation rewind
        drops the turns it went back over)."""
        out = []
        for record in self.records:
            if not isinstance(record, Turn):
                continue
            if any(record.number >= to and record.seq < at for to, at in self.rewinds):
                continue
            out.append(record)
        return out

    def find_turn(self, number: int) -> Turn | None:
        return next((t for t in self.turns() if t.number == number), None)

    def since(self, turn: Turn) -> list[Record]:
        """Everything logged after ``turn`` began, in order."""
        return [r for r in self.records if r.seq > turn.seq]

    def blob(self, digest: str) -> bytes:
        """A kept content; ``OSError`` when it is gone, ``ValueError`` when damaged."""
        data = self._blob_path(digest).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError("the kept copy is damaged (its checksum does not match)")
        return data

    # -- recording -----------------------------------------------------------------------
    def begin_turn(
        self, text: str, *, offset: int | None, history_len: int, message: Message | None = None
    ) -> int:
        """A message is about to be sent: the changes that follow belong to its turn."""
        with self._lock:
            number = self.turn + 1
            shown = self._redact(text)[:MAX_TEXT]
            self._append({"kind": "turn", "turn": number, "text": shown, "offset": offset,
                          "history_len": history_len, "at": utc_now()})
            if message is not None:
                self.inputs[number] = message
            return number

    def before_write(self, path: Path, before: bytes | None, tool: str) -> None:
        """A file tool is about to write ``path`` (``before``: its content now)."""
        with self._lock:
            key = (self.turn, str(path))
            if key in self._seen:
                return
            mode = _mode(path) if before is not None else None
            self._keep_file(path, before, mode, tool)

    def after_write(self, path: Path, after: bytes | None) -> None:
        """A file tool wrote ``path``; ``after`` is what it left there (None: unknown,
        e.g. it could not be read back)."""
        with self._lock:
            if after is None:
                self.left.pop(str(path), None)
                return
            self._append({"kind": "left", "path": str(path), "digest": hashlib.sha256(after).hexdigest()})

    def shell_ran(
        self, command: str, *, sandboxed: bool, files: Sequence[Any] | None, note: str = "",
        tree: Sequence[Any] = (),
    ) -> list[Any]:
        """``run_shell`` ran; ``files`` (``CapturedFile``) is what it changed, when known.
        Returns those whose old content it could not keep (the limit was reached): the
        command's result must say so, or a deletion is lost with nothing said (X7).

        Its records go to the log in one write and one fsync, not one each: the
        command already ran, so nothing waits on them, and a command that made
        30,000 files cost 60,000 fsyncs (minutes on a busy disk, J9)."""
        refused: list[Any] = []
        with self._lock, self._batch():
            for captured in files or ():
                self._left_by_command(captured)
                key = (self.turn, str(captured.path))
                if key in self._seen:
                    continue
                if captured.kept:
                    why = self._keep_file(captured.path, captured.before, captured.mode, "run_shell")
                    if why:
                        refused.append(dataclasses.replace(captured, kept=False, why=why))
                else:
                    existed = captured.before is not None or captured.mode is not None
                    self._log_file(captured.path, None, existed, captured.mode, "run_shell",
                                   kept=False, why=captured.why)
            self._append({
                "kind": "shell", "turn": self.turn, "command": self._redact(command)[:2000],
                "sandboxed": sandboxed, "captured": files is not None, "files": len(files or ()),
                "note": note, "at": utc_now(),
                **({"tree": [[t.kind, str(t.path), t.other] for t in tree]} if tree else {}),
            })
        return refused

    def _left_by_command(self, captured: Any) -> None:
        """What a sandboxed command left in a file, as :meth:`after_write` records a
        file tool's: the digest of its content, or :data:`ABSENT` when it deleted the
        file. A rewind then leaves alone what the user changed (or re-created) since,
        as it does for the file tools."""
        after = getattr(captured, "after", None)
        if getattr(captured, "deleted", False):
            digest = ABSENT
        elif after is not None:
            digest = hashlib.sha256(after).hexdigest()
        else:
            self.left.pop(str(captured.path), None)  # too big to read: what it left is not known
            return
        self._append({"kind": "left", "path": str(captured.path), "digest": digest})

    def git_before(self, root: Path) -> dict[str, bytes] | None:
        """Before a command: the repository's history kept (:mod:`.gitkeep`)."""
        with self._lock:
            return gitkeep.before_command(self, root)

    def git_after(self, root: Path, before: dict[str, bytes]) -> str:
        with self._lock:
            return gitkeep.after_command(self, root, before)

    def log_git(self, gitdir: str, files: dict[str, str], *, after: bool = False) -> None:
        self._append({"kind": "git", "turn": self.turn, "gitdir": gitdir, "files": files, "at": utc_now(),
                      **({"after": True} if after else {})})

    @property
    def stored_digests(self) -> set[str]:
        return set(self._stored)

    def keep_blob(self, digest: str, data: bytes) -> None:
        self._write_blob(digest, data)

    def copy_to(self, root: Path, *, before: Turn | None = None) -> Checkpoints:
        """The checkpoints of a fork: this log up to ``before`` (all of it when None),
        its blobs linked (copied where links cannot be made), at ``root``. The
        turns lose their place in this session's file (the fork's file is another);
        a rewind there cuts the history by its length instead."""
        with self._lock:
            fork = Checkpoints(root, redactor=self.redactor, max_file=self.max_file,
                               max_total=self.max_total, ephemeral=self.ephemeral)
            fork._ensure()
            limit = before.seq if before is not None else self._seq
            for record in self.raw[:limit]:
                copied = dict(record)
                if copied["kind"] == "turn":
                    copied["offset"] = None
                for digest in gitkeep.blobs_of(copied):  # a file's old content, a git state's refs
                    with contextlib.suppress(OSError, ValueError):
                        fork._link_blob(self._blob_path(digest), digest)
                fork._append(copied)
            gitkeep.copy_objects(self.root, root)
            for path, digest in self.left.items():
                fork._append({"kind": "left", "path": path, "digest": digest})
            fork.inputs = {n: m for n, m in self.inputs.items() if before is None or n < before.number}
            return fork

    def _link_blob(self, source: Path, digest: str) -> None:
        target = self._blob_path(digest)
        if target.exists():
            return
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)
            os.chmod(target, 0o600)

    def mark_rewind(self, turn: int, *, conversation: bool, files: bool) -> None:
        with self._lock:
            self._append({"kind": "rewind", "to": turn, "conversation": conversation, "files": files,
                          "at": utc_now()})

    def _keep_file(self, path: Path, before: bytes | None, mode: int | None, tool: str) -> str:
        """Keep ``before`` (a file's content); why it was not kept (empty: it was)."""
        if before is None:
            self._log_file(path, None, False, None, tool)
            return ""
        why = ""
        if len(before) > self.max_file:
            why = f"it is too big to keep ({_mb(len(before))}; the limit is {_mb(self.max_file)})"
        digest = hashlib.sha256(before).hexdigest()
        if not why and digest not in self._stored and self.stored_bytes + len(before) > self.max_total:
            why = f"this session's checkpoints reached their limit of {_mb(self.max_total)}"
        if not why:
            try:
                self._write_blob(digest, before)
            except OSError as exc:
                why = f"it could not be saved ({exc.strerror or exc})"
        if why:
            self._log_file(path, None, True, mode, tool, kept=False, why=why)
        else:
            self._log_file(path, digest, True, mode, tool, size=len(before))
        return why

    def _log_file(self, path: Path, digest: str | None, existed: bool, mode: int | None, tool: str, *,
                  kept: bool = True, why: str = "", size: int = 0) -> None:
        record: dict[str, Any] = {"kind": "file", "turn": self.turn, "path": str(path), "before": digest,
                                  "existed": existed, "mode": mode, "kept": kept, "tool": tool}
        if why:
            record["why"] = why
        if digest:
            record["size"] = size
        try:
            self._append(record)
        except OSError as exc:  # the change goes ahead; the log says nothing we cannot back
            log.warning("a checkpoint could not be recorded: %s", exc)
            self.problems.append(f"a checkpoint of {path} could not be recorded: {exc.strerror or exc}")

    def _append(self, record: dict[str, Any]) -> None:
        if self._pending is not None:
            self._pending.append(record)
            return
        self._write_records([record])

    @contextlib.contextmanager
    def _batch(self) -> Iterator[None]:
        """Records appended inside go to the log together when it ends (the caller
        holds the lock). A failed write is said, like one record's, and loses only them."""
        if self._pending is not None:
            yield
            return
        self._pending = []
        try:
            yield
        finally:
            pending, self._pending = self._pending, None
            if pending:
                try:
                    self._write_records(pending)
                except OSError as exc:
                    log.warning("%d checkpoint records could not be written: %s", len(pending), exc)
                    self.problems.append(f"{len(pending)} checkpoint record(s) could not be written: "
                                         f"{exc.strerror or exc}")

    def _write_records(self, records: list[dict[str, Any]]) -> None:
        self._ensure()
        data = memoryview(b"".join(encode_record(record) for record in records))
        fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            while data:
                data = data[os.write(fd, data):]
            os.fsync(fd)
        finally:
            os.close(fd)
        for record in records:
            self._take(record)

    def _write_blob(self, digest: str, data: bytes) -> None:
        path = self._blob_path(digest)
        if digest in self._stored or path.exists():
            self._stored.setdefault(digest, len(data))
            return
        self._ensure()
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.parent / f".{digest}.{secrets.token_hex(4)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        self._stored[digest] = len(data)

    def _blob_path(self, digest: str) -> Path:
        if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
            raise ValueError(f"not a checkpoint digest: {digest!r}")
        return self.root / "blobs" / digest[:2] / digest

    def _ensure(self) -> None:
        if not self.root.is_dir():
            self.root.mkdir(parents=True, mode=0o700, exist_ok=True)
            (self.root / "blobs").mkdir(mode=0o700, exist_ok=True)

    def _redact(self, text: str) -> str:
        return self.redactor.text(text) if self.redactor is not None else text


def _tree(value: Any) -> tuple[tuple[str, str, str], ...]:
    """A shell record's renames and links as read back (anything malformed: left out)."""
    if not isinstance(value, list):
        return ()
    out = [(str(t[0]), str(t[1]), str(t[2])) for t in value
           if isinstance(t, list) and len(t) == 3 and t[0] in ("rename", "link")]
    return tuple(out)


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path, follow_symlinks=False).st_mode)
    except OSError:
        return None


def _opt_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"
