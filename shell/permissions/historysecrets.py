"""Secret files only git's history holds (finding A7).

A ``.env`` committed, then ``git rm``'d (the most common leaked-key shape, and the key
still works until rotated), one deleted from the work tree but still tracked, a
``prod.env`` on another branch only, or one the repository a ``.git`` file names tracks
without it being checked out here: no hidden file holds it, so :mod:`.hiddenstore`'s
object-store check (today's files' blobs) does not see it, the values net does not know
its values, and ``git log -p``, ``git diff main deploy``, ``git show``, ``git archive``
ran unasked and printed the key in clear (and an allowed ``fetch_url`` could send it).

So the workspace's repository's history is asked which secret-looking paths
(:func:`shell.core.secrets.is_secret_file`, the one rule) it ever added, on every ref and
reflog entry (``git log --all --reflog --diff-filter=A --name-only``, merges' own
additions too), and each version those paths ever had is read (``git log --raw`` limited
to them, then ``git cat-file --batch``) for the values worth hiding
(:func:`shell.core.secretfilevalues.secret_file_values`). Then:

- a command running one of git's history readers (:func:`.githistory.history_reader`)
  asks in every mode but bypass, whatever allow rules say, naming the file
  (:func:`history_secret_question`), as for a hidden file's stored copy; a checkout,
  reset or merge to another tree counts too unless every such path exists now (the
  sandbox hides it: finding S2's ``git checkout HEAD~1; cat .env``);
- those values are hidden values (:func:`history_sources`): redacted from what commands,
  reads and MCP tools return, and a call carrying one asks (:mod:`.hiddensent`).

Files whose name says nothing but whose content does (a Kubernetes Secret manifest, a
compose file's ``POSTGRES_PASSWORD``, a settings file: :mod:`shell.core.secretcontent`)
have each version judged by that content rule, bounded apart (finding C1: the manifest
removed, the password replaced by ``${VAR}``). The repositories nested under the workspace
that the sandbox's walk saw (a folder of projects, a gitignored ``vendor/`` clone) are
searched the same way, each in its own thread and cache (finding C3: ``git -C proj log -p``): the
first :data:`MAX_NESTED` the walk saw, and those a command's words name, when it is read
(:mod:`.historyplaces`: past the 16, or where the walk never went); a reader that may reach
one only through a place known when it runs asks while the walk saw more than were searched.

Done once per state of the refs (:func:`_refs_stamp`: HEAD, ``packed-refs``, every
folder under ``refs/``, reftable's list, the other worktrees' HEADs: git writes a ref by
renaming a lock file into its folder), in a thread of its own, bounded by :data:`TIMEOUT`
(``benchmarks/git_history_secrets.py``: 10,000 commits). A history git could not search in
time makes the question ask anyway (failing closed) and is not searched again while the
session lasts. After a first search, one for a new state looks only at the commits the
last one's tips do not reach (a commit is what it was: tens of ms after a commit). The
values net waits :data:`NET_WAIT` at most for a search under way, then uses the last
answer for that repository. A script reading the object store itself is not caught (git's
front doors only, as for deny rules).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from shell.core.secretcontent import judged_by_content, text_content_why
from shell.core.secretfilevalues import secret_file_values
from shell.core.secrets import is_secret_file
from shell.core.textsafety import path_text

from . import githardened
from .droppedsecrets import dropped_sources
from .githistory import history_reader
from .gitstaged import git_dir, repository_of
from .historyplaces import named_repositories
from .indexsecrets import staged_sources

TIMEOUT = 10.0
"""Seconds the history search may take (each of its git runs)."""
NET_WAIT = 1.0
"""Seconds the values net waits for a search under way before using the last answer."""
MAX_PATHS = 256
"""Secret-looking paths of the history whose versions are read at most."""
MAX_BLOBS = 128
"""Versions of them read at most (newest first)."""
MAX_BYTES = 4 << 20
"""Bytes of those versions read at most in all (each at most :data:`MAX_BLOB_BYTES`)."""
MAX_BLOB_BYTES = 1 << 20
MAX_CONTENT_PATHS = 2048
"""Paths judged by content (settings files, manifest-looking YAML/JSON) whose versions are
read at most (finding C1): bounded apart from the secret-named ones, which they must not
crowd out, and higher (``benchmarks/git_history_secrets.py --suffix yaml``: 10,000 versions
of 500 YAML files read and judged in about a second), as a repository holds many more of
them: past a bound the search is incomplete and every history reader asks."""
MAX_CONTENT_BLOBS = 16384
"""Versions of them read at most (newest first)."""
MAX_CONTENT_BYTES = 32 << 20
"""Bytes of those versions read at most in all."""
MAX_PATHSPECS = 32
"""Paths past which their versions are picked from the whole log in Python, not by git's
pathspecs (256 pathspecs over 10,000 commits: 2.4 s; the whole ``--raw`` log: 0.6 s)."""
MAX_NESTED = 16
"""Nested repositories under the workspace searched at most (each in a thread of its own)."""
MAX_REF_FOLDERS = 4096
"""Folders under ``refs/`` stamped at most; past it, one ``git for-each-ref`` is the stamp."""
RACY_NS = 100_000_000
"""A stamp taken this soon after a ref changed is not trusted later."""

Sources = tuple[tuple[str, tuple[str, ...]], ...]
"""(what the note names, the values it holds): the values net's sources."""


