"""Secret files git's index holds that no work-tree file does (finding D4).

``echo KEY=… > .env && git add .env && rm .env`` (git status: ``AD .env``) leaves the key
staged and nowhere else: the sandbox's walk finds no ``.env`` to hide, the staged copy is
looked up only for files that exist (:mod:`.gitstaged`), and the history search reads only
commits (:mod:`.historysecrets`). So ``git diff --cached`` printed the key in clear, unasked,
and ``git ls-files -s | … | xargs git cat-file -p`` or a zlib loop over ``.git/objects`` did
too.

So the index of the workspace's repository is listed (``git ls-files -s -z``, hardened, once
per state of the index: :func:`.gitstaged.index_stamp`), the entries whose name is a secret
file's (:func:`shell.core.secrets.is_secret_file`, the one rule) are read (one ``cat-file
--batch``, bounded by :data:`MAX_BLOBS` and :data:`MAX_BYTES`) and:

- their values are hidden values (:func:`staged_sources`), redacted from what commands, reads
  and MCP tools return wherever they are printed from (the index, a loose object, a pack);
- a command running one of git's readers (:func:`.githistory.history_reader`) asks in every
  mode but bypass while one of them (with values) is staged and missing from the work tree
  (:func:`staged_secret_question`): with the file present, the sandbox hides it and
  :mod:`.hiddenstore` already asks for its stored copy.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from shell.core.secretfilevalues import secret_file_values
from shell.core.secrets import is_secret_file
from shell.core.textsafety import path_text

from . import githardened
from .githistory import history_reader
from .gitstaged import index_stamp, repository_of, small_blobs, staged_rows

TIMEOUT = 3.0
"""Seconds the index listing may take."""
MAX_BLOBS = 64
"""Staged secret files read at most."""
MAX_BYTES = 4 << 20
"""Bytes of them read at most in all (each at most :data:`.gitstaged.MAX_BLOB`)."""

Sources = tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True, slots=True)
class StagedSecrets:
    """The secret files one state of an index stages, with their values."""

    repo: Path
    sources: Sources = ()
    """(the path as the note names it, its values): only those holding some."""
    paths: tuple[str, ...] = ()
    """Their paths relative to the repository, in the same order."""


_lock = threading.Lock()
_known: OrderedDict[tuple[str, tuple[int, int, int]], StagedSecrets] = OrderedDict()
_KEPT = 32


def staged_secrets(root: Path) -> StagedSecrets | None:
    """What the index of the repository holding ``root`` stages of secret files (None: no
    repository or no index), read once per state of the index."""
    repo = repository_of(root / "_")
    if repo is None:
        return None
    stamp = index_stamp(repo)
    if stamp is None:
        return None
    key = (str(repo), stamp)
    with _lock:
        known = _known.get(key)
        if known is not None:
            _known.move_to_end(key)
            return known
    found = _read(repo)
    with _lock:
        _known[key] = found
        while len(_known) > _KEPT:
            _known.popitem(last=False)
    return found


def _read(repo: Path) -> StagedSecrets:
    done = githardened.run(["-C", str(repo), "ls-files", "-s", "-z"], timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return StagedSecrets(repo)
    wanted: dict[str, list[str]] = {}
    for mode, blob, name in staged_rows(done.stdout):
        rel = os.fsdecode(name)
        if mode in (b"100644", b"100755") and is_secret_file(rel):
            wanted.setdefault(blob.decode("ascii", "replace"), []).append(rel)
        if len(wanted) >= MAX_BLOBS:
            break
    contents = small_blobs(repo, list(wanted), MAX_BYTES)
    sources: list[tuple[str, tuple[str, ...]]] = []
    paths: list[str] = []
    for sha, names in wanted.items():
        values = tuple(secret_file_values(contents.get(sha, b"").decode("utf-8", "replace")))
        if not values:
            continue
        for rel in names:
            sources.append((f"{rel} (staged in git's index)", values))
            paths.append(rel)
    return StagedSecrets(repo, tuple(sources), tuple(paths))


def staged_sources(root: Path) -> Sources:
    """The values net's sources from the index of ``root``'s repository."""
    found = staged_secrets(root)
    return found.sources if found is not None else ()


def staged_secret_question(name: str, command: str, root: Path) -> str:
    """The question for a call of the tool ``name`` running ``command`` when it runs one of
    git's readers while the index stages a secret file (with values) the work tree no longer
    holds, or ""."""
    reader = history_reader(command, root)
    if not reader:
        return ""
    found = staged_secrets(root)
    if found is None:
        return ""
    gone = [rel for rel in found.paths if not os.path.lexists(found.repo / rel)]
    if not gone:
        return ""
    more = f" and {len(gone) - 1} more" if len(gone) > 1 else ""
    return (f"{name} runs `{reader}`, which prints file contents from git, and git's index stages "
            f"{path_text(gone[0])}{more}, a secret file no longer in the work tree (staged, then deleted): "
            "its values would be printed without the file being named (`git diff --cached` prints them). "
            "They are redacted where printed, as they are and in the usual respellings, but not in all. "
            "Approving lets this one command run, and what it prints goes to the model's provider; allow "
            "rules do not cover it.")


__all__ = ["StagedSecrets", "staged_secret_question", "staged_secrets", "staged_sources"]
