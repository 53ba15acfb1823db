"""A virtualenv a sandboxed command created, kept only as ``venv`` and pip write it.

The user sources a venv's ``bin/activate`` into their own shell, ``uv run``,
``poetry run`` and VS Code exec its ``bin/python``, and once it is active every
program in its ``bin/`` comes first in their PATH: all of it runs later as the user,
outside the sandbox (tester finding K1). A new ``pyvenv.cfg`` says nothing about who
wrote the ``bin/`` beside it (``mkdir -p .venv/bin && echo … > .venv/bin/activate``
makes one), so each entry of a new venv's ``bin/`` is judged (:func:`judge`):

- ``python``, ``python3``, ``python3.12`` …: a symlink to an interpreter outside the
  workspace (or to such a sibling), or a byte-for-byte copy of the interpreter its
  ``pyvenv.cfg`` names (``--copies``);
- a console-script shim as pip and uv write them: a shebang to this venv's python,
  then only ``from X import Y`` and ``sys.exit(Y())`` (and the ``sys.argv[0]``
  clean-up their templates carry), read as Python syntax, not as text; and not named
  after a program no Python package provides (``git``, ``ls``: :func:`shim_name`); a
  ``pip`` one only as the venv's own pip recorded writing it (:mod:`.venvpip`);
- anything else (``activate``, ``activate.fish``, ``Activate.ps1`` …) must be what
  ``python -m venv`` writes for that folder: a reference venv is made in a temporary
  folder by the venv's own interpreter (``-I``: no environment, no user site), its
  path replaced by this one's, and the texts compared. For a venv whose
  ``pyvenv.cfg`` says ``uv = 0.13.9``, the reference is made by that version of uv
  when one is found outside the workspace (:func:`shell.core.programs.which`).

``pyvenv.cfg`` itself must name interpreters outside the workspace (its ``home``
is where Python looks for the standard library). What fails is moved to the
quarantine by the caller (:func:`.runslater.check`), which says so and how to put it
back. Venvs made by virtualenv (or by a uv not found) carry ``activate`` scripts that
are not checked: those are put aside too, with a note saying so; their pythons and
shims stay (``uv run`` works).
"""

from __future__ import annotations

import ast
import filecmp
import itertools
import os
import re
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from shell.core import programs

from . import paths
from .laternames import VENV_BINS
from .pathdirs import CORE
from .venvpip import NOT_PIP, pip_wrote

PYTHON_NAME = re.compile(r"(?:python|pypy)(?:\d+(?:\.\d+)*)?[tw]?")
"""The interpreter names venv, virtualenv and uv put in ``bin/``."""
CFG_PATHS = ("home", "executable", "base-prefix", "base-exec-prefix", "base-executable")
"""``pyvenv.cfg`` keys that name where the interpreter and its standard library are."""
MAX_ENTRIES = 1024
"""Entries of a new ``bin/`` judged one by one; a bigger one is put aside whole."""
MAX_TEXT = 262_144
"""Bytes of a script read to judge it: more is not a shim or an activate script."""
MAX_COPY = 256 * 1024 * 1024
REFERENCE_SECONDS = 30.0
PLACEHOLDER = b"\x00venv\x00"

BAD_CFG = ("a new virtualenv's pyvenv.cfg that names an interpreter or standard library inside the "
           "workspace (Python would run it as you)")
BAD_BIN = "the bin/ of a new virtualenv whose pyvenv.cfg was put aside"
BAD_PYTHON = ("a new virtualenv's python that is not a link to an interpreter outside the workspace "
              "(uv run, poetry run and your editor run it as you)")
BAD_SCRIPT = ("a new virtualenv's {name} that is not what python -m venv writes for it nor a pip "
              "console script (you source or run it as you once the environment is active)")
NOT_CHECKED = {
    "uv": ("; this venv says uv made it, and its activate scripts are checked against what a uv of the same "
           "version outside the workspace writes: none was found, so compare it first"),
    "virtualenv": ("; this venv says virtualenv made it, whose activate scripts are not checked: compare it "
                   "first"),
}
TOO_BIG = f"a new virtualenv's bin/ with more than {MAX_ENTRIES} entries (too many to check)"