@dataclass(frozen=True, slots=True)
class HistorySecrets:
    """What the history of one repository holds of secret-looking files."""

    repo: Path
    paths: tuple[str, ...] = ()
    """Secret-looking paths (relative to the repository) any commit added."""
    sources: Sources = ()
    """Each path's values, from every version read (only those holding some)."""
    complete: bool = True
    """False: git could not say in time, or versions were left unread (a bound)."""
    versions: frozenset[str] = frozenset()
    """The blobs read (a later search reads only new ones)."""
    tips: tuple[str, ...] = ()
    """The commits the refs and reflogs named when it began: a later search (a new state
    of the refs) looks only at commits none of them reaches."""
    judged: tuple[str, ...] = ()
    """Paths any commit added that only their content can show secret (a compose file,
    a Kubernetes manifest: :func:`shell.core.secretcontent.judged_by_content`); those whose
    versions held one are in :attr:`paths` too."""
    judged_versions: frozenset[str] = frozenset()
    """The blobs of :attr:`judged` read."""

    @property
    def worth_asking(self) -> bool:
        return bool(self.sources) or not self.complete


@dataclass
class _Search:
    done: threading.Event
    result: HistorySecrets | None = None


_lock = threading.Lock()
_known: OrderedDict[tuple[str, tuple[object, ...]], HistorySecrets] = OrderedDict()
_latest: dict[str, HistorySecrets] = {}
_running: dict[tuple[str, tuple[object, ...]], _Search] = {}
_too_big: dict[str, HistorySecrets] = {}
"""Repositories whose history could not be searched in time: not searched again."""
_KEPT = 32


def history_secrets(root: Path, wait: float = TIMEOUT) -> HistorySecrets | None:
    """What the history of the repository holding ``root`` holds of secret files (None:
    no repository), searched at most once per state of its refs; waits ``wait`` seconds at
    most for a search under way, then answers with the last one (None if none)."""
    repo = repository_of(root / "_")
    if repo is None:
        return None
    name = str(repo)
    with _lock:
        big = _too_big.get(name)
    if big is not None:
        return big
    stamp = _refs_stamp(repo)
    key = (name, stamp[0])
    with _lock:
        known = _known.get(key)
        if known is not None:
            _known.move_to_end(key)
            return known
        search = _running.get(key)
        if search is None:
            search = _running[key] = _Search(threading.Event())
            threading.Thread(target=_run, args=(repo, key, stamp[1], search), daemon=True,
                             name="agent-shell-history-secrets").start()
    if search.done.wait(wait) and search.result is not None:
        return search.result
    with _lock:
        return _latest.get(name)


def nested_repositories(root: Path, seen: Iterable[Path]) -> tuple[Path, ...]:
    """The work trees of the repositories under ``root`` other than its own: the folders
    of the ``.git`` entries the sandbox's walk ``seen`` (:attr:`.secretfiles.SecretFiles.runs_later`,
    the same walk whose hidden files :mod:`.hiddenstore` looks up in their nested
    repositories), at most :data:`MAX_NESTED` (finding C3: ``git -C proj log -p``, a
    gitignored ``vendor/`` clone, a workspace that is a folder of projects)."""
    out: list[Path] = []
    for entry in seen:
        folder = entry.parent
        if entry.name != ".git" or folder == root or root not in folder.parents or folder in out:
            continue
        out.append(folder)
        if len(out) >= MAX_NESTED:
            break
    return tuple(out)


