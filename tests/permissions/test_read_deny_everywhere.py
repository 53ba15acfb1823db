"""A deny on reading a path holds for every way the shell reads that path for the
model, not only for ``read_file``: with ``deny = ["read_file(secrets/**)"]`` a grep of
the tree skips those files (and says how many), a grep of such a path is denied like
read_file, an edit's result carries no diff of one (its old lines), and an AGENTS.md
import of one is refused. Checked on what the provider receives (finding G20)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from shell.config import load_config
from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime

pytestmark = pytest.mark.anyio

SECRET = "TOPSECRET-DENY-1"
CONFIG = '[permissions]\nmode = "auto"\ndeny = ["read_file(secrets/**)"]\n'


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))


class Provider(ScriptedModel):
    """The scripted model, keeping every request it was sent (what the provider receives)."""

    def __init__(self, turns: list[Any]) -> None:
        super().__init__(turns)
        self.received: list[str] = []

    async def stream(self, request: Any) -> AsyncIterator[Any]:
        self.received.append(repr(request))
        async for chunk in super().stream(request):
            yield chunk


def calls(*tool_calls: tuple[str, dict[str, Any]]) -> AssistantMessage:
    blocks = [ToolCallBlock(f"c{i}", name, args) for i, (name, args) in enumerate(tool_calls)]
    return AssistantMessage((TextBlock("Looking."), *blocks))


def workspace(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "secrets").mkdir(parents=True)
    (work / "secrets" / "plan.txt").write_text(f"{SECRET}\nsecond line\n")
    (work / "notes.txt").write_text(f"not the {SECRET[:9]} one\n")
    os.symlink("secrets/plan.txt", work / "linked.txt")  # another name for a denied file
    return work


async def run(
    tmp_path: Path, turn: AssistantMessage, config: str = CONFIG, agents: str = ""
) -> tuple[Provider, list[str]]:
    work = workspace(tmp_path)
    if agents:
        (work / "AGENTS.md").write_text(agents)
    (tmp_path / "config.toml").write_text(config)
    provider = Provider([turn, "Done."])
    rt = ShellRuntime.create(RuntimeOptions(cwd=str(work), record=False),
                             settings=load_config(tmp_path / "config.toml"), model=provider)

    async def ask(request: Any) -> Any:
        raise AssertionError(f"asked about {request.call.name}")

    rt.ask = ask
    async for _ in rt.reply("go"):
        pass
    results = [m.text for m in rt.agent.messages if isinstance(m, ToolResultMessage)]
    return provider, results


async def test_a_grep_of_the_tree_skips_denied_files_and_says_how_many(tmp_path: Path) -> None:
    provider, results = await run(tmp_path, calls(("grep", {"pattern": "TOPSECRET"})))
    assert len(results) == 1
    assert "notes.txt:1: not the TOPSECRET one" in results[0]  # the rest is searched
    assert "2 files deny rules keep from being read not searched" in results[0]  # the file and its link
    assert not any(SECRET in sent for sent in provider.received)


async def test_a_grep_of_a_denied_path_is_denied_like_read_file(tmp_path: Path) -> None:
    turn = calls(("grep", {"pattern": "TOPSECRET", "path": "secrets"}),
                 ("grep", {"pattern": "TOPSECRET", "path": "secrets/plan.txt"}),
                 ("grep", {"pattern": "TOPSECRET", "path": "linked.txt"}),
                 ("read_file", {"path": "secrets/plan.txt"}))
    provider, results = await run(tmp_path, turn)
    assert len(results) == 4
    for text in results:
        assert "deny read_file(secrets/**)" in text, text
    assert not any(SECRET in sent for sent in provider.received)


async def test_without_a_deny_rule_grep_reads_them(tmp_path: Path) -> None:
    """The check is the rule's: the same search without it finds the line."""
    _, results = await run(tmp_path, calls(("grep", {"pattern": "TOPSECRET", "path": "secrets"})),
                           '[permissions]\nmode = "auto"\n')
    assert f"secrets/plan.txt:1: {SECRET}" in results[0]