def judge(env: Path, roots: Sequence[Path]) -> list[tuple[Path, str]]:
    """What in the new virtualenv ``env`` must be put aside, and why (empty: it is as
    ``venv`` and pip write it)."""
    cfg = _cfg(env / "pyvenv.cfg")
    bins = [env / name for name in VENV_BINS if os.path.lexists(env / name)]
    if cfg is None or any(_inside(value, roots) for key, value in cfg.items() if key in CFG_PATHS):
        return [(env / "pyvenv.cfg", BAD_CFG), *((b, BAD_BIN) for b in bins)]
    tool = next((key for key in ("uv", "virtualenv") if key in cfg), "")
    out: list[tuple[Path, str]] = []
    for folder in bins:
        out += _judge_bin(env, folder, cfg, tool, roots)
    return out


def _judge_bin(env: Path, folder: Path, cfg: dict[str, str], tool: str,
               roots: Sequence[Path]) -> list[tuple[Path, str]]:
    if os.path.islink(folder) or not folder.is_dir():
        return [(folder, BAD_PYTHON if os.path.islink(folder) else BAD_SCRIPT.format(name=folder.name))]
    try:
        with os.scandir(folder) as scan:
            names = sorted(e.name for e in scan)
    except OSError:
        return [(folder, BAD_SCRIPT.format(name=folder.name))]
    if len(names) > MAX_ENTRIES:
        return [(folder, TOO_BIG)]
    out: list[tuple[Path, str]] = []
    pythons: dict[str, str] = {}
    for name in names:
        if PYTHON_NAME.fullmatch(name):
            interpreter = _interpreter(folder / name, cfg, roots)
            if interpreter:
                pythons[name] = interpreter
            else:
                out.append((folder / name, BAD_PYTHON))
    shebangs = {f"{base}/{folder.name}/{name}" for base in _env_texts(env) for name in pythons}
    reference: dict[str, bytes] | None = None
    for name in names:
        if PYTHON_NAME.fullmatch(name):
            continue
        data = _text(folder / name)
        if data is not None and kept_shim(name, data, shebangs):
            if PIP_NAME.fullmatch(name) and not pip_wrote(folder / name, data):
                out.append((folder / name, NOT_PIP))
            continue
        if reference is None:
            real = next(iter(pythons.values()), "")  # outside the workspace: never the venv's own copy
            reference = _reference(real, env.name, cfg, roots) if real else {}
        if data is not None and _same(data, reference.get(name), env):
            continue
        note = NOT_CHECKED.get(tool, "")
        out.append((folder / name, BAD_SCRIPT.format(name=name) + note))
    return out


MAX_BIN_PINS = 256
"""Entries of an existing venv's ``bin/`` bound read-only one by one; a bigger one is
read-only whole (pip cannot add its programs there, as before)."""
CHANGED_WHY = ("changed: a program in a virtualenv's bin/ (you source its activate; its programs run first "
               "in your PATH once the environment is active)")
ADDED_WHY = ("a program a command added to a virtualenv's bin/ that is not a pip console script (it runs "
             "first in your PATH once the environment is active)")


def bin_entries(folder: Path) -> list[Path] | None:
    """The entries of an existing venv's ``bin/``, to bind read-only one by one so that
    ``pip install`` can add its console scripts; None when it is no plain folder or
    holds more than :data:`MAX_BIN_PINS` (then the folder is read-only whole)."""
    try:
        if os.path.islink(folder) or not folder.is_dir():
            return None
        with os.scandir(folder) as scan:
            names = [e.name for e in itertools.islice(scan, MAX_BIN_PINS + 1)]
    except OSError:
        return None
    return None if len(names) > MAX_BIN_PINS else [folder / name for name in sorted(names)]