def _all_secrets(root: Path, seen: Iterable[Path], wait: float,
                 named: Iterable[Path] = ()) -> list[tuple[str, HistorySecrets]]:
    """(how the workspace names its work tree, what its history holds) of ``root``'s
    repository, of each nested one and of those a command ``named`` (and earlier ones named:
    :func:`_named_before`): every search started first, then each waited for within ``wait``
    in all."""
    places = list(dict.fromkeys([root, *nested_repositories(root, seen), *_named_before(root, named)]))
    for place in places:
        history_secrets(place, 0)  # each starts its own search (or answers from its cache)
    deadline = time.monotonic() + wait
    out: list[tuple[str, HistorySecrets]] = []
    for place in places:
        found = history_secrets(place, max(deadline - time.monotonic(), 0.0))
        if found is not None and all(found.repo != f.repo for _, f in out):
            out.append((place.relative_to(root).as_posix() if place != root else "", found))
    return out


_named_places: OrderedDict[str, dict[Path, None]] = OrderedDict()
"""Repositories commands named under each workspace (:mod:`.historyplaces`), searched since:
the values net redacts what their histories hold too."""
MAX_NAMED_KEPT = 64


def _named_before(root: Path, named: Iterable[Path]) -> list[Path]:
    """``named`` remembered for ``root``, and every one named there before (bounded)."""
    key = str(root)
    with _lock:
        places = _named_places.setdefault(key, {})
        _named_places.move_to_end(key)
        for place in named:
            places[place] = None
        while len(places) > MAX_NAMED_KEPT:
            places.pop(next(iter(places)))
        while len(_named_places) > _KEPT:
            _named_places.popitem(last=False)
        return list(places)


def _unsearched(root: Path, seen: Iterable[Path], searched: Iterable[Path]) -> int:
    """How many nested repositories the walk saw that were not searched (past :data:`MAX_NESTED`)."""
    done = set(searched)
    return len({e.parent for e in seen if e.name == ".git" and root in e.parent.parents} - done)


def _named(prefix: str, sources: Sources) -> Sources:
    """A nested repository's sources, named from the workspace (``proj/.env (in git's history)``)."""
    return tuple((f"{prefix}/{name}", values) for name, values in sources) if prefix else sources


def history_sources(
    root: Path, wait: float = NET_WAIT, seen: Iterable[Path] = (), command: str = ""
) -> Sources:
    """The values net's sources from the history of ``root``'s repository and of the
    nested ones the walk ``seen`` or ``command`` names (:mod:`.historyplaces`; waiting
    :data:`NET_WAIT` at most in all for searches under way, then the last searches'), and
    the secret files ``root``'s index stages (:mod:`.indexsecrets`) and objects no ref
    reaches hold (:mod:`.droppedsecrets`)."""
    seen = tuple(seen)
    named = named_repositories(command, root, nested_repositories(root, seen)) if command else ()
    searched = _all_secrets(root, seen, wait, named)
    staged = staged_sources(root)  # staged then deleted: only the index holds it (finding D4)
    repo = repository_of(root / "_")  # and a dropped stash's: only objects no ref reaches
    dropped = dropped_sources(root, _refs_stamp(repo)[0]) if repo is not None else ()
    return (*(s for prefix, found in searched for s in _named(prefix, found.sources)), *staged, *dropped)


def history_secret_question(name: str, command: str, root: Path, seen: Iterable[Path] = ()) -> str:
    """The question for a call of the tool ``name`` running ``command`` when it runs one of
    git's history readers while the history of the workspace's repository, or of a nested
    one the walk ``seen``, holds a secret file with values, or ""."""
    reader = history_reader(command, root)
    if not reader:
        return ""  # the cheap check first: most commands are no history reader
    seen = tuple(seen)
    nested = nested_repositories(root, seen)
    named = named_repositories(command, root, nested)  # lazily: past the 16, or the walk (historyplaces)
    moves: bool | None = None
    searched = _all_secrets(root, seen, TIMEOUT + 1.0, named)  # each search stops at TIMEOUT
    for prefix, found in searched:
        if not found.worth_asking:
            continue
        present = bool(found.paths) and all(os.path.lexists(found.repo / rel) for rel in found.paths)
        if present:
            moves = bool(history_reader(command, root, moves=True)) if moves is None else moves
            if not moves:
                continue  # another tree laid out lands where the sandbox hides each of them
        return _question(name, reader, found, prefix)
    left = _unsearched(root, seen, [f.repo for _, f in searched])
    if left and any(mark in command for mark in ("$", "`")):
        return (f"{name} runs `{reader}`, which prints file contents from git's history, in a place "
                f"known only when it runs, and the workspace holds {left} more repositories than were "
                "searched for secret files committed once: a key one of them holds would print in clear. "
                "Approving lets this one command run, and what it prints goes to the model's provider; allow "
                "rules do not cover it.")
    return ""