async def test_an_edit_of_a_denied_file_tells_the_model_no_diff(tmp_path: Path) -> None:
    """Auto mode runs the edits (the rule denies reading, not writing), but their
    results carry none of the old lines; the user's view keeps the diff."""
    turn = calls(("edit_file", {"path": "secrets/plan.txt", "old_string": "second line",
                                "new_string": "2nd line"}),
                 ("write_file", {"path": "linked.txt", "content": "replaced\n"}))
    provider, results = await run(tmp_path, turn)
    assert len(results) == 2
    assert results[0].startswith("Edited secrets/plan.txt: 1 replacement.")
    assert results[1].startswith("Overwrote secrets/plan.txt")
    for text in results:
        assert "[the diff is not shown: `deny read_file(secrets/**)` (user config) denies reading" in text
        assert "second line" not in text and "2nd line" not in text
    assert not any(SECRET in sent for sent in provider.received)  # the old line the model never saw
    assert (tmp_path / "work" / "secrets" / "plan.txt").read_text() == "replaced\n"


async def test_an_edit_of_an_allowed_file_still_shows_its_diff(tmp_path: Path) -> None:
    turn = calls(("edit_file", {"path": "notes.txt", "old_string": "not the", "new_string": "never the"}))
    _, results = await run(tmp_path, turn)
    assert "-not the TOPSECRET one" in results[0] and "+never the TOPSECRET one" in results[0]


async def test_an_agents_md_import_of_a_denied_file_is_refused_and_said(tmp_path: Path) -> None:
    """The instructions go into the system prompt of the very first request, in every
    mode: a repository's ``@secrets/plan.txt`` line would send the file unasked."""
    agents = "Use tabs.\n@secrets/plan.txt\n- @linked.txt\n@notes.txt\n"
    provider, _ = await run(tmp_path, calls(("glob", {"pattern": "*.md"})), agents=agents)
    first = provider.received[0]
    assert "Use tabs." in first and "not the TOPSECRET one" in first  # the rest is imported
    assert not any(SECRET in sent for sent in provider.received)


async def test_instructions_say_which_rule_refused_an_import(tmp_path: Path) -> None:
    from middleware.project_instructions import ProjectInstructions

    work = workspace(tmp_path)
    (work / "AGENTS.md").write_text("@secrets/plan.txt\n")
    (tmp_path / "config.toml").write_text(CONFIG)
    rt = ShellRuntime.create(RuntimeOptions(cwd=str(work), record=False),
                             settings=load_config(tmp_path / "config.toml"), model=Provider(["Done."]))
    mw = next(m for m in rt.agent.middleware if isinstance(m, ProjectInstructions))
    loaded = mw.load()
    assert SECRET not in loaded.text
    assert ("secrets/plan.txt (imported by AGENTS.md): refused, `deny read_file(secrets/**)` (user config) "
            "denies reading it.") in loaded.problems
    rt.permissions.remove_rule(next(r for r in rt.permissions.listed() if r.rule.effect == "deny").rule)
    assert SECRET in mw.load().text  # the rule's, not the file's: without it the import is read


async def test_a_sandboxed_command_cannot_read_a_folder_or_file_a_read_deny_names(tmp_path: Path) -> None:
    from ..sandboxing import require_sandbox

    require_sandbox()
    # the folder not named as a path: a line that names one asks (test_read_deny_commands)
    line = "cd secrets; cat plan.txt; cd ..; cat link*; grep -r TOPSECRET .; echo END"
    turn = calls(("run_shell", {"command": line}))
    provider, results = await run(tmp_path, turn)
    assert "END" in results[0] and "not the TOPSECRET one" in results[0]  # the rest is read
    assert ("[secrets is hidden from commands (read as empty or missing; git leaves what it tracks there as "
            "staged, not deleted): a deny rule keeps it from the model (/permissions).]"
            ) in results[0]  # not taken for missing, written anew
    assert not any(SECRET in sent for sent in provider.received)


def test_the_paths_a_read_deny_names_outright(tmp_path: Path) -> None:
    from shell.permissions.policy import PermissionPolicy
    from shell.permissions.rules import parse_rules

    deny = ["read_file(secrets/**)", "read_file(config/prod.toml)", "read_file(**/.env)",
            "read_file(src/*.key)",
            "write_file(out/**)", "read_file"]
    rules, _ = parse_rules({"deny": deny}, "user")
    policy = PermissionPolicy(tmp_path, user_rules=rules, user_config=tmp_path / "c.toml", load_project=False)
    assert policy.read_denied_paths() == [tmp_path / "secrets", tmp_path / "config" / "prod.toml"]
