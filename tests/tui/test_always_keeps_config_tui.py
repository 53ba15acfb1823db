""""Always … everywhere (user config)" from the approval dialog on a config written with
dotted keys (findings E14, E15): the reply failed with "Middleware HumanInTheLoop failed
… TOMLDecodeError … Switch off HumanInTheLoop", the approved call did not run and nothing
was kept. Now the rule joins the list's own line and the user's comments stay."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import RadioSet

from shell.config import load_config
from shell.core.messages import AssistantMessage, ToolCallBlock
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tui.app import AgentShellApp

from .helpers import ask_dialog, wait_for

pytestmark = pytest.mark.anyio

CONFIG = '# mine\npermissions.allow = ["run_shell(git status:*)"]  # status is fine\n'


async def test_always_everywhere_on_a_dotted_config_keeps_the_rule_and_the_comments(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.md").write_text("old line\n")
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    edit = AssistantMessage((ToolCallBlock("c1", "edit_file", {
        "path": "notes.md", "old_string": "old line", "new_string": "new line"}),))
    rt = ShellRuntime.create(RuntimeOptions(cwd=str(ws), record=False), settings=load_config(config),
                             model=ScriptedModel([edit, "Edited."]))
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=(100, 30)) as pilot:
        d = await ask_dialog(app, pilot, "edit it")
        await pilot.press("a")
        d.query_one("#scope", RadioSet).query("RadioButton")[2].value = True  # everywhere
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.busy)
    assert (ws / "notes.md").read_text() == "new line\n"
    assert config.read_text() == CONFIG.replace(
        '(git status:*)"]', '(git status:*)", "edit_file(notes.md)"]')