def added_to_bin(folder: Path, known: Mapping[Path, object], before_ns: int) -> list[tuple[Path, str]]:
    """What a command added to an existing venv's pinned ``bin/`` (what is not among
    ``known``, the entries before it) that is not a pip console script. All of the
    folder is looked at, however many a command added (the walls' own look stops at
    :data:`MAX_BIN_PINS`); more than :data:`MAX_ENTRIES` new ones: the folder whole.
    ``before_ns``: when the command started (:func:`added_program`)."""
    try:
        with os.scandir(folder) as scan:
            new = [Path(e.path) for e in scan if Path(e.path) not in known]
    except OSError:
        return []
    if len(new) > MAX_ENTRIES:
        return [(folder, f"{len(new)} new programs in a virtualenv's bin/ (too many to check)")]
    return [(path, why) for path in sorted(new) if (why := added_program(path, before_ns))]


def added_program(path: Path, before_ns: int) -> str:
    """Why a new entry of an existing venv's ``bin/`` must be put aside ("" for a
    console script with a shebang to a python of that same ``bin/``; a ``pip`` one only
    as a RECORD there before ``before_ns``, the command's start, lists it)."""
    folder = path.parent
    try:
        pythons = {str(folder / e.name) for e in os.scandir(folder) if PYTHON_NAME.fullmatch(e.name)}
    except OSError:
        return ADDED_WHY
    data = _text(path)
    if data is None or not kept_shim(path.name, data, pythons):
        return ADDED_WHY
    return NOT_PIP if PIP_NAME.fullmatch(path.name) and not pip_wrote(path, data, before_ns) else ""


PIP_NAME = re.compile(r"pip(?:\d+(?:\.\d+)*)?")
PIP_ENTRY = ("pip._internal.cli.main", "main")
"""What pip's own console scripts import (pip >= 19.3): a ``pip`` shim that imports
anything else is no pip, whatever the module it names does."""


def kept_shim(name: str, data: bytes, pythons: set[str]) -> bool:
    """Whether ``data`` is a console script (:func:`is_shim`) that may stay in a venv's
    ``bin/`` under ``name`` (:func:`shim_name`)."""
    entry = shim_entry(data, pythons)
    return entry is not None and shim_name(name, entry[0])


def shim_name(name: str, module: str) -> bool:
    """Whether a console script importing ``module`` may carry ``name``: not an
    interpreter's; ``pip``/``pip3``/``pip3.X`` only for pip's own entry point; not a
    program no Python package provides (:data:`.pathdirs.CORE`: git, ls, ssh, sudo …);
    and not the name of a program found on the user's PATH outside the workspace
    unless that program is a Python script of the same package. A shim is two lines,
    but the module it imports is anything the same command wrote into site-packages: a
    ``bin/git``, ``bin/rg`` (``~/.cargo/bin``, ``/opt/homebrew/bin``) or ``bin/pip``
    shim ran the attacker's code at the user's next ``git``, ``rg`` or ``pip`` once the
    venv was active (findings L3, M2). A Python tool you also have installed
    (``pytest``, ``black``) may be shadowed: its shim imports its own package."""
    if PYTHON_NAME.fullmatch(name):
        return False
    if PIP_NAME.fullmatch(name):
        return module == PIP_ENTRY[0]
    return name not in CORE and not _shadows_other_program(name, module)


MAX_PROGRAM_HEAD = 65_536
"""Bytes of the user's own program read to tell which Python package it runs."""
_VERSION_MANAGER_SHIM = re.compile(rb"pyenv|asdf-plugin: python")


def _shadows_other_program(name: str, module: str) -> bool:
    """Whether ``name`` is a program on the user's PATH (never one inside the workspace
    or a folder commands write) that is not a script of ``module``'s package. A version
    manager's shims (pyenv's, asdf's for python) stand for Python tools and are left alone."""
    found = programs.which(name)
    if found is None:
        return False
    try:
        with open(found, "rb") as program:
            head = program.read(MAX_PROGRAM_HEAD)
    except OSError:
        return True
    if os.path.basename(os.path.dirname(found)) == "shims" and _VERSION_MANAGER_SHIM.search(head):
        return False
    return module.partition(".")[0] not in _python_packages(head)


