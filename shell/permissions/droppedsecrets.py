"""Secret files only objects no ref reaches hold (finding D4, the unreachable half).

``echo KEY=… > .env && git stash -u && git stash drop`` (the everyday sequence), or
``git add .env && git rm --cached .env && rm .env``, leaves the key in git's object store
and nowhere else, until ``git gc`` prunes it (two weeks). The history search
(:mod:`.historysecrets`) walks refs and reflogs only, so those values never joined the
values net, and a zlib loop over ``.git/objects`` (any interpreter, ``pigz -dz``) printed
them in clear, unasked: git's own store-wide readers ask (:mod:`.gitstorewide`), but a
reader that does not say "git" is not one of them.

So, once per state of the refs and the index, ``git fsck --unreachable --connectivity-only``
(hardened, bounded by :data:`TIMEOUT`) lists the unreachable objects; the unreachable trees
are read (one ``cat-file --batch``) to name their blobs, and

- a blob named like a secret file (:func:`shell.core.secrets.is_secret_file`: a dropped
  stash's ``.env``) gives its values;
- a blob no unreachable tree names (staged, then unstaged) gives them when its text is
  shaped as a dotenv file (every line ``NAME=value``, a comment or blank) or sets a secret
  by the content rule (:func:`shell.core.secretcontent.sets_a_secret`).

At most :data:`MAX_TREES` trees and :data:`MAX_BLOBS` blobs of :data:`MAX_BLOB_BYTES`
each are read: past them the rest is not searched (the store-wide readers still ask).
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from pathlib import Path

from shell.core.secretcontent import sets_a_secret
from shell.core.secretfilevalues import secret_file_values
from shell.core.secrets import is_secret_file

from . import githardened
from .gitstaged import index_stamp, repository_of

TIMEOUT = 10.0
"""Seconds ``git fsck`` and each batch read may take."""
MAX_TREES = 512
MAX_BLOBS = 256
MAX_BLOB_BYTES = 64 << 10
"""A dotenv file is small; a bigger nameless blob is code or data, not read."""
_DOTENV_LINE = re.compile(r"\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*=.*|\s*(?:#.*)?")

Sources = tuple[tuple[str, tuple[str, ...]], ...]

_lock = threading.Lock()
_known: OrderedDict[tuple[str, object], Sources] = OrderedDict()
_latest: dict[str, Sources] = {}
_running: dict[tuple[str, object], threading.Event] = {}
_too_big: set[str] = set()
"""Repositories whose store git could not list in time: not listed again this session."""
_KEPT = 16
NET_WAIT = 1.0
"""Seconds a command waits for a search under way before using the last answer."""


def dropped_sources(root: Path, refs: object, wait: float = NET_WAIT) -> Sources:
    """The values net's sources from the objects no ref reaches in ``root``'s repository,
    searched once per ``refs`` (the refs' stamp) and size of the index (``git status``
    rewrites the index, ``git rm --cached`` changes its size), in a thread of its own:
    waits ``wait`` at most, then answers with the last search (``benchmarks``: 1.4 s for
    60,000 objects; a store git cannot list within :data:`TIMEOUT` is not listed again)."""
    repo = repository_of(root / "_")
    if repo is None:
        return ()
    name = str(repo)
    stamp = index_stamp(repo)
    key = (name, (refs, stamp[1] if stamp is not None else None))
    with _lock:
        known = _known.get(key)
        if known is not None or name in _too_big:
            return known or ()
        done = _running.get(key)
        if done is None:
            done = _running[key] = threading.Event()
            threading.Thread(target=_run, args=(repo, key, done), daemon=True,
                             name="agent-shell-dropped-secrets").start()
    done.wait(wait)
    with _lock:
        return _known.get(key, _latest.get(name, ()))


def _run(repo: Path, key: tuple[str, object], done: threading.Event) -> None:
    try:
        found = _search(repo)
    except Exception:  # a thread of its own: what it cannot read is not searched
        found = None
    with _lock:
        _running.pop(key, None)
        if found is None:
            _too_big.add(key[0])
        else:
            _known[key] = _latest[key[0]] = found
            while len(_known) > _KEPT:
                _known.popitem(last=False)
    done.set()


def _search(repo: Path) -> Sources | None:
    """What the unreachable objects hold (None: git could not list them in time)."""
    done = githardened.run(["-C", str(repo), "fsck", "--unreachable", "--connectivity-only", "--no-progress"],
                           timeout=TIMEOUT)
    if done is None:
        return None
    trees: list[str] = []
    blobs: list[str] = []
    for line in done.stdout.decode("ascii", "replace").splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0] == "unreachable":
            if fields[1] == "tree" and len(trees) < MAX_TREES:
                trees.append(fields[2])
            elif fields[1] == "blob" and len(blobs) < MAX_BLOBS:
                blobs.append(fields[2])
    if not blobs:
        return ()
    names = _blob_names(repo, trees, set(blobs))
    contents = _read(repo, blobs)
    out: list[tuple[str, tuple[str, ...]]] = []
    for sha in blobs:
        data = contents.get(sha)
        if data is None:
            continue
        text = data.decode("utf-8", "replace")
        name = names.get(sha)
        if name is not None and not is_secret_file(name):
            continue  # a dropped stash's code: not a secret file
        if name is None and not (_dotenv_shaped(text) or sets_a_secret(text)):
            continue
        values = tuple(secret_file_values(text))
        if values:
            out.append((f"{name or 'a secret file'} (in an object no git ref reaches)", values))
    return tuple(out)


def _dotenv_shaped(text: str) -> bool:
    lines = text.splitlines()
    return any("=" in line for line in lines) and all(_DOTENV_LINE.fullmatch(line) for line in lines)


def _blob_names(repo: Path, trees: list[str], wanted: set[str]) -> dict[str, str]:
    """``blob -> name`` for the ``wanted`` blobs the ``trees`` name (a tree's entry name)."""
    out: dict[str, str] = {}
    raw = _objects(repo, trees, "tree")
    for data in raw.values():
        at = 0
        while at < len(data):
            space, nul = data.find(b" ", at), data.find(b"\0", at)
            if space < 0 or nul < 0:
                break
            size = 32 if len(trees[0]) == 64 else 20
            sha = data[nul + 1:nul + 1 + size].hex()
            if sha in wanted:
                out.setdefault(sha, os.fsdecode(data[space + 1:nul]))
            at = nul + 1 + size
    return out


def _read(repo: Path, blobs: list[str]) -> dict[str, bytes]:
    return {sha: data for sha, data in _objects(repo, blobs, "blob").items() if len(data) <= MAX_BLOB_BYTES}


def _objects(repo: Path, ids: list[str], kind: str) -> dict[str, bytes]:
    """``id -> content`` of those of ``ids`` of type ``kind`` (one ``cat-file --batch``;
    objects over :data:`MAX_BLOB_BYTES` are skipped by size first)."""
    if not ids:
        return {}
    checked = githardened.run(["-C", str(repo), "cat-file", "--batch-check"], timeout=TIMEOUT,
                              stdin="".join(i + "\n" for i in ids).encode())
    small: list[str] = []
    for line in (checked.stdout if checked is not None else b"").decode("ascii", "replace").splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] == kind and fields[2].isdigit() \
                and int(fields[2]) <= MAX_BLOB_BYTES:
            small.append(fields[0])
    if not small:
        return {}
    done = githardened.run(["-C", str(repo), "cat-file", "--batch"], timeout=TIMEOUT,
                           stdin="".join(i + "\n" for i in small).encode())
    data = done.stdout if done is not None else b""
    out: dict[str, bytes] = {}
    at = 0
    for sha in small:
        end = data.find(b"\n", at)
        if end < 0:
            break
        fields = data[at:end].decode("ascii", "replace").split()
        at = end + 1
        if len(fields) != 3 or fields[0] != sha or not fields[2].isdigit():
            break
        size = int(fields[2])
        out[sha] = data[at:at + size]
        at += size + 1
    return out


__all__ = ["dropped_sources"]