def _question(name: str, reader: str, found: HistorySecrets, prefix: str) -> str:
    """The words of :func:`history_secret_question` for one repository's history."""
    if not found.complete and not found.sources:
        return (f"{name} runs `{reader}`, which prints file contents from git's history, and the "
                f"history could not be searched for secret files (git failed, or took over {TIMEOUT:g} s): "
                "a key once committed would be printed in clear. Approving lets this one command run, and "
                "what it prints goes to the model's provider; allow rules do not cover it.")
    shown = _named(prefix, found.sources)[0][0] if found.sources else "a secret file"
    more = len({s[0] for s in found.sources}) - 1
    also = f" and {more} more" if more > 0 else ""
    return (f"{name} runs `{reader}`, which prints file contents from git's history, and the history "
            f"holds {path_text(shown)}{also}, a secret file committed once (since removed or changed, on "
            "another branch, in the repository a .git file names or in one inside the workspace): its values "
            "would be printed without "
            f"the file being named. {REDACTED_SPELLINGS} Approving lets this one command run, and what it "
            "prints goes to the model's provider; allow rules do not cover it.")


REDACTED_SPELLINGS = (
    "They are redacted where printed, as they are and in the usual respellings (reversed, re-cased, "
    "spaced, folded, rot13, base64, hex), but not in all: a pipe that shifts their letters otherwise, "
    "encodes them twice or cuts them into small pieces gets them past.")
"""What the values net does to a secret file's values a reader prints, as a question says it
(finding C5: the words said reversals passed, which the net reads, and not what passes)."""


def _run(repo: Path, key: tuple[str, tuple[object, ...]], settled: bool, search: _Search) -> None:
    with _lock:
        previous = _latest.get(key[0])
    try:
        result = _search(repo, time.monotonic() + TIMEOUT, previous)
    except Exception:  # a thread of its own: an unexpected failure fails closed, never silently
        result = HistorySecrets(repo, complete=False)
    with _lock:
        _running.pop(key, None)
        _latest[key[0]] = result
        if not result.complete and not result.paths:
            _too_big[key[0]] = result  # timed out: asking stays, the cost is paid once
        elif settled:
            _known[key] = result
            while len(_known) > _KEPT:
                _known.popitem(last=False)
    search.result = result
    search.done.set()


def _search(repo: Path, deadline: float, previous: HistorySecrets | None = None) -> HistorySecrets:
    """The secret-looking paths the history added, and their versions' values; after a
    ``previous`` complete search, only the commits its tips do not reach are looked at
    (a commit is what it was: its files were judged), the whole history again when git
    cannot resolve one of them (``git gc`` pruned it). Paths only content can show secret
    (:func:`judged_by_content`) have each version judged by content, as today's file would
    be (finding C1: a removed Secret manifest, a compose password replaced by ``${VAR}``)."""
    since = previous if previous is not None and previous.complete and previous.tips else None
    tips = _tips(repo, deadline)
    older = "".join(f"^{t}\n" for t in since.tips).encode() if since is not None else b""
    listed = _git(repo, ["log", "--all", "--reflog", "--format=", "--name-only", "-z", "--no-renames",
                         "--diff-filter=A", "--cc", "--stdin"], deadline, older)
    if listed is None:
        return _search(repo, deadline) if since is not None else HistorySecrets(repo, complete=False)
    names = dict.fromkeys(n.strip("\n") for n in os.fsdecode(listed).split("\0") if n.strip("\n"))
    known = tuple(p for p in since.paths if p not in since.judged) if since is not None else ()
    paths = tuple(dict.fromkeys([*known, *(n for n in names if is_secret_file(n))]))
    was_judged = since.judged if since is not None else ()
    judged = tuple(dict.fromkeys([*was_judged, *(n for n in names
                                                if judged_by_content(n) and not is_secret_file(n))]))
    if not paths and not judged:
        return HistorySecrets(repo, tips=tips)
    before = since.sources if since is not None else ()
    sources: dict[str, dict[str, None]] = {name: dict.fromkeys(v) for name, v in before}
    read_before = since.versions if since is not None else frozenset()
    blobs, read, complete = _group(repo, paths, known, deadline, older, read_before,
                                   (MAX_PATHS, MAX_BLOBS, MAX_BYTES))
    for blob, rel in blobs:
        data = read.get(blob)
        values = secret_file_values(data.decode("utf-8", "replace")) if data is not None else []
        if values:
            sources.setdefault(f"{rel} (in git's history)", {}).update(dict.fromkeys(values))
    judged_before = since.judged_versions if since is not None else frozenset()
    content_bounds = (MAX_CONTENT_PATHS, MAX_CONTENT_BLOBS, MAX_CONTENT_BYTES)
    judged_blobs, judged_read, judged_whole = _group(repo, judged, was_judged, deadline, older, judged_before,
                                                     content_bounds)
    held = [p for p in (since.paths if since is not None else ()) if p in was_judged]
    for blob, rel in judged_blobs:
        data = judged_read.get(blob)
        text = data.decode("utf-8", "replace") if data is not None else ""
        values = secret_file_values(text) if text and text_content_why(rel, text) else []
        if values:
            sources.setdefault(f"{rel} (in git's history)", {}).update(dict.fromkeys(values))
            held.append(rel)
    said = tuple((name, tuple(v)) for name, v in sources.items())
    return HistorySecrets(repo, tuple(dict.fromkeys([*paths, *held])), said, complete and judged_whole,
                          read_before | {b for b, _ in blobs}, tips, judged,
                          judged_before | {b for b, _ in judged_blobs})


