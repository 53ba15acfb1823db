"""Where in git's refs a commit a command made is parked, and how the user drops it there.

The second net (:mod:`.gitdeniedcopies`) looks at every commit a command made, on HEAD's
branch or on any other ref: a copy of a read-denied file's content under another name there
is one ``git push``, ``git stash pop`` or ``git log`` away from the model or the world. What
a command can park, and what the user's own git later does with it:

- **the stash** (``refs/stash`` and its reflog, which *is* the stash list): ``git stash
  show -p`` prints an entry, ``git stash pop``/``apply`` writes it into the work tree under
  its harmless name, where the next command reads it. An entry is a merge commit of the work
  tree (HEAD and the index commit its parents, the untracked files a third), and only the top
  one is a ref: ``stash@{1}`` and below are reached through the reflog alone, so every entry
  is counted among the refs' tips (:func:`entries`, read by :func:`.githeads.tips`);
- **notes** (``refs/notes/*``): ``git log`` and ``git show`` print ``refs/notes/commits``' note
  under each commit by default, and a note is any blob (the sandbox's own git shows none:
  :data:`.gitquiet.NO_NOTES`);
- **branches, tags and refs of any other name** (``refs/parked/x``): shown or checked out
  when named, pushed by ``git push --all``/``--mirror``/``--tags``;
- **replace refs**: put back after every command (:mod:`.gitrefs`), so nothing parks there;
- a ref to a tree or a blob rather than a commit: nothing shows or applies it unless the user
  names it, and :func:`.gitrefs.changed` names every ref a command added or moved;
- the reflogs of HEAD and branches: reached only by ``@{n}`` names a user types to recover
  something, and pruned by ``git gc``; left.

The stash is not changed here: an entry a command made may hold the user's uncommitted work
(``git stash`` takes everything), so it is named, with the ``git stash drop`` that removes it.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from . import githardened

TIMEOUT = 10.0
MOST_ENTRIES = 1000
"""Stash entries read at most (newest first)."""
MAX_LOG = 1 << 20
"""Bytes of the stash's reflog read without git (a bigger one is asked of git)."""
STASH = "refs/stash"
_HEX = frozenset(b"0123456789abcdef")


def entries(repo: Path) -> list[tuple[bytes, tuple[bytes, ...]]] | None:
    """The stash list, newest first: each entry's commit and its parents (None: git could
    not say; empty: no stash)."""
    done = githardened.run(["-C", str(repo), "log", "-g", f"--max-count={MOST_ENTRIES}", "--format=%H %P",
                            STASH, "--"], timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return None
    out: list[tuple[bytes, tuple[bytes, ...]]] = []
    for line in done.stdout.splitlines():
        fields = line.split()
        if fields:
            out.append((fields[0], tuple(fields[1:])))
    return out


def tops(repo: Path, gitdir: Path | None) -> list[bytes] | None:
    """Every stash entry's commit (None: git could not say), read from the stash's reflog
    file where there is one (no git started: this runs before commands), else from git."""
    if gitdir is not None:
        common = gitdir
        pointer = gitdir / "commondir"
        try:
            if pointer.is_file():
                common = gitdir / pointer.read_text().strip()
            if not (common / "reftable").exists():
                with open(common / "logs" / "refs" / "stash", "rb") as fh:
                    data = fh.read(MAX_LOG + 1)
                lines = data.splitlines()[-MOST_ENTRIES:]  # the newest last
                found = [f[1] for f in (line.split(None, 2) for line in lines)
                         if len(f) > 1 and len(f[1]) in (40, 64) and _HEX.issuperset(f[1])]
                if len(data) <= MAX_LOG and len(found) == len(lines):
                    return found
        except FileNotFoundError:
            return []  # no reflog: the stash list is its top alone, a ref already counted
        except OSError:
            pass
    listed = entries(repo)
    return None if listed is None else [top for top, _ in listed]


def places(repo: Path, commit: bytes) -> list[str]:
    """Where ``commit`` is parked: ``stash@{n}`` for each stash entry that is it or holds it
    as a parent (its index or untracked files), and the full names of the other refs whose
    history holds it (at most five of each)."""
    out = [f"stash@{{{n}}}" for n, (top, parents) in enumerate(entries(repo) or [])
           if commit == top or commit in parents][:5]
    done = githardened.run(["-C", str(repo), "for-each-ref", "--contains", commit.decode(),
                            "--format=%(refname)"], timeout=TIMEOUT)
    if done is not None and done.returncode == 0:
        refs = [os.fsdecode(line) for line in done.stdout.splitlines() if line and line != STASH.encode()]
        out += refs[:5]
    return out


def how_to_drop(repo: Path, place: str) -> str:
    """The command that removes ``place`` (:func:`places`) from the refs."""
    where = shlex.quote(str(repo))
    if place.startswith("stash@{"):
        return f"git -C {where} stash drop {place}"
    if place.startswith("refs/heads/"):
        return f"git -C {where} branch -D {shlex.quote(place.removeprefix('refs/heads/'))}"
    return f"git -C {where} update-ref -d {shlex.quote(place)}"


def shown(place: str) -> str:
    """``place`` as the user knows it: ``side``, ``the stash entry stash@{1}``, ``notes ref
    refs/notes/commits``."""
    if place.startswith("stash@{"):
        return f"the stash entry {place}"
    kinds = (("refs/heads/", ""), ("refs/tags/", "tag "), ("refs/notes/", "notes ref refs/notes/"))
    for prefix, kind in kinds:
        if place.startswith(prefix):
            return kind + place.removeprefix(prefix)
    return f"the ref {place}"


def parked(repo: Path, commit: bytes) -> tuple[str, str]:
    """Where ``commit`` is parked, and the commands that drop it there (or "rewrite that
    commit", for a ref), each as words."""
    found = places(repo, commit)
    if not found:
        return "a ref other than HEAD", f"`git -C {shlex.quote(str(repo))} for-each-ref --contains " \
                                        f"{commit.decode()}` lists where"
    rewrite = "" if all(p.startswith("stash@{") for p in found) else ", or rewrite that commit"
    return ", ".join(shown(p) for p in found), "; ".join(f"`{how_to_drop(repo, p)}`" for p in found) + rewrite


__all__ = ["entries", "how_to_drop", "parked", "places", "shown", "tops"]
