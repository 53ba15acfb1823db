"""What a wildcard rule on writing (``deny write_file(**/*.sql)``) holds, and says it
holds. The sandbox keeps the files it covers read-only for a command, up to
:data:`writewalls.MAX_WILDCARD` (each bind costs more the more there are); past that a
shell command asks instead of running with the rest writable, even under an allow
rule. When the rule is added (and in ``/permissions``) the user reads how many files
it covers in the sandbox and what it does not reach (``node_modules``, ``.git``, a
virtualenv's packages)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shell.permissions import writewalls
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.permissions.sandbox import Sandbox
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace


def files(folder: Path, count: int, suffix: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / f"f{i:05}{suffix}").write_text("x\n")


def decide(root: Path, command: str, **rules: list[str]) -> Any:
    parsed, problems = parse_rules(rules, "user")
    assert not problems
    policy = PermissionPolicy(root, mode="auto", user_rules=parsed, user_config=root.parent / "c.toml",
                              sandboxed=lambda command: True, load_project=False)
    policy.sandbox = Sandbox(root)  # as the runtime sets it
    run_shell = next(t for t in builtin_tools(Workspace(root)) if t.name == "run_shell")
    return policy.decide(run_shell, {"command": command})


def test_a_command_asks_when_a_wildcard_rule_covers_more_than_the_sandbox_can_hold(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    files(root / "db" / "migrations", writewalls.MAX_WILDCARD + 1, ".sql")
    found = decide(root, "python3 gen.py", deny=["write_file(**/*.sql)"], allow=["run_shell(python3:*)"])
    assert found.action == "ask", found.reason
    assert f"cover {writewalls.MAX_WILDCARD + 1:,} files" in found.reason and "narrower rule" in found.reason
    assert decide(root, "python3 gen.py", deny=["write_file(db/**/*.sql)"]).action == "ask"


def test_a_wildcard_rule_the_sandbox_holds_in_full_changes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    files(root / "db", writewalls.MAX_WILDCARD, ".sql")
    files(root / "other", writewalls.MAX_WILDCARD + 50, ".txt")
    found = decide(root, "python3 gen.py", deny=["write_file(**/*.sql)"])
    assert found.action == "allow", found.reason
    assert decide(root, "python3 gen.py", deny=["write_file(db/f0000*.sql)"]).action == "allow"


def test_files_the_rule_does_not_cover_do_not_crowd_out_those_it_does(tmp_path: Path) -> None:
    """``src/**/*.py`` picks candidates by name (``*.py``): 3,000 other ``.py`` files
    must not fill the list before ``src/app.py`` is looked at."""
    root = tmp_path / "ws"
    for name in ("a", "b", "c"):
        files(root / name, 1_000, ".py")
    files(root / "src", 3, ".py")
    box = Sandbox(root)
    box.secrets_searched()
    parsed, _ = parse_rules({"deny": ["write_file(src/**/*.py)"]}, "user")
    policy = PermissionPolicy(root, mode="auto", user_rules=parsed, user_config=tmp_path / "c.toml",
                              load_project=False)
    covered = writewalls.wildcard_matches(box.secret_index, policy.write_wildcards(), box.roots())
    assert covered == {box.roots()[0] / "src" / f"f{i:05}.py" for i in range(3)}


@pytest.mark.anyio
async def test_adding_a_wildcard_rule_says_what_it_covers_and_what_it_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shell.commands.permission import permissions_command
    from shell.config import load_config
    from shell.providers.scripted import ScriptedModel
    from shell.runtime import RuntimeOptions, ShellRuntime

    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    root = tmp_path / "ws"
    files(root / "certs", 3, ".pem")
    files(root / "node_modules" / "pkg", 2, ".pem")
    (tmp_path / "config.toml").write_text("")
    rt = ShellRuntime.create(RuntimeOptions(cwd=str(root), record=False),
                             settings=load_config(tmp_path / "config.toml"), model=ScriptedModel(["ok"]))
    added = permissions_command(rt, "deny write_file(**/*.pem)").text
    assert "covers 3 files now, read-only to every shell command" in added, added
    assert "not files inside node_modules, .git" in added and "write_file, edit_file" in added, added
    listed = permissions_command(rt, "").text
    assert "covers 3 files now" in listed, listed
    plain = permissions_command(rt, "deny write_file(secrets/**)").text
    assert "Note:" not in plain, plain  # named outright: held in full, nothing to add


def test_without_a_sandbox_the_note_promises_nothing_it_cannot_keep(tmp_path: Path) -> None:
    from shell.permissions.rules import RuleSet
    from shell.permissions.writedeny import write_wildcards

    root = tmp_path / "ws"
    files(root, 2, ".pem")
    parsed, _ = parse_rules({"deny": ["write_file(**/*.pem)"]}, "user")
    box = Sandbox(root, bwrap=str(tmp_path / "no-bwrap"))  # as on a machine without bubblewrap
    note = writewalls.scope_note(write_wildcards(RuleSet(parsed), root), box)
    assert "no sandbox here" in note and "read-only" not in note, note


def test_allowing_a_wildcard_on_a_shared_host_from_the_command_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/permissions allow` is the fourth place a rule is made: it warns like `--allow`,
    the config and "always" do, that anyone can own a name under `*.github.io`."""
    from shell.commands.permission import permissions_command
    from shell.config import load_config
    from shell.providers.scripted import ScriptedModel
    from shell.runtime import RuntimeOptions, ShellRuntime

    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "ws").mkdir()
    (tmp_path / "config.toml").write_text("")
    rt = ShellRuntime.create(RuntimeOptions(cwd=str(tmp_path / "ws"), record=False),
                             settings=load_config(tmp_path / "config.toml"), model=ScriptedModel(["ok"]))
    added = permissions_command(rt, "allow fetch_url(domain:*.github.io)").text
    assert "Added" in added and "attacker.github.io" in added and "domain:yourname.github.io" in added, added
    edited = permissions_command(rt, "edit 1 fetch_url(domain:*.vercel.app)").text
    assert "is now" in edited and "attacker.vercel.app" in edited, edited
    own = permissions_command(rt, "allow fetch_url(domain:*.python.org)").text
    assert "Warning" not in own, own
