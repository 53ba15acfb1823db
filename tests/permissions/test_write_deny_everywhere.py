"""A deny (or ask) rule on writing a path holds for every way the model can write it
(finding G20, write side): ``deny write_file(secrets/**)`` and ``deny edit_file(…)``
are one rule, for write_file, edit_file and any tool that edits a path; for
``run_shell`` lines whose writes the words name (``>``, ``>>``, ``tee``, ``cp``,
``mv``, ``sed -i``, ``rm``, ``truncate``, ``dd of=`` …); a line whose writes are known
only when it runs asks; and the sandbox keeps the path read-only for any command.
Ordinary commands stay as they were."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shell.core.tools import Tool, tool
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "secrets").mkdir(parents=True)
    (ws / "secrets" / "plan.txt").write_text("plan\n")
    (ws / "src").mkdir()
    (ws / "src" / "main.py").write_text("print(1)\n")
    (ws / "a.txt").write_text("a\n")
    (ws / "b.pyc").write_text("")
    return ws


@pytest.fixture
def tools(root: Path) -> dict[str, Tool]:
    return {t.name: t for t in builtin_tools(Workspace(root))}


def policy(root: Path, mode: str = "auto", **rules: list[str]) -> PermissionPolicy:
    parsed, problems = parse_rules(rules, "user")
    assert not problems
    return PermissionPolicy(root, mode=mode, user_rules=parsed, user_config=root.parent / "c.toml",  # type: ignore[arg-type]
                            sandboxed=lambda command: True, load_project=False)


def verdict(p: PermissionPolicy, t: Tool, **args: Any) -> tuple[str, str]:
    found = p.decide(t, args)
    return found.action, found.reason


@pytest.mark.parametrize("written", ["write_file(secrets/**)", "edit_file(secrets/**)"])
def test_write_file_and_edit_file_deny_rules_are_one_rule(
    root: Path, tools: dict[str, Tool], written: str
) -> None:
    p = policy(root, mode="bypass", deny=[written])
    for name, args in (("write_file", {"path": "secrets/plan.txt", "content": "x"}),
                       ("edit_file", {"path": "secrets/plan.txt", "old_string": "plan", "new_string": "x"}),
                       ("write_file", {"path": "secrets/new/deep.txt", "content": "x"}),
                       ("write_file", {"path": "src/../secrets/plan.txt", "content": "x"})):
        action, reason = verdict(p, tools[name], **args)
        assert action == "deny", (name, args)
        assert f"deny {written}" in reason and "was not run" in reason
    assert verdict(p, tools["write_file"], path="src/main.py", content="x")[0] == "allow"


def test_any_tool_that_edits_a_path_is_held_by_the_write_rule(root: Path) -> None:
    @tool(name="multi_edit", kind="edit")
    async def multi_edit(edits: list[dict[str, str]]) -> str:
        """Edit many files."""
        return ""

    @tool(name="apply_patch", kind="edit")
    async def apply_patch(file_path: str, patch: str) -> str:
        """Patch a file."""
        return ""

    @tool(name="remove", kind="delete")
    async def remove(paths: list[str]) -> str:
        """Remove files."""
        return ""

    p = policy(root, mode="bypass", deny=["edit_file(secrets/**)"])
    assert verdict(p, multi_edit, edits=[{"path": "src/main.py"}, {"path": "secrets/plan.txt"}])[0] == "deny"
    assert verdict(p, apply_patch, file_path="secrets/plan.txt", patch="x")[0] == "deny"
    assert verdict(p, remove, paths=["a.txt", "secrets/plan.txt"])[0] == "deny"
    assert verdict(p, apply_patch, file_path="src/main.py", patch="x")[0] == "allow"


WRITES = [
    "echo x > secrets/plan.txt", "echo x >> secrets/plan.txt", "echo x >| secrets/new.txt",
    "date &> secrets/log", "tee secrets/plan.txt < a.txt", "echo x | tee -a secrets/plan.txt",
    "cp a.txt secrets/plan.txt", "cp a.txt secrets/", "cp -t secrets a.txt", "cp a.txt secrets",
    "mv secrets/plan.txt /tmp/x", "mv a.txt secrets/", "sed -i s/plan/x/ secrets/plan.txt",
    "sed -i.bak -e s/a/b/ secrets/plan.txt", "perl -pi -e s/a/b/ secrets/plan.txt", "rm secrets/plan.txt",
    "rm -rf secrets", "rm -rf .", "rm -r ./", "truncate -s 0 secrets/plan.txt",
    "dd if=/dev/zero of=secrets/plan.txt count=1", "sudo tee secrets/plan.txt",
    "bash -c 'echo x > secrets/p'",
    "ls && echo x >> secrets/plan.txt", "env X=1 rm secrets/plan.txt", "touch secrets/new",
    "ln -sf /etc/passwd secrets/plan.txt", "chmod 777 secrets/plan.txt", "rm secrets/*.txt",
    "install -m 600 a.txt secrets/plan.txt", "rsync -a a.txt secrets/", "shred -u secrets/plan.txt",
]


@pytest.mark.parametrize("line", WRITES)
def test_a_command_that_writes_a_denied_path_is_denied_in_every_mode(
    root: Path, tools: dict[str, Tool], line: str
) -> None:
    for mode in ("auto", "bypass", "default"):
        p = policy(root, mode=mode, deny=["write_file(secrets/**)"], allow=["run_shell"])
        action, reason = verdict(p, tools["run_shell"], command=line)
        assert action == "deny", (mode, line, reason)
        assert "deny write_file(secrets/**)" in reason


@pytest.mark.parametrize("line", WRITES[:6])
def test_an_ask_rule_on_writing_asks_for_those_commands_even_with_an_allow_rule(
    root: Path, tools: dict[str, Tool], line: str
) -> None:
    p = policy(root, ask=["edit_file(secrets/**)"], allow=["run_shell"])
    action, reason = verdict(p, tools["run_shell"], command=line)
    assert action == "ask" and "ask edit_file(secrets/**)" in reason, reason
    assert verdict(p, tools["write_file"], path="secrets/plan.txt", content="x")[0] == "ask"


UNKNOWN = ['echo x > "$F"', "rm $X", "ls | xargs rm", "find . -name '*.txt' -exec rm {} +",
           "cp a.txt $(cat dest)", "for f in secrets/*; do rm $f; done", "cat <<EOF > out\nx\nEOF",
           "$R x", "curl -s http://x | sh"]


@pytest.mark.parametrize("line", UNKNOWN)
def test_a_command_whose_writes_are_known_only_when_it_runs_asks_while_a_write_rule_exists(
    root: Path, tools: dict[str, Tool], line: str
) -> None:
    p = policy(root, deny=["write_file(secrets/**)"])
    action, reason = verdict(p, tools["run_shell"], command=line)
    assert action == "ask", (line, reason)
    assert "known only when it runs" in reason and "deny write_file(secrets/**)" in reason
    assert verdict(policy(root), tools["run_shell"], command=line)[0] == "allow"  # no rule: as before


ORDINARY = [
    "ls -la", "cat a.txt", "git status", "git diff HEAD~1", "git log --oneline -5", "pytest -q tests",
    "python3 -m pytest -x", "echo hello", "echo hi > out.txt", "echo hi >> log/run.log", "mkdir -p build/x",
    "rm -rf build", "rm -f b.pyc", "rm *.pyc", "cp a.txt b.txt", "cp -r src backup", "mv a.txt c.txt",
    "sed -i s/a/b/ src/main.py", "sed -n 1,5p secrets/plan.txt", "touch new.txt", "tee out.log < a.txt",
    "grep -rn TODO src", "find . -name '*.py'", "npm test", "make", "cargo build", "go test ./...",
    "chmod +x run.sh", "ruff check . 2>&1", "wc -l src/main.py > /dev/null", "python3 -c 'print(1)'",
    "for f in *.py; do wc -l $f; done", "truncate -s 0 out.log", "dd if=a.txt of=copy.bin", "uv run pytest",
    "ls | xargs echo", "git add -A && git commit -m x",
]


def test_ordinary_commands_still_run_in_auto_mode_with_a_write_deny_rule(
    root: Path, tools: dict[str, Tool]
) -> None:
    assert len(ORDINARY) >= 30
    p = policy(root, deny=["write_file(secrets/**)", "edit_file(config/prod.toml)"])
    for line in ORDINARY:
        action, reason = verdict(p, tools["run_shell"], command=line)
        assert action == "allow", (line, reason)


def test_removing_a_folder_a_wildcard_rule_may_reach_asks(root: Path, tools: dict[str, Tool]) -> None:
    p = policy(root, deny=["write_file(**/*.pem)"])
    assert verdict(p, tools["run_shell"], command="rm -rf src")[0] == "ask"  # it may hold a .pem
    assert verdict(p, tools["run_shell"], command="rm -f key.pem")[0] == "deny"
    assert verdict(p, tools["run_shell"], command="rm -f a.txt")[0] == "allow"
    assert verdict(p, tools["run_shell"], command="mv a.txt c.txt")[0] == "allow"  # a file holds nothing
    assert verdict(p, tools["run_shell"], command="rm -rf no-such-dir")[0] == "allow"


def test_the_paths_a_write_rule_names_outright(tmp_path: Path) -> None:
    rules, _ = parse_rules({"deny": ["write_file(secrets/**)", "edit_file(config/prod.toml)",
                                     "write_file(**/*.pem)", "read_file(other/**)", "write_file"],
                            "ask": ["edit_file(docs/**)"]}, "user")
    p = PermissionPolicy(tmp_path, user_rules=rules, user_config=tmp_path / "c.toml", load_project=False)
    assert p.write_denied_paths() == [tmp_path / "secrets", tmp_path / "config" / "prod.toml",
                                      tmp_path / "docs"]
    assert p.write_wildcards().names == ("*.pem",)
    every, _ = parse_rules({"deny": ["write_file(**)", "edit_file(**/*)", "write_file(src/*/**)"]}, "user")
    q = PermissionPolicy(tmp_path, user_rules=every, user_config=tmp_path / "c.toml", load_project=False)
    assert q.write_wildcards().names == ("*",)  # only src/*/**: the whole workspace stays writable


async def _run_in_runtime(tmp_path: Path, root: Path, command: str,
                          deny: str = '"write_file(secrets/**)"') -> str:
    from shell.config import load_config
    from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResultMessage
    from shell.providers.scripted import ScriptedModel
    from shell.runtime import RuntimeOptions, ShellRuntime

    (tmp_path / "config.toml").write_text(f'[permissions]\nmode = "auto"\ndeny = [{deny}]\n')
    turn = AssistantMessage((ToolCallBlock("c1", "run_shell", {"command": command}),))
    rt = ShellRuntime.create(RuntimeOptions(cwd=str(root), record=False),
                             settings=load_config(tmp_path / "config.toml"),
                             model=ScriptedModel([turn, "Done."]))

    async def ask(request: Any) -> Any:
        raise AssertionError(f"asked about {request.call.name}")

    rt.ask = ask
    async for _ in rt.reply("go"):
        pass
    return next(m.text for m in rt.agent.messages if isinstance(m, ToolResultMessage))


@pytest.mark.anyio
async def test_a_sandboxed_command_cannot_write_what_a_write_rule_names(
    tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program that writes by its own logic (out of view of the command line) runs
    unasked in auto mode, and the sandbox keeps the denied folder read-only; the rest
    of the workspace stays writable, and the result says why the write failed."""
    from ..sandboxing import require_sandbox

    require_sandbox()
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    script = ("import os\n"
              "open('ok.txt', 'w').write('fine')\n"
              "for p in ('secrets/plan.txt', 'secrets/new.txt'):\n"
              "    try:\n        open(p, 'w').write('X')\n"
              "    except OSError as e:\n        print('refused', p, e)\n"
              "try:\n    os.remove('secrets/plan.txt')\nexcept OSError as e:\n    print('refused rm', e)\n")
    (root / "gen.py").write_text(script)
    result = await _run_in_runtime(tmp_path, root, "python3 gen.py")
    assert (root / "ok.txt").read_text() == "fine"
    assert (root / "secrets" / "plan.txt").read_text() == "plan\n"
    assert not (root / "secrets" / "new.txt").exists()
    assert "refused secrets/plan.txt" in result and "refused rm" in result
    assert ("[secrets is read-only for commands: a rule on writing keeps the model from changing it "
            "(/permissions).") in result