Bounds = tuple[int, int, int]
"""(paths, versions, bytes) read at most."""


def _group(
    repo: Path, paths: tuple[str, ...], known: tuple[str, ...], deadline: float, older: bytes,
    read_before: frozenset[str], bounds: Bounds,
) -> tuple[list[tuple[str, str]], dict[str, bytes], bool]:
    """The versions of ``paths`` not read before (``known`` ones: only those in commits the
    ``older`` exclusions do not reach), their contents, and whether nothing was left out."""
    most_paths, most_blobs, most_bytes = bounds
    if not paths:
        return [], {}, True
    fresh = tuple(p for p in paths[:most_paths] if p not in known)
    changed, complete = _versions(repo, tuple(known[:most_paths]), deadline, older, most_blobs) \
        if known else ([], True)
    added, whole = _versions(repo, fresh, deadline, most=most_blobs) if fresh else ([], True)
    blobs = [(b, rel) for b, rel in dict([*added, *changed]).items() if b not in read_before]
    room = most_blobs - len(read_before)
    complete = complete and whole and len(paths) <= most_paths and len(blobs) <= room
    blobs = blobs[:max(room, 0)]
    read = _contents(repo, [b for b, _ in blobs], deadline, most_bytes)
    return blobs, read or {}, complete and read is not None


def _tips(repo: Path, deadline: float) -> tuple[str, ...]:
    """The commits every ref and reflog entry names now (none: git could not say)."""
    listed = _git(repo, ["rev-list", "--no-walk", "--all", "--reflog"], deadline)
    return tuple(listed.decode("ascii", "replace").split()) if listed is not None else ()


def _versions(
    repo: Path, paths: tuple[str, ...], deadline: float, older: bytes = b"", most: int = MAX_BLOBS
) -> tuple[list[tuple[str, str]], bool]:
    """(blob, path) of every version of ``paths`` a commit wrote (not one the ``older``
    exclusions reach), newest first, at most ``most`` (and whether none was left out)."""
    wanted = frozenset(paths)
    many = len(paths) > MAX_PATHSPECS  # git matches each commit's files against every pathspec: slow
    specs = [] if many else ["--", *(f":(literal){p}" for p in paths)]
    raw = _git(repo, ["log", "--all", "--reflog", "--format=", "--raw", "--no-abbrev", "-z", "--no-renames",
                      "--full-history", "-m", "--stdin", *specs], deadline, older)
    if raw is None:
        return [], False
    out: dict[str, str] = {}
    fields = raw.split(b"\0")
    at = 0
    while at + 1 < len(fields):
        meta, path = fields[at].lstrip(b"\n"), os.fsdecode(fields[at + 1])
        at += 2
        parts = meta.split()
        if len(parts) < 5 or not parts[0].startswith(b":"):
            continue
        mode, blob = parts[1], parts[3].decode("ascii", "replace")
        if mode in (b"100644", b"100755") and blob.strip("0") and (not many or path in wanted):
            out.setdefault(blob, path)
    listed = list(out.items())
    return listed[:most], len(listed) <= most