def _python_packages(head: bytes) -> frozenset[str]:
    """The top-level packages a Python script imports (empty for anything else)."""
    first, _, rest = head.partition(b"\n")
    launcher = first.rstrip() == b"#!/bin/sh" and rest.startswith(b"'''exec'")
    if not (first.startswith(b"#!") and (b"python" in first or launcher)):
        return frozenset()
    try:
        body = ast.parse(head.decode("utf-8"))
    except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    tops: set[str] = set()
    for node in ast.walk(body):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            tops.add(node.module.partition(".")[0])
        elif isinstance(node, ast.Import):
            tops.update(a.name.partition(".")[0] for a in node.names)
    return frozenset(tops - _SAFE_NAMES)


def _inside(text: str, roots: Sequence[Path]) -> bool:
    """Whether a path a venv names is (or leads) inside the workspace; a relative one counts."""
    if not text.startswith("/"):
        return True
    lexical = os.path.normpath(text)
    real = os.path.realpath(text)
    return any(paths.within(Path(p), root) for p in (lexical, real) for root in roots)


def _cfg(path: Path) -> dict[str, str] | None:
    """``pyvenv.cfg``'s keys (lowercase), or None when it is not a small regular file."""
    try:
        if os.path.islink(path) or not path.is_file() or path.stat().st_size > MAX_TEXT:
            return None
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip().lower()] = value.strip()
    prompt = out.get("prompt", "")
    if len(prompt) >= 2 and prompt[0] == prompt[-1] and prompt[0] in "'\"":
        try:
            out["prompt"] = str(ast.literal_eval(prompt))
        except (ValueError, SyntaxError):
            pass
    return out


def _interpreter(path: Path, cfg: dict[str, str], roots: Sequence[Path]) -> str:
    """The interpreter outside the workspace that ``path`` is: where a link leads (or a
    sibling python's link), or the original a copy (``--copies``) is byte for byte of,
    as ``pyvenv.cfg`` names it; "" when it is none of these."""
    if os.path.islink(path):
        real = os.path.realpath(path)
        if not os.path.isfile(real) or _inside(real, roots):
            return ""
        target = os.readlink(path)
        if "/" not in target and PYTHON_NAME.fullmatch(target):
            return real  # a sibling (python -> python3), judged itself; where it leads is outside
        return "" if _inside(os.path.normpath(os.path.join(path.parent, target)), roots) else real
    candidates = [cfg.get("executable", ""), cfg.get("base-executable", "")]
    if cfg.get("home"):
        candidates += [os.path.join(cfg["home"], path.name), os.path.join(cfg["home"], "python3")]
    for original in candidates:
        try:
            if (original and not _inside(original, roots) and os.path.isfile(original)
                    and not os.path.islink(path) and path.is_file()
                    and os.path.getsize(original) <= MAX_COPY and filecmp.cmp(original, path, shallow=False)):
                return os.path.realpath(original)
        except OSError:
            continue
    return ""


def _env_texts(env: Path) -> list[str]:
    """How the venv's own path may be written in its files (as the command saw it, real)."""
    return list(dict.fromkeys([str(env), os.path.realpath(env)]))


def _text(path: Path) -> bytes | None:
    try:
        if os.path.islink(path) or not path.is_file() or path.stat().st_size > MAX_TEXT:
            return None
        return path.read_bytes()
    except OSError:
        return None


def _same(data: bytes, reference: bytes | None, env: Path) -> bool:
    if reference is None:
        return False
    return any(reference.replace(PLACEHOLDER, text.encode()) == data for text in _env_texts(env))


