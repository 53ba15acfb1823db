"""Which values of the hidden secret files the workspace's own committed code holds.

The values net (:mod:`.hiddenvalues`) redacts a hidden ``.env``'s values from every
output, and a call holding one asks (:mod:`.hiddensent`). A ``.env`` is anyone's to
write: a cloned repository's committed one with ``API_TOKEN=print(1)`` or
``SECRET_KEY=localhost:8080`` made ``cat app.py`` read ``[REDACTED]`` where the code
says ``print(1)``, and turned the model's every edit of that line into a question about
a secret (tester round 11, Q11). A value the workspace's committed, non-secret files
hold is no secret from the model, which reads those files: it is not worth redacting.

Only word- and code-like values are looked up (those that are not :func:`token_like`):
a key-shaped value stays in the net wherever else it stands, so a command that copies a
real key into a tracked file (it would need the key first) wins nothing. The lookup is
one hardened ``git grep -F`` over ``HEAD`` (:mod:`.githardened`: no hooks, no fetch),
(a few rounds of it, each reading the first line of a file that holds a value
still sought), its answer kept while neither the index nor ``HEAD`` moves (a command's ``git status``
rewrites the index: then one ``rev-parse``), bounded by :data:`TIMEOUT` in all: a value
not found by then stays in the net.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Collection, Sequence
from pathlib import Path

from shell.core.secretfilevalues import token_like
from shell.core.secrets import is_secret_file

from . import githardened
from .gitstaged import git_dir, index_stamp, lazy_fetching, repository_of

MAX_CANDIDATES = 256
"""Values looked up at most (in the order given)."""
MAX_ROUNDS = 8
"""``git grep`` runs for one lookup at most: each finds the values of each file's first
line holding one still sought, so one in a later line of the same file only is found by
the next (a value not found stays in the net)."""
TIMEOUT = 3.0
"""Seconds one lookup's ``git`` runs may take in all (past it, what was found so far is
kept: the rest stays in the net)."""
_KEPT = 16

_Key = tuple[str, tuple[int, int, int] | None, frozenset[str]]
_known: OrderedDict[_Key, tuple[str, frozenset[str]]] = OrderedDict()
"""(repository, index stamp, values) -> (HEAD, the values its non-secret files hold)."""
_by_head: OrderedDict[tuple[str, str, frozenset[str]], frozenset[str]] = OrderedDict()
_lock = threading.Lock()


def committed_values(roots: Sequence[Path], values: Collection[str]) -> frozenset[str]:
    """Those of ``values`` (but token-like ones) that the committed non-secret files of the
    repository holding the first of ``roots`` (the workspace) hold."""
    wanted = frozenset(list(v for v in values if v and "\n" not in v and not token_like(v))[:MAX_CANDIDATES])
    if not roots or not wanted:
        return frozenset()
    repo = repository_of(roots[0] / "_")
    if repo is None:
        return frozenset()
    key = (str(repo), index_stamp(repo), wanted)
    with _lock:
        known = _known.get(key)
    if known is not None:
        return known[1]
    head = _head(repo)
    found = _grep(repo, head, wanted) if head else frozenset()
    with _lock:
        _known[key] = (head, found)
        while len(_known) > _KEPT:
            _known.popitem(last=False)
    return found


def _head(repo: Path) -> str:
    done = githardened.run(["-C", str(repo), "rev-parse", "-q", "--verify", "HEAD^{commit}"], timeout=TIMEOUT)
    return done.stdout.decode("ascii", "replace").strip() if done is not None and done.returncode == 0 else ""


def _grep(repo: Path, head: str, wanted: frozenset[str]) -> frozenset[str]:
    """The ``wanted`` strings ``HEAD``'s files hold, but its secret files (a few rounds of
    ``git grep``: :data:`MAX_ROUNDS`; kept per ``HEAD``)."""
    memo = (str(repo), head, wanted)
    with _lock:
        known = _by_head.get(memo)
    if known is not None:
        return known
    gitdir = git_dir(repo)
    if gitdir is None or lazy_fetching(gitdir):  # a partial clone's missing blobs: not fetched, not read
        return frozenset()
    found: set[str] = set()
    deadline = time.monotonic() + TIMEOUT
    for _ in range(MAX_ROUNDS):
        left, budget = wanted - found, deadline - time.monotonic()
        done = _grep_once(repo, head, left, budget) if left and budget > 0.05 else None
        new = _matches(done.stdout, head) & left if done is not None else set()
        found |= new
        if not new:
            break
    return _keep(memo, frozenset(found))


def _grep_once(
    repo: Path, head: str, wanted: frozenset[str], budget: float
) -> subprocess.CompletedProcess[bytes] | None:
    """``git grep -o`` of ``wanted`` in ``HEAD``, the first matching line of each file only
    (``-m 1``: a word of every line of code would print itself a hundred thousand times);
    without ``-m`` on a git older than 2.38."""
    patterns = "".join(f"{v}\n" for v in sorted(wanted)).encode()
    for first in (["-m", "1"], []):
        args = ["grep", "-F", "-o", "-z", "-I", "--no-color", *first, "-f", "-", head, "--"]
        done = githardened.run(["-C", str(repo), *args], stdin=patterns, timeout=budget)
        if done is not None and done.returncode in (0, 1):
            return done
    return None


def _keep(memo: tuple[str, str, frozenset[str]], found: frozenset[str]) -> frozenset[str]:
    with _lock:
        _by_head[memo] = found
        while len(_by_head) > _KEPT:
            _by_head.popitem(last=False)
    return found


def _matches(out: bytes, head: str) -> set[str]:
    """The matched strings of ``git grep -o -z`` output (``HEAD:path\\0match\\n`` each), but
    those in secret files."""
    found: set[str] = set()
    at = 0
    prefix = f"{head}:"
    while at < len(out):
        nul = out.find(b"\0", at)
        end = out.find(b"\n", nul + 1) if nul >= 0 else -1
        if nul < 0 or end < 0:
            break
        path = out[at:nul].decode("utf-8", "replace").removeprefix(prefix)
        if not is_secret_file(path):
            found.add(out[nul + 1:end].decode("utf-8", "replace"))
        at = end + 1
    return found


__all__ = ["committed_values"]
