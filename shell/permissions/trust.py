"""Workspace trust: a repository's own config takes effect only once the user said so.

A cloned repository is someone else's code. Its ``.mcp.json`` names commands to
start and URLs to connect to, and its ``.agent-shell/`` folder may hold project
settings, permission rules and slash commands; all of that would run with the
user's rights and see the user's environment. So none of it is used until the
user *trusts* the workspace, after being shown every command line and URL.

The answer (trusted or declined) is kept per workspace path together with a hash
of the project's config files, in ``trusted-workspaces.json`` in the user config
dir (mode 0600; the sandbox hides that dir from ``run_shell``). When any of those
files changes, is added or removed, the hash no longer matches and the user is
asked again: trusting a repository today does not trust what a ``git pull`` brings
tomorrow.

Nothing here asks anyone: the front ends ask (the TUI with a dialog, the line
mode with a question, headless not at all) and record the answer with
:meth:`TrustStore.decide`. :func:`is_trusted` is what other parts (the permission
rules of a project) consult.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from shell.core.filedata import json_loads

from . import paths
from .mcpsources import folder_print, read_servers

MCP_FILE = ".mcp.json"
PROJECT_DIR = ".agent-shell"
"""The project's own settings, rules and commands live under this folder."""
PROJECT_FILES = (MCP_FILE, PROJECT_DIR)
"""What a workspace may carry that configures the shell (files, or folders read whole)."""
STORE_NAME = "trusted-workspaces.json"
MAX_FILES = 500
MAX_BYTES = 16 * 1024 * 1024

TrustState = Literal["none", "trusted", "untrusted", "declined", "changed"]
"""``none``: the workspace has no project config (nothing to trust);
``trusted``: the user trusted exactly these files; ``untrusted``: never asked;
``declined``: the user said no to exactly these files; ``changed``: the user
answered once, but the files changed since (ask again)."""


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    """The config files of one workspace as read once: what is hashed is what is used.

    ``contents`` maps each file's path relative to the root to its bytes, so a
    front end can show and a loader can parse exactly what was trusted, not a
    file that changed between the question and the start."""

    root: Path
    contents: dict[str, bytes]
    digest: str
    problem: str = ""
    """Why the set was cut short (too many or too large files), if it was."""
    runs: dict[str, str] = field(default_factory=dict)
    """Files of the workspace its ``.mcp.json`` servers run (:mod:`.mcpsources`), and
    why: trusting the file trusts what it starts, so a change to one asks again."""

    @property
    def files(self) -> list[str]:
        return sorted(self.contents)

    @property
    def exists(self) -> bool:
        return bool(self.contents) or bool(self.problem)

    def read(self, relative: str) -> bytes | None:
        return self.contents.get(relative)


@dataclass(frozen=True, slots=True)
class TrustCheck:
    """Where one workspace stands: its config, and the user's recorded answer."""

    config: ProjectConfig
    state: TrustState
    changed: tuple[str, ...] = ()
    """For ``changed``: the files that differ from what the user answered for (added,
    removed or edited), when the answer recorded them."""

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"

    @property
    def needs_answer(self) -> bool:
        """There is project config and the user never answered for these exact files."""
        return self.state in ("untrusted", "changed")


def read_project_config(root: str | os.PathLike[str]) -> ProjectConfig:
    """Read every project config file of ``root`` (bounded) and hash them together."""
    base = paths.real_root(root)  # as the policy and the fence resolve the workspace
    contents: dict[str, bytes] = {}
    problem = ""
    total = 0
    for relative, path in _project_paths(base):
        if len(contents) >= MAX_FILES:
            problem = f"more than {MAX_FILES} project config files; the rest were not read"
            break
        try:
            data = path.read_bytes()
        except OSError as exc:
            data = f"<unreadable: {exc.strerror or exc}>".encode()
        total += len(data)
        if total > MAX_BYTES:
            problem = f"the project config files are larger than {MAX_BYTES // (1024 * 1024)} MB"
            break
        contents[relative] = data
    runs: dict[str, str] = {}
    mcp = contents.get(MCP_FILE)
    named, unread = read_servers(base, mcp) if mcp is not None and not problem else ({}, [])
    problem = problem or "; ".join(unread)
    for path, reason in named.items():
        relative = path.relative_to(base).as_posix()
        if relative in contents:
            continue
        data = _started(path)
        total += len(data)
        if total > MAX_BYTES:
            problem = f"the project config files are larger than {MAX_BYTES // (1024 * 1024)} MB"
            break
        contents[relative], runs[relative] = data, reason.alone
    return ProjectConfig(base, contents, _digest(contents, problem), problem, runs)


