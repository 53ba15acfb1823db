"""What the dynamic loader loads from the workspace, through the console script and
bubblewrap (finding W6).

With ``LD_LIBRARY_PATH=":/usr/local/lib"`` (an empty entry: the folder the user is in)
an unasked command wrote ``libpython3.11.so.1.0`` into the workspace, kept with no
word, and the next program the user started there loaded it, as them. A library named
like one of the system's in such a folder (and in the ``glibc-hwcaps`` subfolders the
loader tries first) is moved out and named in the result; the project's own library is
kept; one that exists is read-only to commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shell.core.programs import writable_by_commands
from shell.permissions import githardened

from ..sandboxing import require_sandbox
from .conftest import RunCli

Script = Callable[[list[Any]], str]
SYSTEM_LIBZ = 'z=$(ls /lib/*/libz.so.1 /usr/lib/*/libz.so.1 /lib64/libz.so.1 2>/dev/null | head -n 1)'


def system_libz() -> Path:
    for pattern in ("/lib/*/libz.so.1", "/usr/lib/*/libz.so.1", "/lib64/libz.so.1", "/usr/lib/libz.so.1"):
        found = sorted(Path("/").glob(pattern.lstrip("/")))
        if found:
            return found[0]
    pytest.skip("no libz.so.1 on this system")


def run_command(run_cli: RunCli, script: Script, command: str) -> str:
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "build", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    messages = json.loads(r.stdout)["messages"]
    return "\n".join(str(m.get("content")) for m in messages if m.get("role") == "tool")


def test_a_system_library_planted_in_a_folder_on_ld_library_path_is_moved_out_and_named(
    run_cli: RunCli, script: Script, workspace: Path, cli_env: dict[str, str]
) -> None:
    require_sandbox()
    cli_env["LD_LIBRARY_PATH"] = ":/usr/local/lib"
    command = (f"{SYSTEM_LIBZ}; cp $z libz.so.1 && mkdir -p glibc-hwcaps/x86-64-v2 && "
               "cp $z glibc-hwcaps/x86-64-v2/libz.so.1 && echo mine > libmyproject.so && echo planted")
    out = run_command(run_cli, script, command)
    assert "planted" in out, out
    assert not (workspace / "libz.so.1").exists(), out
    assert not (workspace / "glibc-hwcaps" / "x86-64-v2" / "libz.so.1").exists(), out
    assert (workspace / "libmyproject.so").read_text() == "mine\n"  # what the project builds is kept
    assert "libz.so.1: new: is in a folder on your LD_LIBRARY_PATH (an empty entry" in out, out
    assert "moved out of the workspace" in out


def test_a_library_in_an_absolute_workspace_folder_on_ld_library_path_is_read_only(
    run_cli: RunCli, script: Script, workspace: Path, cli_env: dict[str, str]
) -> None:
    require_sandbox()
    build = workspace / "build"
    build.mkdir()
    vendored = system_libz().read_bytes()  # a real one: the CLI's own Python loads it from there
    (build / "libz.so.1").write_bytes(vendored)
    cli_env["LD_LIBRARY_PATH"] = f"{build}:/usr/local/lib"
    out = run_command(run_cli, script, "echo evil >> build/libz.so.1; echo new > build/libnew.so; echo ran")
    assert "ran" in out and "Read-only file system" in out, out
    assert (build / "libz.so.1").read_bytes() == vendored
    assert (build / "libnew.so").read_text() == "new\n"


def test_a_preloaded_library_the_command_creates_in_the_workspace_is_moved_out(
    run_cli: RunCli, script: Script, workspace: Path, cli_env: dict[str, str]
) -> None:
    require_sandbox()
    cli_env["LD_PRELOAD"] = f"{workspace}/tools/preload.so"
    (workspace / "tools").mkdir()
    out = run_command(run_cli, script, "echo code > tools/preload.so; echo ran")
    assert "ran" in out, out
    assert not (workspace / "tools" / "preload.so").exists(), out
    assert "is named by your LD_PRELOAD" in out, out


@pytest.mark.parametrize("entry", ["", "build"])
def test_agent_shells_own_git_does_not_load_a_library_from_the_workspace(
    workspace: Path, monkeypatch: Any, entry: str
) -> None:
    """A broken ``libz.so.1`` where the loader would take it (an empty entry: the folder
    git runs in; the workspace's ``build`` named absolutely): git would not start at all,
    and a real planted one would run as the user, before the check after the command
    moved it out."""
    folder = workspace / entry
    folder.mkdir(exist_ok=True)
    writable_by_commands(workspace)  # as the sandbox does for its workspace
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{folder if entry else ''}:/usr/local/lib")
    (folder / "libz.so.1").write_text("not a library\n")
    done = githardened.run(["--version"], cwd=workspace)
    assert done is not None and done.returncode == 0, done
    assert os.environ["LD_LIBRARY_PATH"].endswith(":/usr/local/lib")  # the user's own is left as it is


def test_a_sitecustomize_planted_in_a_folder_on_pythonpath_is_moved_out_and_named(
    run_cli: RunCli, script: Script, workspace: Path, cli_env: dict[str, str]
) -> None:
    """``PYTHONPATH=":/opt/x"`` (an empty entry: the current folder): a ``sitecustomize.py``
    there runs at every Python the user starts in the workspace, agent-shell's own too."""
    require_sandbox()
    cli_env["PYTHONPATH"] = ":/nonexistent-r19"
    command = "echo 'import os' > sitecustomize.py; echo 'x = 1' > notes.txt; echo ran"
    out = run_command(run_cli, script, command)
    assert "ran" in out, out
    assert not (workspace / "sitecustomize.py").exists(), out
    assert (workspace / "notes.txt").exists()
    assert "sitecustomize.py: new: is in a folder on your PYTHONPATH (an empty entry" in out, out


def test_a_library_planted_where_an_envrc_puts_ld_library_path_is_moved_out(
    run_cli: RunCli, script: Script, workspace: Path, cli_env: dict[str, str]
) -> None:
    """A C project's ``.envrc``: ``export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH``. Once
    direnv ran, every program the user starts loads ``lib/`` first, and with the variable
    unset before, the trailing empty entry is the folder they are in."""
    require_sandbox()
    cli_env.pop("LD_LIBRARY_PATH", None)
    (workspace / ".envrc").write_text("export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH\n")
    (workspace / "lib").mkdir()
    command = f"{SYSTEM_LIBZ}; cp $z lib/libz.so.1 && cp $z libz.so.1 && echo m > lib/libmine.so && echo ran"
    out = run_command(run_cli, script, command)
    assert "ran" in out, out
    assert not (workspace / "lib" / "libz.so.1").exists(), out
    assert not (workspace / "libz.so.1").exists(), out
    assert (workspace / "lib" / "libmine.so").exists()
    assert "lib/libz.so.1: new: is in a folder an .envrc puts on your LD_LIBRARY_PATH" in out, out


def test_a_library_planted_deeper_where_an_empty_entry_also_looks_is_moved_out(
    run_cli: RunCli, script: Script, workspace: Path, cli_env: dict[str, str]
) -> None:
    """An empty entry names the folder the user is in, which may be any folder of the
    workspace (``cd src && make``), not only its root."""
    require_sandbox()
    cli_env["LD_LIBRARY_PATH"] = ":/usr/local/lib"
    (workspace / "src").mkdir()
    command = f"{SYSTEM_LIBZ}; cp $z src/libz.so.1 && echo m > src/libmine.so && echo ran"
    out = run_command(run_cli, script, command)
    assert "ran" in out, out
    assert not (workspace / "src" / "libz.so.1").exists(), out
    assert (workspace / "src" / "libmine.so").exists()
    assert "src/libz.so.1: new: is named like a library of the system" in out, out


def test_a_module_planted_in_a_folder_on_pythonpath_is_moved_out_and_named(
    run_cli: RunCli, script: Script, workspace: Path, cli_env: dict[str, str]
) -> None:
    """An empty ``PYTHONPATH`` entry comes before the standard library and every installed
    package: an ``anyio.py`` or ``tomllib.py`` there ran at the user's next ``agent-shell``
    and in every Python they started in the workspace (finding A10). A module the project
    had stays writable, and one deeper or not importable by name is kept."""
    require_sandbox()
    cli_env["PYTHONPATH"] = ":/nonexistent-r20"
    (workspace / "mine.py").write_text("x = 1\n")
    command = ("echo 'import os' > anyio.py; echo 'import os' > tomllib.py; mkdir yaml src; "
               "echo 'import os' > yaml/__init__.py; echo 'import os' > hook.pth; echo 'y = 2' >> mine.py; "
               "echo 'z = 3' > src/app.py; echo 'w = 4' > my-notes.py; mkdir data; echo ran")
    out = run_command(run_cli, script, command)
    assert "ran" in out, out
    for planted in ("anyio.py", "tomllib.py", "yaml", "hook.pth"):
        assert not (workspace / planted).exists(), (planted, out)
        assert f"{planted}: new: is in a folder on your PYTHONPATH (an empty entry" in out, out
    assert (workspace / "mine.py").read_text() == "x = 1\ny = 2\n"
    assert (workspace / "src" / "app.py").exists() and (workspace / "my-notes.py").exists()
    assert (workspace / "data").is_dir()


def test_agent_shells_start_does_not_import_a_module_an_empty_pythonpath_entry_finds(
    script: Script, workspace: Path, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """A cloned repository with ``anyio.py`` at its root, and ``PYTHONPATH=":/x"``: the
    console script's first start there imported it, as the user, before any question."""
    mark = tmp_path / "mark"
    for name in ("anyio", "tomllib", "platformdirs"):
        (workspace / f"{name}.py").write_text(f"open({str(mark)!r}, 'a').write({name!r})\n")
    cli_env["PYTHONPATH"] = ":/nonexistent-r20"
    console = Path(sys.executable).parent / "agent-shell"
    done = subprocess.run([str(console), "-p", "hi", "--model", script(["Hello."]), "--no-session"],
                          cwd=workspace, env=cli_env, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert not mark.exists(), mark.read_text()
    assert done.returncode == 0, done.stderr
    assert "Hello." in done.stdout