def _reference(python: str, name: str, cfg: dict[str, str], roots: Sequence[Path]) -> dict[str, bytes]:
    """What ``python -m venv`` (or, for a venv uv made, ``uv venv`` of the version its
    ``pyvenv.cfg`` names, found outside the workspace) writes into ``bin/`` (regular
    files only) for a venv named ``name``, its path as :data:`PLACEHOLDER`; empty
    when it cannot be made."""
    prompt = cfg.get("prompt", "")
    try:
        mtime = os.stat(python).st_mtime_ns
        if "uv" not in cfg:
            return _cached_reference(("venv", python, mtime), name, prompt)
        uv = programs.which("uv")
        if uv is None or _inside(os.path.realpath(uv), roots):
            return {}
        uv = os.path.realpath(uv)
        if _uv_version(uv) != cfg["uv"]:
            return {}
        return _cached_reference((uv, python, os.stat(uv).st_mtime_ns), name, prompt)
    except OSError:
        return {}


def _uv_version(uv: str) -> str:
    """``uv --version``'s number (asked each time a new uv venv is judged: a few ms)."""
    try:
        done = subprocess.run([uv, "--version"], env=_ENV, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=REFERENCE_SECONDS, check=True)
    except (OSError, subprocess.SubprocessError):
        return ""
    words = done.stdout.split()
    return words[1] if len(words) > 1 and words[0] == "uv" else ""


_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
"""What the reference's maker gets: nothing of the user's environment (no ``UV_*``,
no ``PYTHON*``), so it writes what a plain run writes."""


_REFERENCES: dict[tuple[tuple[str, str, int], str, str], dict[str, bytes]] = {}
MAX_REFERENCES = 16
_REFERENCES_LOCK = threading.Lock()


def _cached_reference(maker: tuple[str, str, int], name: str, prompt: str) -> dict[str, bytes]:
    """A reference made before, or made now: only one that was made is kept (a maker
    that timed out under load is asked again next time, not taken for "none")."""
    key = (maker, name, prompt)
    with _REFERENCES_LOCK:  # checks after commands run in threads
        known = _REFERENCES.get(key)
    if known is not None:
        return known
    made = _made_reference(maker, name, prompt)
    if made:
        with _REFERENCES_LOCK:
            if len(_REFERENCES) >= MAX_REFERENCES:
                _REFERENCES.pop(next(iter(_REFERENCES)), None)
            _REFERENCES[key] = made
    return made


def _made_reference(maker: tuple[str, str, int], name: str, prompt: str) -> dict[str, bytes]:
    """``maker`` is ``("venv", python, mtime)`` or ``(uv, python, mtime)``."""
    program, python, _ = maker
    with tempfile.TemporaryDirectory(prefix="agent-shell-venv-") as tmp:
        target = os.path.join(tmp, name)
        if program == "venv":
            command = [python, "-I", "-m", "venv", "--without-pip", target]
        else:
            command = [program, "venv", "--no-config", "--offline", "--no-cache", "--no-project", "--quiet",
                       "--python", python, target]
        command += ["--prompt", prompt] if prompt else []
        try:
            subprocess.run(command, cwd=tmp, env={**_ENV, "HOME": tmp}, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=REFERENCE_SECONDS, check=True)
        except (OSError, subprocess.SubprocessError):
            return {}
        out: dict[str, bytes] = {}
        for folder in VENV_BINS:
            here = os.path.join(target, folder)
            if not os.path.isdir(here):
                continue
            for entry in os.listdir(here):
                data = _text(Path(here, entry))
                if data is not None:
                    out[entry] = data.replace(target.encode(), PLACEHOLDER)
        return out


_SH_EXEC = re.compile(r"'''exec' \"?(?P<python>[^\"\n]+?)\"? \"\$0\" \"\$@\"")
"""pip's and uv's launcher when the python's path is too long or has spaces for a shebang."""
_SAFE_NAMES = frozenset({"sys", "re"})
_SAFE_ATTRS = frozenset({"argv", "sub", "endswith", "exit"})
_SAFE_NODES = (ast.Subscript, ast.Attribute, ast.Name, ast.Constant, ast.Slice, ast.UnaryOp, ast.USub,
               ast.Call, ast.Load, ast.Store, ast.BoolOp, ast.And, ast.Or)


