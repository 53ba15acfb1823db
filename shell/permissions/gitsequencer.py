"""The to-do list of a rebase (or cherry-pick) in progress: what git runs at the
user's ``git rebase --continue``.

A sandboxed command may write the git directory's in-progress state (the agent's own
``git rebase --continue`` after it fixed a conflict must work), and that includes
``rebase-merge/git-rebase-todo``, which git executes line by line: an ``exec CMD``
line runs CMD through the shell, as the user, at the user's next ``--continue``
(tester finding K20). So the ``exec`` lines of each guarded git directory's to-do
lists are read before a command, and after it each ``exec`` (or ``x``) line it added
is taken out again, and the result says so with the line, which the user can add back
with ``git rebase --edit-todo``. The other lines (``pick``, ``edit``, ``drop``) choose
commits, which the user reviews as any commit; they run nothing.

The merge strategy a rebase or cherry-pick in progress uses runs too: git runs
``git-merge-<strategy>`` for any name it does not build in, found on ``PATH`` or, for
a name with a slash (``/../evil.sh`` beside a ``git-merge-`` folder), in the work
tree. So a strategy a command wrote into ``rebase-merge/strategy`` or
``sequencer/opts`` (``strategy = …``) that is not one of git's own is put back as it
was, and said. ``strategy_opts`` only passes options to the strategy, and
``gpg_sign_opt`` names a key (the program comes from the config, read-only to
commands); both are left.

What a rebase (or cherry-pick) in progress saved when it started stays as it is until
it ends: ``orig-head`` (where the user's ``git rebase --abort`` resets the branch and
the work tree to), ``onto``, ``head-name`` (the branch it updates at the end),
``autostash`` (the stash it applies at the end) and ``sequencer/head``. One of those a
command rewrote in the same rebase (its folder the same one: a rebase the command
started anew makes a new folder) is put back, and said: ``--abort`` would have
checked out the command's commit as the user's branch.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from .runslater import Planted

REBASE_LISTS = ("rebase-merge/git-rebase-todo", "sequencer/todo")
"""Where git keeps what is left to do (``git rebase -i``/``--exec`` and ``git cherry-pick``)."""
MAX_BYTES = 4 * 1024 * 1024
"""A strategy or saved file read at most (a bigger one is put back: git's are a line).
The to-do lists are read whole, streamed: git runs every line, however far down
(tester finding L7: 4 MiB of comments, then ``exec``, passed a cap here)."""
CHUNK = 1024 * 1024
"""Bytes of a to-do list read at a time (its ``exec`` lines are found by a regex in C)."""
_CANDIDATE = re.compile(rb"^[ \t]*(?:exec|x)[ \t][^\n]*", re.MULTILINE)
EXEC_WORDS = ("exec", "x")
MAX_SHOWN = 200
"""Characters of a removed line the result shows."""

STRATEGY_FILES = ("rebase-merge/strategy", "sequencer/opts")
"""Where a rebase (``-s``) or a cherry-pick (``options.strategy``) in progress keeps its strategy."""
GIT_STRATEGIES = frozenset({"ort", "recursive", "resolve", "octopus", "ours", "subtree"})
"""Strategies git has itself (in its exec path, searched before ``PATH``)."""
STRATEGY_WHY = ("a merge strategy git does not have itself: your git rebase --continue (or cherry-pick "
                "--continue) would run git-merge-<it> as you")

EXEC_WHY = "an exec line in the rebase to-do list: your git rebase --continue would run it as you"

Todos = Mapping[Path, Counter[str]]
"""Per to-do file (missing ones too): its ``exec`` lines, counted."""


def exec_line(line: str) -> bool:
    """Whether git's sequencer would run ``line`` (``exec CMD``/``x CMD``, after blanks)."""
    word, _, _ = line.strip(" \t").partition(" ")
    word = word.split("\t", 1)[0]
    return word in EXEC_WORDS and len(line.strip(" \t\r")) > len(word)


def _exec_lines(path: Path) -> list[str] | None:
    """The ``exec`` lines of the whole to-do list at ``path`` (None: it cannot be read),
    in order, without their line ends: streamed, so a list of any size costs its
    read and one regex pass, never a cap past which a line goes unseen."""
    out: list[str] = []
    carry = b""
    try:
        with open(path, "rb") as fh:
            while True:
                chunk = fh.read(CHUNK)
                data = carry + chunk
                if chunk:
                    cut = data.rfind(b"\n") + 1
                    data, carry = data[:cut], data[cut:]
                for found in _CANDIDATE.finditer(data):
                    line = found.group().decode("utf-8", "surrogateescape")
                    if exec_line(line):
                        out.append(line.rstrip("\r\n"))
                if not chunk:
                    return out
    except OSError:
        return None


def todos(gitdirs: Sequence[Path]) -> dict[Path, Counter[str]]:
    """The ``exec`` lines of every to-do list the git directories have (or may get)."""
    out: dict[Path, Counter[str]] = {}
    for gitdir in dict.fromkeys(gitdirs):
        for name in REBASE_LISTS:
            out[gitdir / name] = Counter(_exec_lines(gitdir / name) or [])
    return out


SAVED_FILES = (*(f"{folder}/{name}" for folder in ("rebase-merge", "rebase-apply")
                 for name in ("orig-head", "onto", "head-name", "autostash")), "sequencer/head")
"""What a rebase or cherry-pick in progress saved when it started (fixed until it ends)."""
SAVED_WHY = ("what the rebase in progress saved when it started (your git rebase --abort resets "
             "your branch to orig-head; --continue applies autostash and updates head-name)")

Strategies = Mapping[Path, tuple[bytes | None, int]]
"""Per strategy or saved file (missing ones too): its bytes, and its folder's inode (0: none)."""


def strategies(gitdirs: Sequence[Path]) -> dict[Path, tuple[bytes | None, int]]:
    """The strategy and saved files of every guarded git directory, as they are (before a command)."""
    out: dict[Path, tuple[bytes | None, int]] = {}
    for gitdir in dict.fromkeys(gitdirs):
        for name in (*STRATEGY_FILES, *SAVED_FILES):
            out[gitdir / name] = (_bytes(gitdir / name), _inode(gitdir / name))
    return out


def _inode(path: Path) -> int:
    try:
        return os.lstat(path.parent).st_ino
    except OSError:
        return 0


def _bytes(path: Path) -> bytes | None:
    """The file's bytes, one past :data:`MAX_BYTES` at most: a file that long is not
    git's (it writes a line) and is put back, never read in part and passed."""
    try:
        with open(path, "rb") as fh:
            return fh.read(MAX_BYTES + 1)
    except OSError:
        return None


def _foreign(path: Path, data: bytes) -> list[str]:
    """The strategies ``data`` names that git does not have itself (``rebase-merge/strategy``
    holds the name; ``sequencer/opts`` is a config file with ``strategy = name``)."""
    if len(data) > MAX_BYTES:
        return [f"(a file over {MAX_BYTES // (1024 * 1024)} MiB, not read: git reads it all)"]
    text = data.decode("utf-8", "replace")
    if path.name == "strategy":
        names = [text.strip()]
    else:
        names = [line.partition("=")[2].strip().strip('"') for line in text.splitlines()
                 if line.partition("=")[0].strip().lower() == "strategy"]
    return [n for n in names if n and n.lower() not in GIT_STRATEGIES]


def put_back_strategies(before: Strategies) -> list[Planted]:
    """Each strategy file a command changed to name a program git does not have, put
    back as it was (removed when it was not there; ``sequencer/opts``: its strategy
    lines dropped)."""
    out: list[Planted] = []
    for path, (was, folder) in before.items():
        now = _bytes(path)
        if now is None or now == was:
            continue
        if path.name != "strategy" and path.name != "opts":
            if was is not None and folder and _inode(path) == folder:
                out.append(_put_back_saved(path, was, now))
            continue
        foreign = _foreign(path, now)
        if not foreign:
            continue
        try:
            if was is not None:
                _rewrite(path, [was.decode("utf-8", "surrogateescape")])
                undone = "set back as it was"
            elif path.name == "strategy":
                os.unlink(path)
                undone = "removed (git uses its own strategy)"
            else:
                kept = [ln for ln in now.decode("utf-8", "surrogateescape").splitlines(keepends=True)
                        if ln.partition("=")[0].strip().lower() != "strategy"]
                _rewrite(path, kept)
                undone = "its strategy line removed (git uses its own strategy)"
        except OSError as exc:
            undone = (f"putting it back FAILED ({exc.strerror or exc}): run git rebase --abort "
                      "(or cherry-pick --abort)")
        out.append(Planted(path, f"{STRATEGY_WHY}: {foreign[0][:MAX_SHOWN]!r}", undone=undone))
    return out


def _put_back_saved(path: Path, was: bytes, now: bytes) -> Planted:
    shown = now.decode("utf-8", "replace").strip()[:MAX_SHOWN]
    try:
        _rewrite(path, [was.decode("utf-8", "surrogateescape")])
        undone = f"the command set it to {shown!r}; set back to {was.decode('utf-8', 'replace').strip()!r}"
    except OSError as exc:
        undone = (f"the command set it to {shown!r}; putting it back FAILED ({exc.strerror or exc}): "
                  "check it before you run git rebase --abort or --continue")
    return Planted(path, SAVED_WHY, undone=undone)


def drop_new_execs(before: Todos) -> list[Planted]:
    """Each ``exec`` line a command added to a to-do list of ``before``, taken out again."""
    out: list[Planted] = []
    for path, was in before.items():
        lines = _exec_lines(path)
        added = Counter(lines) - Counter(was) if lines else Counter[str]()
        if not added:
            continue  # the usual case: no exec line it did not have, found without a line loop in Python
        dropped: list[str] = []
        undone = "removed (to run it after all: git rebase --edit-todo, and add it back)"
        try:
            _drop_lines(path, Counter(was), dropped)
        except OSError as exc:
            dropped = [line.strip() for line in added.elements()]
            undone = f"removing it FAILED ({exc.strerror or exc}): run git rebase --edit-todo and delete it"
        out += [Planted(path, f"{EXEC_WHY}: {line[:MAX_SHOWN]!r}", undone=undone) for line in dropped]
    return out


def _drop_lines(path: Path, budget: Counter[str], dropped: list[str]) -> None:
    """Rewrite the to-do list at ``path`` without each ``exec`` line past ``budget``
    (the ones it had before), streamed line by line; those lines go to ``dropped``."""
    mode = stat.S_IMODE(os.lstat(path).st_mode)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".agent-shell-todo-")
    try:
        with os.fdopen(fd, "wb") as out, open(path, "rb") as fh:
            for raw in fh:
                line = raw.decode("utf-8", "surrogateescape")
                text = line.rstrip("\r\n")
                if exec_line(line):
                    if budget[text] > 0:
                        budget[text] -= 1
                    else:
                        dropped.append(text.strip())
                        continue
                out.write(raw)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError:
        os.unlink(tmp)
        raise


def _rewrite(path: Path, lines: list[str]) -> None:
    mode = stat.S_IMODE(os.lstat(path).st_mode)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".agent-shell-todo-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write("".join(lines).encode("utf-8", "surrogateescape"))
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError:
        os.unlink(tmp)
        raise


__all__ = ["EXEC_WHY", "REBASE_LISTS", "SAVED_WHY", "STRATEGY_WHY", "Strategies", "Todos", "drop_new_execs",
           "exec_line", "put_back_strategies", "strategies", "todos"]
