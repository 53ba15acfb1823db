"""The second net under the sandbox's hiding: the values of the secret files a
command (or a read) was not shown, redacted from what the model receives of it.

The sandbox binds an empty file over the workspace's ``.env`` (:mod:`.secretfiles`),
but git keeps what it once saw of it: a ``.env`` stashed with ``git stash -u``, or
staged and unstaged, sits in the object store, and ``git stash show -p
--include-untracked`` or ``git cat-file --batch-all-objects --batch`` prints it
(finding N0). Nothing can hide the object store from git in the sandbox, so the
values themselves (:func:`shell.core.secretfilevalues.secret_file_values`: exact
values that look like secrets, and their URL-encoded forms) are redacted from the
command's output by the one secrets policy's values net
(:class:`shell.core.secrets.Secrets`), and the result says how many and whose.

A file the user let this call see (an approved command or read that named it) keeps
its values: they are left out of the set, also where another hidden file holds the
same value. Each file's values are kept with its stat (device, inode, size, mtime,
ctime): a command after an unchanged ``.env`` costs one ``stat`` a file.

Output is redacted as it streams (:class:`StreamRedaction`), line by line, so that
what the user sees live, what the session saves of a running command and what the
model gets all come from the same redacted text, and a value cut between two reads
of the pipe is still whole when it is looked for.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shell.core.secretfilevalues import secret_file_values
from shell.core.secrets import Secrets, encoded_forms
from shell.core.secretspellings import holds_any, may_continue, spelled_lines, spelled_spans
from shell.core.textsafety import path_text

from .homedirs import home_dirs
from .homesecrets import value_stores
from .trackedvalues import committed_values

MAX_FILE_BYTES = 1 << 20
"""Bytes of one secret file read for its values (secret files are small; a big
``terraform.tfstate`` gives the values in its first megabyte)."""
MAX_VALUES = 2048
"""Values redacted for one command at most (each has up to two encoded forms more)."""
MAX_FILES_KEPT = 1024
"""Files whose values are kept between commands."""
HOLD = 256 * 1024
"""Characters of one line held back from the live view before it is cut (a value cut
there is still found: the cut moves before it)."""
SPELLED_ROOM = 8
"""Times the longest value a spelling of it may take (hex with separators, ``\\u`` escapes,
letters spaced): what of a long line is kept back past a cut, so that a spelling ending
there has all arrived and one straddling the cut moves it (finding Z1's net on a line
with no end: 256 KB, then the value spaced, passed)."""


@dataclass(frozen=True, slots=True)
class _Known:
    stamp: tuple[int, int, int, int, int]
    values: tuple[str, ...]


_known: OrderedDict[str, _Known] = OrderedDict()
_known_lock = threading.Lock()


def file_values(path: str | os.PathLike[str]) -> tuple[str, ...]:
    """The values worth redacting that the secret file ``path`` holds (none when it
    cannot be read, or is not a regular file), read again only when its stat changed.
    A file gone since it was read keeps its last values: deleted and written again by
    a tool, it may be back, unhidden, when the command reads it (finding W5)."""
    name = os.fspath(path)
    try:
        info = os.stat(name)
    except FileNotFoundError:
        with _known_lock:
            gone = _known.get(name)
        return gone.values if gone is not None else ()
    except OSError:
        return ()
    if not stat.S_ISREG(info.st_mode):
        return ()
    stamp = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    with _known_lock:
        known = _known.get(name)
        if known is not None and known.stamp == stamp:
            _known.move_to_end(name)
            return known.values
    values = tuple(secret_file_values(_read(name)))
    with _known_lock:
        _known[name] = _Known(stamp, values)
        _known.move_to_end(name)
        while len(_known) > MAX_FILES_KEPT:
            _known.popitem(last=False)
    return values


def _read(path: str) -> str:
    """The first :data:`MAX_FILE_BYTES` of a regular file (not a FIFO put in its place:
    opened without waiting, checked again once open)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        data = os.read(fd, MAX_FILE_BYTES)
    except OSError:
        return ""
    finally:
        os.close(fd)
    return data.decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class HiddenValues:
    """The values of the files a call was not shown, ready to redact: each spelling
    (the value, its URL-encoded forms) with the value it spells and the file it is from."""

    secrets: Secrets
    owners: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    longest: int = 0
    left: int = 0
    """Values past :data:`MAX_VALUES`, not redacted (:func:`values_bound_note` says so)."""
    plain: tuple[str, ...] = ()
    """The values themselves (not their URL-encoded forms), looked for spelled otherwise."""
    forms: tuple[str, ...] = ()
    """Every spelling in :attr:`owners`, in one tuple (the key of the compiled search)."""
    kept: tuple[str, ...] = ()
    """Values the call may show (a shown file's, committed code's): no half of them is
    looked for as a half of a hidden value."""

    def __bool__(self) -> bool:
        return bool(self.owners)

    def redact(self, text: str, spelled: bool = True) -> tuple[str, dict[str, str]]:
        """``text`` with every value replaced by ``[REDACTED]``, and (with ``spelled``)
        each line holding one spelled otherwise withheld (:meth:`spelled`), and the values
        found (each with the file it is from)."""
        if not self.owners or not text or not holds_any(text, self.plain, self.forms, self.kept):
            return text, {}  # (one pass for both nets: output with none costs less than the plain net did)
        redacted = self.secrets.text(text)
        found: dict[str, str] = {}
        if redacted != text:
            found = dict(f for f in (self.owners.get(m) for m in self.secrets.matches(text)) if f is not None)
        if spelled:
            redacted, more = self.spelled(redacted)
            found.update(more)
        return redacted, found

    def spelled(self, text: str) -> tuple[str, dict[str, str]]:
        """``text`` with each line holding a value spelled otherwise (reversed, base64,
        hex, upper-cased, spaced, in halves …: :mod:`shell.core.secretspellings`) withheld
        whole (finding Z1: a command printed the copy git keeps of a hidden ``.env`` so,
        and only the plain value was taken out), and the values found."""
        out, values = spelled_lines(text, self.plain, WHOSE, self.kept)
        return out, dict(self.owners[v] for v in values if v in self.owners)