MISSING = b"<missing>"
"""What is hashed of a file a server would run that is not there (yet): one appearing asks again."""


def _started(path: Path) -> bytes:
    """What is hashed of a file a server runs: a link's target (an interpreter links
    out of the workspace), a file's bytes, a folder's files (a search path it loads
    from), or a mark that it is missing (so that one appearing asks again)."""
    try:
        if path.is_symlink():
            return f"<symlink to {os.readlink(path)}>".encode()
        if not path.exists():
            return MISSING
        if path.is_dir():  # a search path's folder (PYTHONPATH=lib): what it holds
            return folder_print(path)
        if not path.is_file():  # a FIFO would block the start
            return b"<not a regular file>"
        with open(path, "rb") as fh:
            return fh.read(MAX_BYTES + 1)
    except OSError as exc:
        return f"<unreadable: {exc.strerror or exc}>".encode()


def _project_paths(base: Path) -> Iterator[tuple[str, Path]]:
    """``(relative, path)`` of each file that configures the shell, in a stable order."""
    for name in PROJECT_FILES:
        top = base / name
        if top.is_file():
            yield name, top
        elif top.is_dir():
            found: list[Path] = []
            for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
                dirnames.sort()
                found.extend(Path(dirpath) / f for f in sorted(filenames))
                if len(found) > MAX_FILES:
                    break
            for path in found:
                if path.is_file():
                    yield path.relative_to(base).as_posix(), path


def _digest(contents: dict[str, bytes], problem: str) -> str:
    h = hashlib.sha256()
    for name in sorted(contents):
        data = contents[name]
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    if problem:
        h.update(f"\0problem\0{problem}".encode())
    return h.hexdigest()


_for_this_run: dict[str, str] = {}
"""Workspaces trusted for this process only (``--trust-workspace``): path → digest."""


TRUST_YES = ("y", "yes", "/trust", "/trust yes")
TRUST_NO = ("", "n", "no")
TRUST_REASK = "Please answer y (trust it) or n (not now); /trust later shows these files again."


def trust_answer(text: str) -> bool | None:
    """What a typed answer to "Trust this workspace? [y/N]" means: True, False, or
    None for an answer that is neither (asked again: a typo such as ``/trust`` or
    ``yse`` must not silently count as "no")."""
    answer = " ".join(text.strip().lower().split())
    if answer in TRUST_YES:
        return True
    if answer in TRUST_NO:
        return False
    return None


def store_path() -> Path:
    """``trusted-workspaces.json`` in the user config dir (``AGENT_SHELL_CONFIG_DIR``)."""
    from shell.core.dirs import config_dir

    return config_dir() / STORE_NAME


