"""Finding P4: the values net was an oracle. A ``grep`` whose pattern listed guesses
answered ``No matches for 'pw1|[REDACTED]|…'`` (even in plan mode, unasked), naming
the hidden ``.env``'s value; ``fetch_url`` sent a recovered value out unasked. Now a
call whose arguments hold a hidden file's value asks in every mode but bypass, naming
the file, and a result never marks where the call's own value stands."""

from __future__ import annotations

import base64
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.config import Settings
from shell.core.messages import AssistantMessage, ToolCallBlock
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.permissions.sandbox import Sandbox
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace
from tests.homes import made_home

from .home_setup import plant, sandbox_home

pytestmark = pytest.mark.anyio

VALUE = "correcthorsebatterystaple"
VALUE_B64 = base64.b64encode(VALUE.encode()).decode()
GUESSES = f"password123|letmein123|{VALUE}|qwertyuiop"


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    base = made_home(".agent-shell-test-oracle-")
    root = base / "project"
    root.mkdir()
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(base / "config"))
    (root / ".env").write_text(f"DB_PASSWORD={VALUE}\n")
    (root / "a.txt").write_text("nothing here\n")
    try:
        yield root
    finally:
        shutil.rmtree(base, ignore_errors=True)


async def results(root: Path, mode: str, *calls: tuple[str, dict[str, str]]) -> dict[str, str]:
    model = ScriptedModel([
        AssistantMessage(tuple(ToolCallBlock(f"c{n}", name, args) for n, (name, args) in enumerate(calls))),
        "Done.",
    ])
    runtime = ShellRuntime.create(RuntimeOptions(cwd=str(root), permission_mode=mode),
                                  settings=Settings(path=root.parent / "none.toml"),
                                  model=model)  # type: ignore[arg-type]
    async for _ in runtime.reply("look around"):
        pass
    await runtime.aclose()
    return {m.call_id: m.text for m in model.requests[-1].messages if getattr(m, "call_id", None)}


@pytest.mark.parametrize("mode", ["plan", "default", "auto"])
async def test_a_grep_listing_guesses_of_a_hidden_value_does_not_run_unasked(ws: Path, mode: str) -> None:
    got = await results(ws, mode, ("grep", {"pattern": GUESSES, "path": "a.txt"}),
                        ("grep", {"pattern": "password123|qwertyuiop", "path": "a.txt"}))
    assert "No matches" not in got["c0"] and "[REDACTED]" not in got["c0"], got["c0"]
    assert "No matches for 'password123|qwertyuiop'" in got["c1"]  # wrong guesses alone: nothing to ask


@pytest.mark.parametrize("mode", ["plan", "default", "accept-edits", "auto"])
@pytest.mark.parametrize(("name", "args"), [
    ("grep", {"pattern": GUESSES, "path": "a.txt"}),
    ("fetch_url", {"url": f"https://example.com/?q={VALUE}"}),  # allowed by a rule
    ("fetch_url", {"url": f"https://example.com/?q={VALUE_B64}"}),
    ("write_file", {"path": "cands.txt", "content": f"password123\n{VALUE}\n"}),
])
def test_a_call_holding_a_hidden_value_asks_naming_the_file(
    ws: Path, mode: str, name: str, args: dict[str, str]
) -> None:
    rules, problems = parse_rules({"allow": ["fetch_url(domain:example.com)", "write_file(*)"]}, "user")
    assert not problems
    policy = PermissionPolicy(ws, user_rules=rules, user_config=ws.parent / "config.toml", mode=mode)
    policy.sandbox = Sandbox(ws)
    tool = next(t for t in builtin_tools(Workspace(ws)) if t.name == name)
    verdict = policy.decide(tool, args)
    if mode == "plan" and name != "grep":
        assert verdict.action == "deny"  # plan mode runs nothing that writes or reaches out
        return
    assert verdict.action == "ask", verdict.reason
    assert "hidden secret file .env" in verdict.reason and VALUE not in verdict.reason
    wrong = {k: v.replace(VALUE, "qwertyuiop").replace(VALUE_B64, "cXdlcnR5dWlvcA==")
             for k, v in args.items()}
    assert "hidden secret file" not in policy.decide(tool, wrong).reason  # a wrong guess asks nothing new


async def test_an_approved_call_is_not_told_where_its_own_value_stands(ws: Path) -> None:
    got = await results(ws, "bypass", ("grep", {"pattern": GUESSES, "path": "a.txt"}))
    assert f"No matches for '{GUESSES}'" in got["c0"], got["c0"]
    assert "[REDACTED]" not in got["c0"] and "redacted" not in got["c0"]


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from sandbox_home(monkeypatch, ".agent-shell-test-oracle-home-")


def test_a_value_of_another_home_projects_secret_file_asks_too(home: Path) -> None:
    plant(home, ["other/.env"], lambda _: f"DB_PASSWORD={VALUE}\n")
    box = Sandbox(home / "project")
    assert box.home_secrets().files, "the walk found no secret file of the other project"
    policy = PermissionPolicy(home / "project", user_config=home / "config.toml", mode="auto")
    policy.sandbox = box
    grep = next(t for t in builtin_tools(Workspace(home / "project")) if t.name == "grep")
    verdict = policy.decide(grep, {"pattern": GUESSES})
    assert verdict.action == "ask" and "hidden secret file" in verdict.reason, verdict.reason


@pytest.mark.parametrize("command", [
    f"echo {VALUE_B64} | base64 -d",
    f"echo {VALUE[:12]}''{VALUE[12:]} wrongguess",
    f"printf '%s%s\\n' {VALUE[:12]} {VALUE[12:]}",
])
def test_a_command_the_shell_puts_a_hidden_value_together_in_asks(ws: Path, command: str) -> None:
    """Finding Q1: the command itself held no value as written, so it ran unasked and
    the output's redaction told the model its guess was right. (A value a program
    computes, `python3 -c "print('a' + 'b')"`, is still not seen: README says so.)"""
    policy = PermissionPolicy(ws, user_config=ws.parent / "config.toml", mode="auto")
    policy.sandbox = Sandbox(ws)
    shell = next(t for t in builtin_tools(Workspace(ws)) if t.name == "run_shell")
    verdict = policy.decide(shell, {"command": command})
    assert verdict.action == "ask" and "hidden secret file .env" in verdict.reason, verdict.reason
    wrong = command.replace(VALUE_B64, "cXdlcnR5dWlvcA==").replace(VALUE[:12], "qwertyuiopas")
    assert "hidden secret file" not in policy.decide(shell, {"command": wrong}).reason
