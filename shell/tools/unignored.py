"""Secret files a command's edit to an ignore or packaging file exposes to the user's next
publish, push or build (finding D19).

A sandboxed command cannot read the hidden ``.env``, but it can change what the user's next
ordinary step does with it: ``printf 'node_modules\\n' > .gitignore`` (the ``.env`` line
gone: the next ``git add -A && git push`` publishes it), a new ``.npmignore`` (npm then
ignores ``.gitignore``: ``npm publish`` uploads ``.env``), a ``package.json`` ``files`` glob
that packs it. None of these names ``.env``, so nothing asked, and the result said nothing
(worse: it said ``.env`` "was removed", as the capture's list of ignored paths lost it).

So after a command that changed such a file, the user is told plainly which secret file is
exposed, to what, and how to put the ignore file back:

- git: a secret-named path the capture's walk passed by as ignored before the command and
  that is there, no longer ignored, after it (:attr:`.capture.WorkspaceCapture.unignored`),
  confirmed by git's own ``git check-ignore`` (hardened) when the workspace is a repository;
- docker, gcloud, vsce, helm, vercel, Heroku and an sdist: a root list file
  (``.dockerignore`` …, ``MANIFEST.in``) the command edited that no longer leaves out a
  secret-named path the walk saw (:mod:`.packlists`, their rules read as documented);
- npm: when the command changed a ``package.json``, ``.npmignore`` or ``.gitignore`` and the
  workspace is a package, npm's own ``npm pack --dry-run --json --ignore-scripts --offline``
  lists what a publish would upload, and the secret-named files in it are said.

The note is said, not undone: the ignore file is the command's to write (a model adding a
rule). The exposed file is not one the command created: the capture leaves it out of what
``/rewind`` would delete.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Collection, Iterable, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path

from shell.core.secrets import is_secret_file
from shell.core.textsafety import path_text
from shell.permissions import githardened

from .changes import CapturedFile
from .packlists import PUBLISHED_BY, newly_published

NPM_TIMEOUT = 20.0
"""Seconds ``npm pack --dry-run`` may take (it reads the package's files, fetches nothing)."""
MAX_NAMED = 5
PACKAGING = frozenset({"package.json", ".npmignore", ".gitignore"})
"""Files whose change can change what ``npm pack`` includes."""


def exposed_note(root: Path, unignored: Iterable[str], changed: Sequence[CapturedFile],
                 seen: Callable[[], Iterable[str]] = tuple) -> str:
    """What a command's result says of secret files its edits exposed (see the module), or "".
    ``seen``: the paths the capture's last walk saw, ignored ones too (read only when a
    publisher's list at the root changed)."""
    said: list[str] = []
    lists = [c for c in changed
             if c.path.parent == root and c.path.name in PUBLISHED_BY and c.after is not None]
    if lists:
        secret = [p for p in seen() if not p.endswith("/") and is_secret_file(p)]
        for c in lists:
            before = c.before.decode("utf-8", "replace") if c.before is not None else None
            after = (c.after or b"").decode("utf-8", "replace")
            taken = [p for p in secret if newly_published(c.path.name, before, after, p)]
            if taken:
                names = ", ".join(path_text(p) for p in taken[:MAX_NAMED])
                said.append(f"this command's edit of {c.path.name} makes {PUBLISHED_BY[c.path.name]} "
                            f"take {names}, which it left out before")
    git = _git_exposed(root, [p for p in unignored if not p.endswith("/") and is_secret_file(p)])
    if git:
        names = ", ".join(path_text(p) for p in git[:MAX_NAMED])
        said.append(f"{names} {'is' if len(git) == 1 else 'are'} no longer ignored by git after this "
                    "command's change to .gitignore: the user's next `git add -A` would stage "
                    f"{'it' if len(git) == 1 else 'them'} and a push would publish the secret")
    if any(c.path.name in PACKAGING for c in changed) and (root / "package.json").is_file():
        packed = npm_packed_secrets(root)
        if packed:
            names = ", ".join(path_text(p) for p in packed[:MAX_NAMED])
            said.append(f"`npm pack --dry-run` now includes {names}: the user's next `npm publish` would "
                        f"upload {'it' if len(packed) == 1 else 'them'}")
    if not said:
        return ""
    return ("[agent-shell: " + "; ".join(said) + ". Tell the user now, and put the ignore rule back "
            "(`git diff` shows the edit; list the file in .gitignore / .npmignore again).]")


def unignored_paths(ignored_before: AbstractSet[str], ignored_after: AbstractSet[str],
                    files_before: Collection[str], files_after: Collection[str]) -> frozenset[str]:
    """Paths the capture's walk passed by as ignored before a command that are scanned files
    (or folders holding some, with those files) after it: an ignore rule removed, not the
    path (the result said such a ``.env`` "was removed")."""
    was = ignored_before - ignored_after
    if not was:
        return frozenset()
    folders = {g for g in was if g.endswith("/")}
    out = {g for g in was if g in files_after}
    for rel in files_after if folders else ():  # the files of a folder no longer ignored
        if rel in files_before:
            continue
        parts = rel.split("/")
        for end in range(1, len(parts)):
            folder = "/".join(parts[:end]) + "/"
            if folder in folders:
                out.update((folder, rel))
                break
    return frozenset(out)


def _git_exposed(root: Path, candidates: list[str]) -> list[str]:
    """Those of ``candidates`` git does not ignore now (all of them when git cannot say:
    the capture's own walk saw them no longer ignored)."""
    if not candidates:
        return []
    done = githardened.run(["-C", str(root), "check-ignore", "-z", "--stdin"],
                           stdin=b"\0".join(os.fsencode(c) for c in candidates) + b"\0", timeout=3.0)
    if done is None or done.returncode not in (0, 1):
        return candidates
    still = {os.fsdecode(p) for p in done.stdout.split(b"\0") if p}
    return [c for c in candidates if c not in still]


def npm_packed_secrets(root: Path) -> list[str]:
    """The secret-named files ``npm pack`` would put in ``root``'s package now (none when npm
    is missing or cannot say): npm's own answer, no lifecycle script run, nothing fetched."""
    npm = shutil.which("npm")
    if npm is None:
        return []
    try:
        done = subprocess.run(  # npm by its path, fixed words, no shell
            [npm, "pack", "--dry-run", "--json", "--ignore-scripts", "--offline", "--loglevel=silent"],
            cwd=root, capture_output=True, timeout=NPM_TIMEOUT, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    try:
        listed = json.loads(done.stdout or b"[]")
    except ValueError:
        return []
    first = listed[0] if isinstance(listed, list) and listed else None
    files = first.get("files", []) if isinstance(first, dict) else []
    return [f["path"] for f in files if isinstance(f, dict) and isinstance(f.get("path"), str)
            and is_secret_file(f["path"])]


__all__ = ["exposed_note", "npm_packed_secrets", "unignored_paths"]