class TrustStore:
    """The recorded answers, one per workspace path: ``{"trusted", "digest", "files", "at"}``.

    Written atomically (a temporary file renamed over the old one) under an
    exclusive lock, so two shells answering at once do not lose each other's
    answers; readable and writable by the user only."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else store_path()

    def _load(self) -> dict[str, Any]:
        try:
            data = json_loads(self.path.read_text(encoding="utf-8"))  # too deep: ValueError
        except (OSError, ValueError):
            return {}
        workspaces = data.get("workspaces") if isinstance(data, dict) else None
        return workspaces if isinstance(workspaces, dict) else {}

    def record(self, root: str | os.PathLike[str]) -> dict[str, Any] | None:
        entry = self._load().get(_key(root))
        return entry if isinstance(entry, dict) else None

    def check(self, root: str | os.PathLike[str], config: ProjectConfig | None = None) -> TrustCheck:
        """The state of ``root`` now (its config is read unless given)."""
        config = config if config is not None else read_project_config(root)
        if not config.exists:
            return TrustCheck(config, "none")
        if _for_this_run.get(_key(config.root)) == config.digest:
            return TrustCheck(config, "trusted")
        entry = self.record(config.root)
        if entry is None:
            return TrustCheck(config, "untrusted")
        if entry.get("digest") != config.digest:
            return TrustCheck(config, "changed", _changed_files(entry, config))
        return TrustCheck(config, "trusted" if entry.get("trusted") is True else "declined")

    def decide(self, config: ProjectConfig, trusted: bool) -> None:
        """Record the user's answer for exactly these files (each file's hash too, so
        that an edit the user makes themselves can keep the others' trust)."""
        files = {name: hashlib.sha256(data).hexdigest() for name, data in config.contents.items()}
        entry = {"trusted": trusted, "digest": config.digest, "files": files, "at": int(time.time())}
        with self._locked():
            workspaces = self._load()
            workspaces[_key(config.root)] = entry
            self._write(workspaces)

    def forget(self, root: str | os.PathLike[str]) -> bool:
        """Drop the answer for ``root`` (asked again next time); whether there was one."""
        with self._locked():
            workspaces = self._load()
            found = workspaces.pop(_key(root), None) is not None
            if found:
                self._write(workspaces)
        return found

    def entries(self) -> dict[str, dict[str, Any]]:
        """Every recorded workspace path and its answer."""
        return {k: v for k, v in self._load().items() if isinstance(v, dict)}

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _write(self, workspaces: dict[str, Any]) -> None:
        text = json.dumps({"version": 1, "workspaces": workspaces}, indent=2, sort_keys=True)
        fd, tmp = tempfile.mkstemp(prefix=".trust-", dir=self.path.parent)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _changed_files(entry: dict[str, Any], config: ProjectConfig) -> tuple[str, ...]:
    """The files that differ from those the recorded answer hashed (none known if it
    did not record them)."""
    before = entry.get("files")
    if not isinstance(before, dict):
        return ()
    now = {name: hashlib.sha256(data).hexdigest() for name, data in config.contents.items()}
    return tuple(sorted(n for n in {*before, *now} if before.get(n) != now.get(n)))


def _key(root: str | os.PathLike[str]) -> str:
    return str(paths.real_root(root))


def trust_for_this_run(config: ProjectConfig) -> None:
    """Trust exactly these files until the process ends, without recording it."""
    _for_this_run[_key(config.root)] = config.digest


def keep_trusted_after_own_edit(root: str | os.PathLike[str], edited: str) -> bool:
    """The user changed ``edited`` (a path relative to ``root``) themselves, e.g. a
    project rule through ``/permissions``: keep the workspace trusted if every other
    config file is exactly what they trusted before, or trust it if that file is now
    its only config. Never extends trust to a file the user was not shown: a cloned
    repository's ``.mcp.json`` stays untrusted when the user adds a rule next to it.
    Returns whether the workspace is trusted now."""
    store = TrustStore()
    now = read_project_config(root)
    others = {n: hashlib.sha256(d).hexdigest() for n, d in now.contents.items() if n != edited}
    entry = store.record(now.root) or {}
    before = entry.get("files") if entry.get("trusted") is True else None
    same_as_trusted = isinstance(before, dict) and {n: h for n, h in before.items() if n != edited} == others
    if now.problem or not (same_as_trusted or not others):
        return False
    store.decide(now, True)
    return True


def is_trusted(workspace: str | os.PathLike[str], store: TrustStore | None = None) -> bool:
    """Whether the user trusted ``workspace``'s project config exactly as it is now.

    False when it has none (there is nothing of the project's to apply), when the
    user declined or was never asked, and when any of its files changed since."""
    return (store or TrustStore()).check(workspace).trusted