def is_shim(data: bytes, pythons: set[str]) -> bool:
    """Whether ``data`` is a console script as pip and uv write it: a shebang to one of
    ``pythons`` (or their ``/bin/sh`` launcher for one), ``import sys`` / ``re``, one
    ``from X import Y``, and under ``if __name__ == "__main__":`` only ``sys.argv[0]``
    trimmed and ``sys.exit(Y())``."""
    return shim_entry(data, pythons) is not None


def shim_entry(data: bytes, pythons: set[str]) -> tuple[str, str] | None:
    """``(X, Y)`` of a console script's ``from X import Y`` (:func:`is_shim`), or None."""
    try:
        text = data.decode("utf-8")
        lines = text.split("\n")
        sh = lines[0].rstrip() == "#!/bin/sh"
        if sh:
            closed = len(lines) > 2 and lines[2].rstrip() == "' '''"
            m = _SH_EXEC.fullmatch(lines[1].rstrip()) if closed else None
            python = m.group("python") if m else ""
        else:
            python = lines[0][2:].strip() if lines[0].startswith("#!") else ""
        if python not in pythons:
            return None
        body = ast.parse(text).body
    except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if sh:
        if not body or not (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)):
            return None
        body = body[1:]
    if not body:
        return None
    imported = module = ""
    for node in body[:-1]:
        if isinstance(node, ast.Import) and all(a.name in _SAFE_NAMES and not a.asname for a in node.names):
            continue
        if (isinstance(node, ast.ImportFrom) and not imported and node.level == 0 and node.module
                and len(node.names) == 1 and node.names[0].asname is None and node.names[0].name != "*"):
            imported, module = node.names[0].name, node.module
            continue
        return None
    return (module, imported) if imported and _main_block(body[-1], imported) else None


def _main_block(node: ast.stmt, imported: str) -> bool:
    if not (isinstance(node, ast.If) and not node.orelse and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"
            and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Eq)
            and len(node.test.comparators) == 1 and isinstance(node.test.comparators[0], ast.Constant)
            and node.test.comparators[0].value == "__main__" and node.body):
        return False
    *fixes, last = node.body
    return all(_argv_fix(s) for s in fixes) and _exit_call(last, imported)


def _argv_fix(node: ast.stmt) -> bool:
    """``sys.argv[0] = re.sub(…)`` or ``if sys.argv[0].endswith(…): sys.argv[0] = sys.argv[0][:-4]``."""
    if isinstance(node, ast.Assign):
        target = node.targets[0] if len(node.targets) == 1 else None
        argv0 = (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
                 and target.slice.value == 0 and _safe(target.value))
        return argv0 and _safe(node.value)
    if isinstance(node, ast.If):
        return _safe(node.test) and all(_argv_fix(s) for s in [*node.body, *node.orelse])
    return False


def _safe(node: ast.AST) -> bool:
    """Only ``sys``/``re``, ``argv``/``sub``/``endswith``, constants and slices: no other call."""
    for part in ast.walk(node):
        if not isinstance(part, _SAFE_NODES):
            return False
        if isinstance(part, ast.Name) and part.id not in _SAFE_NAMES:
            return False
        if isinstance(part, ast.Attribute) and (part.attr not in _SAFE_ATTRS or part.attr == "exit"):
            return False
        if isinstance(part, ast.Call) and not isinstance(part.func, ast.Attribute):
            return False
    return True


def _exit_call(node: ast.stmt, imported: str) -> bool:
    """``sys.exit(Y())`` or ``sys.exit(Y.attr())`` with the one imported name."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    call = node.value
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "exit" and isinstance(func.value, ast.Name)
            and func.value.id == "sys" and len(call.args) == 1 and not call.keywords):
        return False
    inner = call.args[0]
    if not (isinstance(inner, ast.Call) and not inner.args and not inner.keywords):
        return False
    chain = inner.func
    while isinstance(chain, ast.Attribute):
        chain = chain.value
    return isinstance(chain, ast.Name) and chain.id == imported


__all__ = ["added_program", "bin_entries", "is_shim", "judge", "kept_shim", "shim_entry", "shim_name"]
