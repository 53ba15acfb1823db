"""Git config files as sandboxed commands see them: without credentials.

A remote URL often carries a token (``https://user:TOKEN@host/…``,
``https://ghp_…@github.com/…``), and so can ``http.extraHeader`` or an
``insteadOf`` rule in ``~/.gitconfig``. ``git remote -v`` or ``cat .git/config`` in
the sandbox (unasked in ``auto`` mode) would hand it to the model. So each git
config a command can read that holds such a thing, in the workspace (every repository
the walls of :mod:`.runslater` guard) and the user's global ones, is shown as a copy
with the credentials taken out, bound read-only over the real one: git still works
(a remote without a password; pushing needs the network, which asks, and then the
user's own credential helper outside the sandbox is the way).

What is taken out: the user part of every ``http(s)``/``ftp(s)`` URL (a token
often *is* the user part), and whatever the one secrets policy
(:mod:`shell.core.secrets`) recognises: passwords in URLs, ``Authorization``
headers, token shapes, assignments to secret-looking keys. Not followed: files a
config pulls in with ``include.path`` (a project rarely keeps one in the tree).
"""

from __future__ import annotations

import atexit
import functools
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from shell.core.secrets import Secrets, is_secret_name

from .gitconfigfile import entries

HIDDEN = "[hidden-by-agent-shell]"
_URL_USER = re.compile(r"\b((?:https?|ftps?)://)[^/\s@\"']+@", re.I)
_KEY_LINE = re.compile(r"^(\s*)([A-Za-z][A-Za-z0-9-]*)(\s*=\s*)(.*)$", re.M)
_SECRET_PARTS = ("pass", "token", "secret")
"""A key whose name holds one of these carries a credential: ``sendemail.smtpPass`` (git
send-email's password, where its docs tell users to keep an app password),
``imap.pass`` (git imap-send's), ``*.password``, ``github.token``, ``*.secret``."""
_NOT_SECRET_VALUES = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
"""Values that carry nothing (``http.sslCertPasswordProtected = true``): left as they are,
so git still reads the boolean it expects."""
_INLINE_HELPER = re.compile(r"^(\s*)(helper)(\s*=\s*)(!.*)$", re.I | re.M)
"""``helper = !f() { echo password=…; }; f``: a credential helper written inline holds
the password itself."""


@functools.cache
def _shapes() -> Secrets:
    return Secrets((), patterns=True)


def scrub(text: str) -> str:
    """``text`` (a git config) without credentials; unchanged when it holds none."""
    out = _URL_USER.sub(r"\1", text)
    out = _KEY_LINE.sub(_hide_secret_entry, out)
    out = _INLINE_HELPER.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}{HIDDEN}", out)
    return _shapes().text(out)


def secret_key(name: str) -> bool:
    """Whether a git config key (its last part: ``smtpPass``, ``extraHeader``) names a
    credential: ``http.extraHeader`` (an ``Authorization`` header), any name holding
    ``pass``, ``token`` or ``secret``, ending in ``key`` (``user.signingKey``, a provider's
    ``apikey``), or one the secrets policy calls secret (:func:`is_secret_name`)."""
    lower = name.lower()
    return (lower == "extraheader" or any(part in lower for part in _SECRET_PARTS) or lower.endswith("key")
            or is_secret_name(name))


def _hide_secret_entry(match: re.Match[str]) -> str:
    """A ``key = value`` line with the value hidden when the key names a credential."""
    value = match.group(4).strip().strip('"').strip().lower()
    if not secret_key(match.group(2)) or value in _NOT_SECRET_VALUES:
        return match.group(0)
    return f"{match.group(1)}{match.group(2)}{match.group(3)}{HIDDEN}"


def is_git_config(path: str | os.PathLike[str]) -> bool:
    """Whether git reads ``path`` as a config (so remote URLs with tokens live there):
    a repository's ``.git/config`` (a worktree's, a submodule's, a bare ``x.git``'s
    too), ``config.worktree``, ``~/.gitconfig``, ``git/config`` under the XDG config
    dir, ``.gitmodules``, and the ``config`` of any folder that is a git directory
    (``HEAD`` and ``objects/`` beside it: ``--separate-git-dir=.gitdata``). By where it
    is, so a link named ``notes.txt`` that leads to one is one: the file tools check
    the resolved path."""
    parts = Path(os.fspath(path)).parts
    if not parts:
        return False
    name, folders = parts[-1], parts[:-1]
    if name in (".gitconfig", ".gitmodules"):
        return True
    if name not in ("config", "config.worktree"):
        return False
    if any(p == ".git" or p.endswith(".git") for p in folders) or (bool(folders) and folders[-1] == "git"):
        return True
    # a git directory by any name (`git init --separate-git-dir=.gitdata`, a submodule's)
    parent = Path(os.fspath(path)).parent
    return os.path.isfile(parent / "HEAD") and os.path.isdir(parent / "objects")


def scrub_note(changed: int) -> str:
    """What a file tool adds when it took credentials out of what it shows."""
    lines = "1 line" if changed == 1 else f"{changed} lines"
    return (f"[credentials in this git config ({lines}) are shown as {HIDDEN} or without the user part "
            "of a URL; git itself still uses them]")