NO_VALUES = HiddenValues(Secrets(patterns=False))
WHOSE = "a value of a hidden secret file"
"""Whose value a withheld line held, as its stand-in says."""


MAX_HOME_FILES = 64
"""Other projects' secret files under home (the home walk's) whose values the net takes
at most, the first found: each value is redacted from every output and makes every call
holding it ask, so a clone's hundred ``.env`` files (never opened) must neither steer
every workspace's output nor cost seconds a command (tester round 11, Q11 and Q31)."""
MAX_HOME_BYTES = 1 << 20
"""Bytes of those files (by size) whose values are taken, at most."""


def home_value_files(files: Iterable[Path]) -> list[Path]:
    """The first of home's other secret files within :data:`MAX_HOME_FILES` and
    :data:`MAX_HOME_BYTES` (the values net's home sources: bounded per walk)."""
    return home_value_sources(files)[0]


def home_value_sources(files: Iterable[Path]) -> tuple[list[Path], int]:
    """:func:`home_value_files`, and how many files the bound left out (their values are
    not redacted: :func:`values_bound_note` says what that means). Home's own plain-text
    stores come first (``~/.netrc``, ``~/.wgetrc``: :func:`.homesecrets.value_stores`)."""
    out: list[Path] = []
    total = left = 0
    stores = [p for home in home_dirs() for p in value_stores(home)]
    for path in dict.fromkeys([*stores, *files]):
        if len(out) >= MAX_HOME_FILES:
            left += 1
            continue
        try:
            size = os.stat(path).st_size
        except FileNotFoundError:
            size = 0  # vanished since listed: its last values (:func:`file_values`)
        except OSError:
            continue
        if total + min(size, MAX_FILE_BYTES) > MAX_HOME_BYTES:
            left += 1
            continue
        total += min(size, MAX_FILE_BYTES)
        out.append(path)
    return out, left


def values_bound_note(left: int, values_left: int = 0) -> str:
    """What the user is told when the values net hits a bound (empty when not): home's
    other secret files past :data:`MAX_HOME_FILES` / :data:`MAX_HOME_BYTES` (``left``), or
    values past :data:`MAX_VALUES` (``values_left``). The files stay hidden, but a copy of
    those values elsewhere (git's objects, a log) is not redacted from what commands print
    (finding Q31)."""
    said: list[str] = []
    if left > 0:
        many = left != 1
        files, are, them = ("files", "are", "them") if many else ("file", "is", "it")
        said.append(f"{left} other secret {files} under your home {are} past the values net's bound "
                    f"({MAX_HOME_FILES} files, {MAX_HOME_BYTES >> 20} MB): commands still see {them} empty, "
                    f"but {'their' if many else 'its'} values are not redacted from what commands print")
    if values_left > 0:
        said.append(f"{values_left} value{'s' if values_left != 1 else ''} of the hidden secret files "
                    f"{'are' if values_left != 1 else 'is'} past the values net's bound ({MAX_VALUES} a "
                    "command) and not redacted from what commands print")
    if not said:
        return ""
    return "; ".join(said) + " (a copy elsewhere, in git's objects or a log, would reach the model)"


