"""Workspaces no sandbox can fence: ``/``, the home directory, anything holding it,
``~/.config`` or ``~/.local``, and a folder of ``PATH`` (``~/bin``).

``accept-edits`` and ``auto`` run edits and sandboxed commands unasked because what
they change stays in the workspace, and the runs-later guard (:mod:`.runslater`)
keeps the few project files that run as the user read-only. In the home directory
nearly everything runs as the user later: ``~/.bashrc``, ``~/.profile``,
``~/.config/autostart``, ``~/.config/systemd/user``, ``~/.local/bin`` and ``~/bin`` on
``PATH``, ``~/.ssh/authorized_keys``, every program's rc file. No list of them is
complete, so there these two modes ask like ``default`` (the policy says why, at
start and in each question) instead of guarding a list that would miss one.
``/add-dir`` refuses the same directories (:func:`too_broad`)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from . import paths
from .pathdirs import path_entry

SETTINGS_DIRS = frozenset({".config", ".local"})
"""Folders right in home that hold what runs at login (``autostart``, ``systemd/user``,
``bin`` on ``PATH``): as a workspace, as unfenced as home (``~/.config/nvim`` is not)."""


SYSTEM_DIRS = ("/etc", "/usr", "/var", "/boot", "/bin", "/sbin", "/lib", "/lib64", "/root", "/sys", "/proc",
               "/dev", "/run")
"""Directories ``/add-dir`` refuses (and anything in them): what they hold is the
system's (``/etc/shadow``, host keys, services), not a project the agent should
read and write unasked."""


def home() -> Path:
    return paths.resolve("~", "/")


def too_broad(path: Path) -> str:
    """Why a directory may not be added to the workspace, or "": ``/`` or the home
    directory (or anything holding it) would let sandboxed commands write the user's
    shell start-up files (``~/.bashrc``), keys and every other project, and unasked
    edits reach them in accept-edits and auto. A directory inside home is fine."""
    mine = home()
    if path == Path(path.anchor):
        return "is the root of the file system; add the directories you need inside it instead"
    if path == mine or path in mine.parents:
        return ("holds your home directory (shell start-up files, keys, every project); add the "
                "directories you need inside it instead")
    system = next((d for d in SYSTEM_DIRS if path == Path(d) or Path(d) in path.parents), None)
    if system is not None and not (path == mine or mine in path.parents):
        return (f"is in {system}, a system directory (passwords, keys, programs and services everyone "
                "runs); copy what you need into your project instead")
    return ""


LOGIN_DIRS = frozenset({*SETTINGS_DIRS, ".ssh", ".gnupg"})
"""Folders right in home a ``[sandbox] writable`` entry may not be (or hold): what
runs at login, ssh's config (``ProxyCommand``) and keys, gpg's agent config."""


def too_broad_writable(path: Path) -> str:
    """Why a ``[sandbox] writable`` folder is refused, or "": what ``/add-dir`` refuses
    (home, anything holding it: ``~/bin/bwrap`` planted there ran as the user, finding
    M6), and :data:`LOGIN_DIRS` as a whole (``~/.config`` let commands write the global
    git config, autostart and systemd units unasked). A folder inside them that the
    user names (``~/.config/pip``) is theirs to open."""
    why = too_broad(path)
    if why:
        return why
    mine = home()
    if path.parent == mine and path.name in LOGIN_DIRS:
        return ("holds what runs as you at login or when you connect (autostart, systemd user units, "
                "~/.local/bin on your PATH, ssh's config); name the folder inside it you need instead")
    return ""


def unfenced(roots: list[Path]) -> str:
    """Why ``accept-edits`` and ``auto`` cannot run anything unasked in a workspace
    with these roots ("" when they can): the first root that is ``/``, holds the home
    directory, or is ``~/.config`` or ``~/.local``."""
    mine = home()
    for root in roots:
        if root == Path(root.anchor):
            return f"the workspace {root} is the root of the file system"
        if root == mine:
            return f"the workspace {root} is your home directory"
        if root in mine.parents:
            return f"the workspace {root} holds your home directory"
        if root.parent == mine and root.name in SETTINGS_DIRS:
            return f"the workspace {root} holds what your desktop and shell start at login"
        if root in path_folders():
            return (f"the workspace {root} is a folder of your PATH (its programs run as you whenever you "
                    "type their names)")
    return ""


def path_folders() -> frozenset[Path]:
    """The absolute folders of ``PATH`` (``~/bin``, ``~/.local/bin``), resolved: a workspace
    that is one runs as the user at every prompt, so a program a command changes there
    (``~/bin/mytool``, tester's note in round 9) is as unfenced as ``~/.bashrc``. A
    relative entry (``.``) is left out: it would make every workspace one; ``~/bin``
    counts as the shell expands it (:func:`.pathdirs.path_entry`)."""
    return _path_folders(os.pathsep.join(map(path_entry, os.environ.get("PATH", "").split(os.pathsep))))


@functools.lru_cache(maxsize=8)
def _path_folders(value: str) -> frozenset[Path]:
    """Resolved once per value of ``PATH`` (its ``~`` expanded: ``HOME`` may change)."""
    out: set[Path] = set()
    for entry in value.split(os.pathsep):
        if entry and os.path.isabs(entry):
            try:
                out.add(Path(os.path.realpath(entry)))
            except (OSError, ValueError):
                continue
    return frozenset(out)


def unfenced_note(why: str, mode: str) -> str:
    """What the policy says when ``mode`` asks where it would not elsewhere."""
    return (f"{mode} mode runs nothing unasked here: {why}, where files run as you later, outside any "
            "sandbox (~/.bashrc, ~/.profile, ~/.config/autostart, ~/.local/bin …), and no list of them is "
            "complete. Start agent-shell in a project folder for edits and commands to run unasked.")


__all__ = ["LOGIN_DIRS", "SETTINGS_DIRS", "SYSTEM_DIRS", "home", "path_folders", "too_broad",
           "too_broad_writable", "unfenced", "unfenced_note"]


def home_dirs() -> list[Path]:
    """``$HOME`` and the password database's home when they differ (a sandbox run with
    ``HOME`` pointed elsewhere still hides, and guards, the real one's files)."""
    homes = [Path(os.path.expanduser("~"))]
    try:
        import pwd

        homes.append(Path(pwd.getpwuid(os.getuid()).pw_dir))
    except (ImportError, KeyError):
        pass
    return list(dict.fromkeys(homes))