MAX_CONFIG = 1 << 20
"""A config bigger than this is not read: it is hidden instead (shown empty)."""


class ScrubbedConfigs:
    """Copies of git configs without credentials, made once per version of a file
    (its inode, size and mtime), in a private folder of ours removed at exit."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[str, tuple[tuple[int, int, int], str | None]] = {}
        self._dir: str | None = None

    def copy_for(self, path: Path, clean: Callable[[str], str] = scrub) -> str | None:
        """The copy to show in place of ``path``, or None when it holds no credentials
        (or cannot be read: then the command cannot read it either); ``clean`` takes
        them out (a git config's by default; an MCP servers' file's: :mod:`.mcpshown`)."""
        try:
            info = os.stat(path)
        except OSError:
            return None
        key = (info.st_ino, info.st_size, info.st_mtime_ns)
        with self._lock:
            known = self._known.get(str(path))
            if known is not None and known[0] == key and (known[1] is None or os.path.exists(known[1])):
                return known[1]
            copy = self._make(path, info.st_size, clean)
            self._known[str(path)] = (key, copy)
            return copy

    def _make(self, path: Path, size: int, clean_text: Callable[[str], str]) -> str | None:
        try:
            if size > MAX_CONFIG:
                text, clean = "", ""
            else:
                with open(path, encoding="utf-8", errors="surrogateescape") as fh:
                    text = fh.read()
                clean = clean_text(text)
        except OSError:
            return None
        if clean == text and size <= MAX_CONFIG:
            return None
        if self._dir is None or not os.path.isdir(self._dir):
            self._dir = tempfile.mkdtemp(prefix="agent-shell-gitconfig-")
            atexit.register(shutil.rmtree, self._dir, True)
        fd, copy = tempfile.mkstemp(dir=self._dir, suffix=".config")
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(clean)
        os.chmod(copy, 0o444)
        return copy


def global_configs() -> list[Path]:
    """The user's own git configs (``~/.gitconfig``, ``$XDG_CONFIG_HOME/git/config``,
    ``/etc/gitconfig``) that exist, as real paths (a dotfiles symlink is followed:
    bwrap binds there)."""
    home = Path(os.path.expanduser("~"))
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    out = []
    for path in (home / ".gitconfig", xdg / "git" / "config", Path("/etc/gitconfig")):
        if path.is_file():
            out.append(Path(os.path.realpath(path)))
    return list(dict.fromkeys(out))


MAX_INCLUDE_DEPTH = 10
"""git's own limit for ``include.path`` chains."""
_SECTION = re.compile(r"^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+\"[^\"]*\")?\s*\]")
_PATH = re.compile(r"^\s*path\s*=\s*(.*?)\s*$", re.I)


def included_configs(configs: Iterable[Path]) -> list[Path]:
    """The files ``configs`` pull in with ``[include] path = …`` or ``[includeIf …]``
    (every condition counted: which one holds depends on where git runs), followed
    as git does (``~/`` is home, a relative path is beside the including file),
    ``MAX_INCLUDE_DEPTH`` deep, as real paths of regular files that exist. Work
    credentials usually live in exactly such a file (``~/.gitconfig-work``)."""
    seen = {Path(os.path.realpath(p)) for p in configs}
    out: list[Path] = []
    level = list(seen)
    for _ in range(MAX_INCLUDE_DEPTH):
        found: list[Path] = []
        for config in level:
            for target in _include_paths(config):
                real = Path(os.path.realpath(target))
                if real not in seen and real.is_file():
                    seen.add(real)
                    found.append(real)
        out += found
        level = found
        if not level:
            break
    return out


def include_paths(config: Path) -> list[Path]:
    """The paths one config includes (``include.path``, ``includeIf.*.path``), as git
    resolves them, whether they exist or not (:mod:`.gitruns` guards both)."""
    return _include_paths(config)


def _include_paths(config: Path) -> list[Path]:
    listed = entries(config)  # as git reads it (quotes, escapes, `; comments`)
    if listed is None:
        return _guessed_include_paths(config)
    out: list[Path] = []
    for key, raw in listed:
        if key not in ("include.path", "includeif.*.path") or not raw:
            continue
        path = Path(os.path.expanduser(raw)) if raw.startswith("~") else Path(raw)
        out.append(path if path.is_absolute() else config.parent / path)
    return out


def _guessed_include_paths(config: Path) -> list[Path]:
    """A config git cannot list (or too big for it): include lines read one by one."""
    try:
        if os.path.getsize(config) > MAX_CONFIG:
            return []
        with open(config, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return []
    out: list[Path] = []
    including = False
    for line in text.splitlines():
        section = _SECTION.match(line)
        if section is not None:
            including = section.group(1).lower() in ("include", "includeif")
            line = line[section.end():]
        value = _PATH.match(line) if including else None
        if value is None:
            continue
        raw = value.group(1).strip().strip('"')
        if not raw:
            continue
        path = Path(os.path.expanduser(raw)) if raw.startswith("~") else Path(raw)
        out.append(path if path.is_absolute() else config.parent / path)
    return out


__all__ = ["HIDDEN", "ScrubbedConfigs", "global_configs", "include_paths", "included_configs",
           "is_git_config", "scrub", "scrub_note"]