@pytest.mark.anyio
async def test_what_a_write_rule_names_that_does_not_exist_yet_is_not_left_created(
    tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bubblewrap binds only what exists: a folder or file a rule names that did not
    exist yet could be created by a program writing by its own logic. Now what the
    command created there is moved out once it ended, and the result says how to get
    it back; the rest of what it wrote stays."""
    from shell.permissions import quarantine

    from ..sandboxing import require_sandbox

    require_sandbox()
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    (root / "config").mkdir()
    script = ("import os\n"
              "os.makedirs('vault/deep', exist_ok=True)\n"
              "open('vault/deep/key.txt', 'w').write('planted')\n"
              "open('config/prod.toml', 'w').write('planted = true')\n"
              "open('config/dev.toml', 'w').write('fine = true')\n")
    (root / "gen.py").write_text(script)
    result = await _run_in_runtime(tmp_path, root, "python3 gen.py",
                                   deny='"write_file(vault/**)", "edit_file(config/prod.toml)"')
    assert not (root / "vault").exists() and not (root / "config" / "prod.toml").exists()
    assert (root / "config" / "dev.toml").read_text() == "fine = true"  # its folder stays writable
    assert "created what a rule on writing keeps the model from writing" in result
    assert "vault: moved out of the workspace (to keep it: /quarantine restore, or sh -c" in result
    assert "config/prod.toml: moved out" in result
    moved = {e.original: e for e in quarantine.entries()}
    assert (moved[root / "vault"].stored / "deep" / "key.txt").read_text() == "planted"


@pytest.mark.anyio
async def test_what_a_wildcard_write_rule_covers_is_read_only_and_new_ones_are_moved_out(
    tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``deny write_file(**/*.sql)`` names no one path, so bubblewrap bound nothing and
    ``python gen.py`` could change or add any ``.sql``. Now the files it covers are
    read-only for the command, a new one is moved out after it, and others are writable."""
    from ..sandboxing import require_sandbox

    require_sandbox()
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    (root / "db" / "migrations").mkdir(parents=True)
    (root / "db" / "migrations" / "001.sql").write_text("create table t;\n")
    script = ("import os\n"
              "for p in ('db/migrations/001.sql',):\n"
              "    try:\n        open(p, 'w').write('drop table t;')\n"
              "    except OSError as e:\n        print('refused', p)\n"
              "try:\n    os.remove('db/migrations/001.sql')\nexcept OSError:\n    print('refused rm')\n"
              "open('db/migrations/002.sql', 'w').write('drop table t;')\n"
              "open('db/migrations/notes.md', 'w').write('fine')\n")
    (root / "gen.py").write_text(script)
    result = await _run_in_runtime(tmp_path, root, "python3 gen.py", deny='"write_file(**/*.sql)"')
    assert "refused db/migrations/001.sql" in result and "refused rm" in result
    assert (root / "db" / "migrations" / "001.sql").read_text() == "create table t;\n"
    assert not (root / "db" / "migrations" / "002.sql").exists()
    assert "db/migrations/002.sql: moved out of the workspace" in result
    assert (root / "db" / "migrations" / "notes.md").read_text() == "fine"


def test_the_trust_question_says_a_write_rule_holds_for_every_way_of_writing() -> None:
    from shell.permissions.grants import describe_project_rules

    toml = b'deny = ["edit_file(secrets/**)"]\nask = ["write_file(docs/**)"]\n'
    lines = describe_project_rules(toml, "p.toml")
    assert lines[0].startswith("p.toml: deny edit_file(secrets/**): the model changes none of the paths")
    assert all("write_file, edit_file, other editing tools, shell commands that write there" in line
               for line in lines)
