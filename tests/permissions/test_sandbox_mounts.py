"""The sandbox's file binds made by the launcher inside it (shell.permissions.sandboxmounts),
against the real bubblewrap: what was hidden stays hidden, the command keeps no capability
and no trace of the launcher, and where the launcher cannot work the command runs once
with bubblewrap's own mounts."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.permissions import sandboxlaunch, sandboxmounts
from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command

from ..sandboxing import require_sandbox
from .home_setup import plant, sandbox_home

pytestmark = pytest.mark.anyio

OTHERS = [f"projects/p{n}/.env" for n in range(6)]


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(sandboxmounts, "WORTH", 1)  # the launcher takes even a few binds
    monkeypatch.setattr(sandboxmounts, "_failures", [0])
    base_iter = sandbox_home(monkeypatch, ".agent-shell-test-mounts-")
    base = next(base_iter)
    plant(base, OTHERS, lambda rel: f"KEY=sk-proj-{rel.split('/')[1].upper()}SECRET\n")
    (base / "project" / ".env").write_text("DB_PASSWORD=sk-proj-WORKSPACESECRET\n")
    (base / "project" / "notes.txt").write_text("PLAIN\n")
    time.sleep(0.15)  # listings changed within 0.1 s are not trusted
    yield base
    next(base_iter, None)


def spy_launches(monkeypatch: pytest.MonkeyPatch) -> list[sandboxlaunch.Launch]:
    launched: list[sandboxlaunch.Launch] = []
    real = sandboxlaunch.launch

    def spy(*args: Any, **kwargs: Any) -> sandboxlaunch.Launch:
        launched.append(real(*args, **kwargs))
        return launched[-1]

    monkeypatch.setattr(sandboxlaunch, "launch", spy)
    return launched


async def sh(box: Sandbox, command: str) -> str:
    result = await run_command(command, box.workspace, 60, lambda _: None, sandbox=box)
    return str(result.text)


CATS = "cd ~ && cat " + " ".join(OTHERS) + " project/.env project/notes.txt; echo end"


async def test_the_launcher_hides_what_bubblewraps_binds_hid(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_sandbox()
    launched = spy_launches(monkeypatch)
    box = Sandbox(home / "project")
    text = await sh(box, CATS + "; echo x > project/.env; echo x > projects/p1/.env; cat project/.env")
    assert "sk-proj" not in text, text
    assert "PLAIN" in text and "end" in text, text
    assert text.count("Read-only file system") == 2, text  # read-only, as bubblewrap's --ro-bind
    [started] = launched
    assert started.marker, "the launcher made the file binds"
    for rel in OTHERS:  # the user's own files are untouched
        assert "SECRET" in (home / rel).read_text()


async def test_the_command_keeps_no_capability_and_no_trace_of_the_launcher(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It ran with CAP_SYS_ADMIN in the sandbox's namespace to mount: the command must
    not (it could unmount what hides the files), nor see the list of what is hidden."""
    require_sandbox()
    launched = spy_launches(monkeypatch)
    box = Sandbox(home / "project")
    script = ("grep '^Cap\\|^SigIgn' /proc/self/status; yes | head -c 4 >/dev/null; "
              "cd ~/projects; umount -l p0/.env; cat p0/.env; cd; "
              "echo tmp=$(ls -A /tmp | wc -l) memfds=$(ls -l /proc/[0-9]*/fd/ 2>/dev/null | grep -c memfd); "
              r"for p in /proc/[0-9]*; do tr '\0' '\n' < $p/cmdline; done; echo end")
    text = await sh(box, script)
    assert launched[0].marker
    caps = [line for line in text.splitlines() if line.startswith("Cap")]
    assert len(caps) == 5 and all(line.split()[1] == "0000000000000000" for line in caps), text
    assert "SigIgn:\t0000000000000000" in text and "Broken pipe" not in text, "no signal left ignored"
    assert "sk-proj" not in text and "must be superuser to unmount" in text, text
    assert "tmp=0 " in text, "the launcher's staging folder is gone"
    assert "memfds=0" in text, "no memory file (the list of binds, the marker) reaches the command"
    seen = text.split("\n[exit code")[0].split("memfds=")[1]  # the command lines read
    assert "--args" in seen and "projects/p" not in seen and "--ro-bind" not in seen, "no hidden path on them"