_Sources = tuple[tuple[str, tuple[str, ...]], ...]
_NetKey = tuple[tuple[str, ...], tuple[str, ...]]
_nets: OrderedDict[_NetKey, tuple[_Sources, _Sources, frozenset[str], HiddenValues]] = OrderedDict()
_nets_lock = threading.Lock()
_NETS_KEPT = 8


def hidden_values(
    hidden: Iterable[Path], shown: Iterable[Path] = (), name: Callable[[Path], str] = str, supplied: str = "",
    copies: Mapping[Path, str] | None = None, roots: Sequence[Path] = (), history: _Sources = (),
) -> HiddenValues:
    """The values of the files ``hidden`` to redact, without those the files in ``shown``
    (which the user let this call see) hold, nor those ``supplied`` (the call's own
    arguments) spells: the model wrote them, and a ``[REDACTED]`` where its own guess
    stands would confirm the guess (finding P4; such a call asks first:
    :mod:`.hiddensent`). ``name`` says a file as the note names it.

    ``copies`` are what the sandbox shows in place of some of them (git's staged copy of
    a tracked one, :mod:`.gitstaged`): their values are hidden values too. A key
    committed, then changed in the file for this machine, printed as committed from
    ``grep -rh KEY ~/projects/p2`` while the net knew only the file's new one (finding Q23).

    Nor those the committed code of the workspace (the first of ``roots``) holds
    (:mod:`.trackedvalues`): a committed ``.env``'s ``API_TOKEN=print(1)`` must not turn
    the code's ``print(1)`` into ``[REDACTED]`` (finding Q11).

    ``history``: values of secret files only git's history holds, each with what the note
    calls it (:func:`.historysecrets.history_sources`: a ``.env`` committed, then removed).

    The matcher is built once for the same files with the same values (each file's
    values kept by its stamp), not for every call (finding Q31); a call whose arguments
    spell one of the values gets its own, without those."""
    hidden = sorted(hidden, key=_changed_at)  # the user's own files before what a command just made
    shown_as = copies or {}
    sources: _Sources = (*history,
                         *((name(path), file_values(path)) for path in hidden),
                         *((name(path), file_values(shown_as[path])) for path in hidden if path in shown_as))
    allowed: _Sources = tuple((str(path), file_values(path)) for path in shown)
    common = committed_values(roots, [v for _, found in sources for v in found]) if roots else frozenset()
    key = (tuple(n for n, _ in sources), tuple(n for n, _ in allowed))
    with _nets_lock:
        kept = _nets.get(key)
    if kept is not None and _same(kept[0], sources) and _same(kept[1], allowed) and kept[2] == common:
        values = kept[3]
    else:
        values = _net(sources, allowed, "", common, len(history))
        with _nets_lock:
            _nets[key] = (sources, allowed, common, values)
            _nets.move_to_end(key)
            while len(_nets) > _NETS_KEPT:
                _nets.popitem(last=False)
    if supplied and values and values.secrets.matches(supplied):
        return _net(sources, allowed, supplied, common, len(history))
    return values


def _changed_at(path: Path) -> int:
    """When the file last changed (its ctime, which no command can set back): the nets
    take a bounded number of values, the oldest files' first, so a command that wrote a
    secret file of 300 values of its own did not push the user's out (finding C14)."""
    try:
        return os.lstat(path).st_ctime_ns
    except OSError:
        return 0


def _same(kept: _Sources, now: _Sources) -> bool:
    """Whether each file gave the very values it gave before (the same tuple: unchanged)."""
    return len(kept) == len(now) and all(a[1] is b[1] for a, b in zip(kept, now, strict=True))