def _contents(
    repo: Path, blobs: list[str], deadline: float, most: int = MAX_BYTES
) -> dict[str, bytes] | None:
    """``blob -> content`` of those of ``blobs`` within :data:`MAX_BLOB_BYTES` each and
    ``most`` in all (None: git failed, or a bound left some out)."""
    if not blobs:
        return {}
    sizes = _git(repo, ["cat-file", "--batch-check"], deadline, "".join(b + "\n" for b in blobs).encode())
    if sizes is None:
        return None
    wanted, total, complete = [], 0, True
    for line in sizes.decode("ascii", "replace").splitlines():
        fields = line.split()
        if len(fields) != 3 or fields[1] != "blob" or not fields[2].isdigit():
            continue
        size = int(fields[2])
        if size > MAX_BLOB_BYTES or total + size > most:
            complete = False
            continue
        total += size
        wanted.append(fields[0])
    data = _git(repo, ["cat-file", "--batch"], deadline, "".join(b + "\n" for b in wanted).encode())
    if data is None:
        return None
    out: dict[str, bytes] = {}
    at = 0
    for blob in wanted:
        end = data.find(b"\n", at)
        fields = data[at:end].decode("ascii", "replace").split() if end >= 0 else []
        if len(fields) != 3 or fields[0] != blob or not fields[2].isdigit():
            return None
        size = int(fields[2])
        out[blob] = data[end + 1:end + 1 + size]
        at = end + 1 + size + 1
    return out if complete else None


def _git(repo: Path, args: list[str], deadline: float, stdin: bytes = b"") -> bytes | None:
    """git ``args`` in ``repo``, hardened, with the time left (None: failed or out of time).
    ``log.showRoot`` on: a first commit's files count (a user's config may turn it off)."""
    left = deadline - time.monotonic()
    if left <= 0.05:
        return None
    done = githardened.run(["-C", str(repo), "-c", "log.showRoot=true", *args], stdin=stdin, timeout=left)
    return done.stdout if done is not None and done.returncode == 0 else None


def _refs_stamp(repo: Path) -> tuple[tuple[object, ...], bool]:
    """What tells one state of ``repo``'s refs from another, and whether it is settled
    (no ref changed in the last :data:`RACY_NS`): the (inode, mtime, ctime) of HEAD, its
    reflog, ``packed-refs``, every folder under ``refs/`` and ``logs/``, reftable's list,
    and the other worktrees' HEADs; past :data:`MAX_REF_FOLDERS`, what ``git for-each-ref``
    says."""
    gitdir = git_dir(repo)
    if gitdir is None:
        return (("no git dir", time.time_ns()),), False
    common = _common(gitdir)
    files = [gitdir / "HEAD", gitdir / "logs" / "HEAD", common / "packed-refs", common / "reftable",
             common / "reftable" / "tables.list", common / "worktrees"]
    try:
        files += [w / n for w in (common / "worktrees").iterdir() for n in ("HEAD", "logs/HEAD")]
    except OSError:
        pass
    folders = _folders(common / "refs", MAX_REF_FOLDERS)
    logs = _folders(common / "logs" / "refs", MAX_REF_FOLDERS)
    if folders is None or logs is None:
        listed = githardened.run(["-C", str(repo), "for-each-ref", "--format=%(refname) %(objectname)"],
                                 timeout=TIMEOUT)
        out = listed.stdout if listed is not None else str(time.time_ns()).encode()
        return (hash(out), *map(_stat, files)), False
    stamps = tuple(_stat(p) for p in (*files, *folders, *logs))
    newest = max((s[3] for s in stamps if isinstance(s[3], int)), default=0)
    return stamps, newest < time.time_ns() - RACY_NS


def _common(gitdir: Path) -> Path:
    """A linked worktree's common git directory (its own otherwise)."""
    try:
        pointer = (gitdir / "commondir").read_text(errors="replace").strip()
    except OSError:
        return gitdir
    return gitdir / pointer if pointer else gitdir


def _folders(top: Path, most: int) -> list[Path] | None:
    out: list[Path] = []
    for folder, _, _ in os.walk(top):
        out.append(Path(folder))
        if len(out) > most:
            return None
    return out


def _stat(path: Path) -> tuple[str, int, int, int]:
    try:
        info = os.lstat(path)
    except OSError:
        return (str(path), 0, 0, 0)
    return (str(path), info.st_ino, info.st_mtime_ns, info.st_ctime_ns)


__all__ = ["REDACTED_SPELLINGS", "HistorySecrets", "Sources", "history_secret_question", "history_secrets",
           "history_sources", "nested_repositories"]