async def test_the_command_gets_the_environment_it_got_from_bubblewrap(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The launcher is Python, which changes its own environment (``LC_CTYPE=C.UTF-8`` under
    the C locale, PEP 538): the command gets the one bubblewrap would have given it."""
    require_sandbox()
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        monkeypatch.delenv(name, raising=False)
    launched = spy_launches(monkeypatch)
    box = Sandbox(home / "project")
    launcher = await sh(box, "env | sort")
    monkeypatch.setattr(sandboxmounts, "_failures", [sandboxmounts.MAX_FAILURES])
    bubblewrap = await sh(box, "env | sort")
    assert [bool(s.marker) for s in launched] == [True, False]
    assert "LC_CTYPE" not in launcher and "PATH=" in launcher, launcher
    assert launcher == bubblewrap


async def test_a_new_secret_file_between_two_commands_is_hidden_at_the_second(home: Path) -> None:
    require_sandbox()
    box = Sandbox(home / "project")
    assert "sk-proj" not in await sh(box, CATS)
    plant(home, ["projects/new/.env"], lambda _: "KEY=sk-proj-NEWSECRET\n")
    (home / "project" / "later.env").write_text("KEY=sk-proj-NEWWORKSPACE\n")
    text = await sh(box, "cat ~/projects/new/.env later.env; echo end")
    assert "sk-proj" not in text and "end" in text, text


async def test_where_the_launcher_cannot_mount_the_command_runs_once_with_bubblewraps_mounts(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fail closed: without the capability to mount, the launcher stops before the command;
    the sandbox is set up again by bubblewrap alone, the files still hidden, the command run once."""
    require_sandbox()
    monkeypatch.setattr(sandboxmounts, "CAPS", ("--cap-drop", "ALL"))  # as a bubblewrap that grants none
    launched = spy_launches(monkeypatch)
    box = Sandbox(home / "project")
    text = await sh(box, "echo ran >> ran.txt; " + CATS)
    assert "sk-proj" not in text and "PLAIN" in text, text
    assert (home / "project" / "ran.txt").read_text() == "ran\n", "the command ran once"
    assert [bool(s.marker) for s in launched] == [True, False], "tried, then bubblewrap's mounts"
    assert "set up again" in text and "mounts could not be made" in text, text
    await sh(box, "true")
    assert not sandboxmounts.fast_path_on(), "after a second failure bubblewrap makes them all"


def test_a_file_bind_a_later_mount_covers_stays_with_bubblewrap(tmp_path: Path) -> None:
    """Made after bubblewrap's mounts, a bind under a folder a later mount replaces would
    show a file that bubblewrap's order hides (or fail): it stays bubblewrap's, in order;
    so does one whose copy is too big to write, and one a later bind from elsewhere covers."""
    folder = tmp_path / "d"
    folder.mkdir()
    inside, alone, again, big = folder / "a.env", tmp_path / "b.env", tmp_path / "c.env", tmp_path / "big"
    for path in (inside, alone, again):
        path.write_text("x")
    big.write_bytes(b"y" * (sandboxmounts.MAX_COPY + 1))
    options = ["--die-with-parent", "--cap-drop", "ALL", "--ro-bind", "/", "/",
               "--ro-bind", "/dev/null", str(inside), "--tmpfs", str(folder), "--remount-ro", str(folder),
               "--ro-bind", "/dev/null", str(again), "--ro-bind", str(big), str(again),
               "--ro-bind", "/dev/null", str(alone), "--setenv", "A", "--tmpfs", "--chdir", "/"]  # fmt: skip
    moved = sandboxmounts.split(options)
    assert moved.binds == [(os.fsencode(alone), 0)] and moved.contents == [b""]
    assert moved.options == [*sandboxmounts.CAPS, "--die-with-parent", "--ro-bind", "/", "/",
                             "--ro-bind", "/dev/null", str(inside), "--tmpfs", str(folder),
                             "--remount-ro", str(folder), "--ro-bind", "/dev/null", str(again),
                             "--ro-bind", str(big), str(again), "--setenv", "A", "--tmpfs",
                             "--chdir", "/"]  # fmt: skip
    assert sandboxmounts.split(options[:-8]).binds == [], "nothing to move: bubblewrap's options as they were"
    assert sandboxmounts.split(options[:-8]).options == options[:-8]


def test_the_launcher_runs_on_no_interpreter_a_command_could_change(tmp_path: Path) -> None:
    python = os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)
    assert sandboxmounts.python_for_launcher([str(tmp_path)]) == python
    assert sandboxmounts.python_for_launcher([os.path.dirname(python)]) is None
    assert sandboxmounts.python_for_launcher([os.path.realpath(sys.base_prefix)]) is None


def test_the_launcher_is_used_only_when_worth_its_start() -> None:
    assert not sandboxmounts.worth_it(20, 20), "a laptop's few host mounts: bubblewrap's binds are cheap"
    assert sandboxmounts.worth_it(110, 20), "a developer's home: 100 other projects' .env files"
    assert sandboxmounts.worth_it(10, 1000), "a snap host: each bind costs bubblewrap a 1,000-line read"
    assert not sandboxmounts.worth_it(0, 5000)
