"""Git's shallow list a sandboxed command wrote, put back when it cuts history the
repository has (tester finding A1).

``.git/shallow`` names the commits git takes for the start of history: it reads no
parent of them. A command that wrote HEAD's id there (``git rev-parse HEAD >
.git/shallow``, no git needed) left ``git log`` one commit long, and the user's next
``git gc`` (or ``gc --auto`` after enough commits) packed only what HEAD reaches and
pruned every older commit once the reflog let go: history lost for good, nothing said.

It is not made read-only as ``info/`` is (``info/grafts``, which cuts history the same
way, is covered there): git's own honest commands write it. ``git fetch --depth`` and
``--deepen`` add the new boundary commits, ``--unshallow`` and ``git prune`` take
entries out. So it is read before each command, and after one that changed it each
commit the command *added* to it is looked up in the object store (hardened git,
``cat-file``, no network): an honest boundary commit lacks a parent (the fetch did not
bring it). One whose parents are all there, one that is missing itself, or a line that
is not an object id, is a cut of history the repository has, and the list is put back
as it was (removed, when there was none) and the result says so. Entries taken out
only make git read further back: left alone.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from . import githardened
from .runslater import Planted

MAX_BYTES = 8 * 1024 * 1024
"""Bytes of shallow list read at most (200,000 entries); one longer is put back unread."""
MAX_NEW = 20_000
"""New entries looked up after one command at most; more are put back unchecked."""
OID = re.compile(rb"[0-9a-f]{40}|[0-9a-f]{64}")

WHY = ("git's shallow list, which names the commits git takes for the start of history: the user's next "
       "git gc would delete every older commit")


def read(gitdir: Path) -> bytes | None:
    """The shallow list of ``gitdir`` (None: there is none, or it is not a regular file)."""
    try:
        fd = os.open(gitdir / "shallow", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def check(gitdir: Path, was: bytes | None) -> list[Planted]:
    """After a command: the shallow list of ``gitdir`` put back as ``was`` when the
    command added a commit to it that is not a real boundary (see the module); only
    those taken out when it added real boundaries too."""
    path = gitdir / "shallow"
    now = read(gitdir)
    odd = now is None and os.path.lexists(path)  # a link (git follows it to what a later command writes)
    if now == was and not odd:
        return []
    before = set((was or b"").splitlines())
    added = [line for line in dict.fromkeys((now or b"").splitlines()) if line not in before]
    whole = not odd and (now is None or len(now) <= MAX_BYTES)
    if not added and whole:
        return []  # entries taken out only (--unshallow, prune): git reads further back
    cut = _not_boundaries(gitdir, added) if whole else None
    if cut == []:
        return []  # git fetch --depth: each new entry lacks a parent here
    named = ", ".join(c[:12].decode("ascii", "replace") for c in (cut or [])[:3]) + (
        f" and {len(cut) - 3:,} more" if cut and len(cut) > 3 else "")
    how = (f"it named {named}, whose parents this repository has" if cut else
           "a link or not a file" if odd else "agent-shell could not check what it named")
    if cut and len(cut) < len(added) and now is not None:  # the honest boundaries beside them kept
        bad = set(cut)
        kept = b"".join(line + b"\n" for line in now.splitlines() if line not in bad)
        done = _put_back(path, kept, "those entries taken out, the real boundaries it added kept")
    else:
        done = _put_back(path, was, "set back as it was" if was is not None else "removed")
    return [Planted(path, WHY, undone=f"{done} ({how})")]


def _not_boundaries(gitdir: Path, added: list[bytes]) -> list[bytes] | None:
    """The entries of ``added`` that are not honest boundaries: not an object id, a
    commit this repository lacks, or one with all its parents here. None: git could not
    tell (missing, timed out) or there are more than :data:`MAX_NEW`."""
    if len(added) > MAX_NEW:
        return None
    bad = [line for line in added if not OID.fullmatch(line)]
    oids = [line for line in added if OID.fullmatch(line)]
    if not oids:
        return bad
    env = {"GIT_DIR": str(gitdir)}
    shown = githardened.run(["cat-file", "--batch"], cwd=gitdir, stdin=b"\n".join(oids) + b"\n", env=env,
                            timeout=60)
    if shown is None or shown.returncode != 0:
        return None
    parents = _parents(shown.stdout, oids)
    if parents is None:
        return None
    wanted = sorted({p for ps in parents.values() if ps for p in ps})
    present: set[bytes] = set()
    if wanted:
        checked = githardened.run(["cat-file", "--batch-check=%(objectname)"], cwd=gitdir, env=env,
                                  stdin=b"\n".join(wanted) + b"\n", timeout=60)
        if checked is None or checked.returncode != 0:
            return None
        present = {line for line in checked.stdout.splitlines() if OID.fullmatch(line)}
    for oid in oids:
        listed = parents.get(oid)
        if listed is None or (listed and all(p in present for p in listed)):
            bad.append(oid)
    return bad


def _parents(out: bytes, oids: list[bytes]) -> dict[bytes, list[bytes]] | None:
    """Each commit's parents, from ``cat-file --batch`` output for ``oids`` (in order);
    a missing one or not a commit left out. None: the output is not what git writes."""
    found: dict[bytes, list[bytes]] = {}
    pos = 0
    for oid in oids:
        end = out.find(b"\n", pos)
        if end < 0:
            return None
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 2 and header[1] == b"missing":
            continue
        if len(header) != 3 or not header[2].isdigit():
            return None
        size = int(header[2])
        body, pos = out[pos:pos + size], pos + size + 1
        if header[1] != b"commit":
            continue
        head = body.split(b"\n\n", 1)[0].split(b"\n")
        found[oid] = [line[7:] for line in head if line.startswith(b"parent ")]
    return found


def _put_back(path: Path, was: bytes | None, done: str) -> str:
    """``path`` made ``was`` (removed when None); ``done``, or what stopped it."""
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            raise OSError("it is now a folder")
        if os.path.islink(path):
            os.unlink(path)
        if was is not None and len(was) > MAX_BYTES:
            raise OSError(f"the list it replaced was longer than the {MAX_BYTES:,} bytes agent-shell keeps")
        scratch = path.with_name("shallow.agent-shell")
        if was is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(scratch)
            fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as fh:
                fh.write(was)
            os.replace(scratch, path)
            return done
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        return done
    except OSError as exc:
        return (f"putting it back FAILED ({exc.strerror or exc}): remove .git/shallow (or set it back) "
                "before you run git gc here")


__all__ = ["WHY", "check", "read"]