def _net(
    sources: _Sources, allowed_sources: _Sources, supplied: str, common: frozenset[str] = frozenset(),
    history: int = 0,
) -> HiddenValues:
    """The net over ``sources`` (the first ``history`` of them git's history's: taken
    first, but a value a file holds today is named by that file)."""
    allowed = {v for _, values in allowed_sources for v in values} | common
    present: dict[str, str] = {}
    for said_name, values in sources[history:]:
        for value in values:
            present.setdefault(value, said_name)
    owners: dict[str, tuple[str, str]] = {}
    taken = left = 0
    for said_name, values in sources:
        for value in values:
            if value in allowed or value in owners:
                continue
            if taken >= MAX_VALUES:
                left += 1
                continue
            if supplied and any(form in supplied for form in (value, *encoded_forms(value))):
                continue
            taken += 1
            said = (value, present.get(value, said_name))
            for form in (value, *encoded_forms(value)):
                owners.setdefault(form, said)
    if not owners:
        return NO_VALUES
    plain = tuple(dict.fromkeys(value for value, _ in owners.values()))  # the first files' first
    return HiddenValues(Secrets(owners, patterns=False), owners, max(map(len, owners)), left, plain,
                        tuple(sorted(owners)), tuple(sorted(allowed)))


def redacted_note(found: Mapping[str, str]) -> str:
    """``[agent-shell: 2 values of hidden secret files (.env) were redacted from this
    output]``, or empty when none were."""
    if not found:
        return ""
    files = ", ".join(path_text(f) for f in dict.fromkeys(sorted(found.values())))
    n = len(found)
    were = "were" if n != 1 else "was"
    return (f"[agent-shell: {n} value{'s' if n != 1 else ''} of hidden secret files ({files}) {were} "
            "redacted from this output]")


class StreamRedaction:
    """One command's output redacted as it arrives: whole lines (``\\n`` or ``\\r``)
    at a time, the rest held until its line ends, the output ends, or it grows past
    :data:`HOLD` (then cut where no value is split). :attr:`found` collects what was
    redacted, for :func:`redacted_note`."""

    def __init__(self, values: HiddenValues) -> None:
        self.values = values
        self.found: dict[str, str] = {}
        self._held = ""

    def feed(self, text: str) -> str:
        """What of the output so far can be shown, redacted (perhaps empty)."""
        if not self.values:
            return text
        end = max(text.rfind("\n"), text.rfind("\r"))
        if end < 0:
            self._held += text
            if len(self._held) <= HOLD:
                return ""
            cut = self._safe_cut(self._held, len(self._held) - SPELLED_ROOM * self.values.longest)
            ready, self._held = self._held[:cut], self._held[cut:]
            return self._apply(ready)
        ready, self._held = self._held + text[: end + 1], text[end + 1 :]
        if (kept := self._pieces_at_end(ready)) > 0:
            ready, self._held = ready[:-kept], ready[-kept:] + self._held
        return self._apply(ready)

    def _pieces_at_end(self, ready: str) -> int:
        """Characters at the end of ``ready`` that are lines which may be pieces of a
        value spelled over lines (``fold -w7``: :func:`may_continue`), held back until
        the next line shows whether the spelling goes on (up to what a spelling takes)."""
        room = SPELLED_ROOM * self.values.longest
        start = len(ready) - 1
        while start > 0 and len(ready) - start < room:
            before = max(ready.rfind("\n", 0, start), ready.rfind("\r", 0, start))
            if not may_continue(ready[before + 1 : start], self.values.plain, self.values.kept):
                break
            start = before
        return len(ready) - start - 1 if start < len(ready) - 1 else 0

    def flush(self) -> str:
        """The rest, at the end of the output."""
        ready, self._held = self._held, ""
        return self._apply(ready)

    def note(self) -> str:
        return redacted_note(self.found)

    def _apply(self, text: str) -> str:
        out, found = self.values.redact(text)
        self.found.update(found)
        return out

    def _safe_cut(self, text: str, cut: int) -> int:
        """``cut`` moved back before any value (any spelling) that would straddle it."""
        moved = True
        while moved and cut > 0:
            moved = False
            for form in self.values.owners:
                start = text.find(form, max(0, cut - len(form) + 1), cut + len(form) - 1)
                while 0 <= start < cut:
                    if cut < start + len(form):
                        cut, moved = start, True
                        break
                    start = text.find(form, start + 1, cut + len(form) - 1)
            if not moved and (spelled := self._spelled_start(text, cut)) < cut:
                cut, moved = spelled, True
        return max(cut, 0)

    def _spelled_start(self, text: str, cut: int) -> int:
        """Where a spelling of a value that straddles ``cut`` starts (``cut`` when none does)."""
        room = SPELLED_ROOM * self.values.longest
        start = max(0, cut - room)
        for a, b in spelled_spans(text[start : cut + room], self.values.plain, self.values.kept):
            if start + a < cut < start + b:
                return start + a
        return cut

