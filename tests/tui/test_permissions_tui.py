"""Permissions in the TUI, through the pilot: the mode in the status line and
Shift+Tab, the dialog's diff preview at 80x24, only the decisions a tool allows,
"always" as an editable, scoped rule, the typing guard, /permissions."""

from __future__ import annotations

import time
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.widgets import RadioSet, Static, TextArea

from middleware.human_in_the_loop import HumanInTheLoop
from shell.config import Settings
from shell.core.messages import AssistantMessage, ToolCallBlock
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tui.app import AgentShellApp
from shell.tui.screens.approval import ApprovalScreen
from shell.tui.widgets.status_line import StatusLine

from .helpers import approval_dialog, ask_dialog, eventually, frame_drawn, send, wait_for

pytestmark = pytest.mark.anyio
SMALL = (80, 24)


def runtime(tmp_path: Path, turns: list[Any], **options: Any) -> ShellRuntime:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(ws), record=False, **options),
        settings=Settings(path=tmp_path / "config.toml"),
        model=ScriptedModel(turns),
    )


def call(name: str, **args: Any) -> AssistantMessage:
    return AssistantMessage((ToolCallBlock("c1", name, args),))


def _conversation_text(app: AgentShellApp) -> str:
    from shell.tui.widgets.assistant_message import AssistantMessage as AssistantWidget

    return "\n".join(w.text for w in app.query(AssistantWidget))


def status_text(app: AgentShellApp) -> str:
    return str(app.screen_stack[0].query_one(StatusLine).render())


async def test_the_mode_is_always_shown_and_shift_tab_cycles_it(tmp_path: Path) -> None:
    rt = runtime(tmp_path, [])
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: "default" in status_text(app))
        seen = []
        for _ in range(4):
            await pilot.press("shift+tab")
            await wait_for(pilot, lambda: rt.permissions.mode in status_text(app))
            seen.append(rt.permissions.mode)
        assert seen == ["accept-edits", "plan", "auto", "default"]
        await send(pilot, "/mode bypass")
        await wait_for(pilot, lambda: "bypass" in status_text(app))
        await send(pilot, "/mode default")
        await pilot.press("f2")  # the panel's HumanInTheLoop switch: off means "don't ask"
        await wait_for(pilot, lambda: app.panel.loaded)
        await pilot.pause()
        row = next(r for r in app.panel.rows() if r.mw_name == "HumanInTheLoop")
        await pilot.click(row)
        # the panel takes width: the status keeps "approvals off", its note in brackets gives way
        await wait_for(pilot, lambda: "default, approvals off" in status_text(app))
        assert app.status.mode_warning and rt.agent.middleware.is_enabled("HumanInTheLoop")


async def test_a_file_edit_shows_its_diff_at_80x24_and_always_becomes_a_scoped_rule(tmp_path: Path) -> None:
    rt = runtime(tmp_path, [call("edit_file", path="notes.md", old_string="old line", new_string="new line"),
                            "Edited."])
    (rt.workspace.root / "notes.md").write_text("title\nold line\nend\n")
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=SMALL) as pilot:
        d = await ask_dialog(app, pilot, "edit it")

        def diff_shown() -> None:  # drawn and laid out a pass or two after the dialog opens
            preview = str(d.query_one("#preview", Static).render())
            assert "-old line" in preview and "+new line" in preview
            assert d.query_one("#preview", Static).region.bottom <= 24  # the change is on screen at 80x24

        await eventually(pilot, diff_shown)
        keys = str(d.query_one("#keys", Static).render())
        assert "[y] approve" in keys and "[a] always" in keys
        await pilot.press("a")
        rules = d.query_one("#rules", TextArea)
        assert rules.text == "edit_file(notes.md)"
        rules.load_text("edit_file(**/*.md)")
        d.query_one("#scope", RadioSet).query("RadioButton")[2].value = True  # everywhere
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.busy)
    assert (rt.workspace.root / "notes.md").read_text() == "title\nnew line\nend\n"
    saved = tomllib.loads((tmp_path / "config.toml").read_text())
    assert saved["permissions"]["allow"] == ["edit_file(**/*.md)"]
    kept = [(r.rule.text, r.rule.source) for r in rt.permissions.listed()]
    assert kept == [("edit_file(**/*.md)", "user")]


async def test_the_scope_the_arrow_keys_show_is_the_scope_kept(tmp_path: Path) -> None:
    """Tab to the scope, Right once: "this project" is highlighted, so Ctrl+S keeps the
    rule for the project (Textual's RadioSet alone kept "this session")."""
    rt = runtime(tmp_path, [call("run_shell", command="make test"), "Done."])
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=(100, 30)) as pilot:
        d = await ask_dialog(app, pilot, "test it")
        await wait_for(pilot, lambda: not d.guarded())  # past the typing guard
        await pilot.press("a")
        await wait_for(pilot, lambda: d.query_one("#rules", TextArea).has_focus)
        await pilot.press("tab")
        await wait_for(pilot, lambda: d.query_one("#scope", RadioSet).has_focus)
        await pilot.press("right")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.busy)
    kept = [(r.rule.text, r.rule.source) for r in rt.permissions.listed()]
    assert kept == [("run_shell(make test:*)", "project")], kept


async def test_at_60x20_the_keys_stay_on_screen_and_the_diff_scrolls(tmp_path: Path) -> None:
    rt = runtime(tmp_path, [call("edit_file", path="notes.md", old_string="old line", new_string="new line"),
                            "Edited."])
    (rt.workspace.root / "notes.md").write_text("title\nold line\nend\n")
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=(60, 20)) as pilot:
        d = await ask_dialog(app, pilot, "edit it")

        def keys_shown() -> None:  # once the dialog is laid out (a pass or two after it opens)
            keys = d.query_one("#keys", Static)
            assert "[esc] cancel reply" in str(keys.render())
            inside = d.query_one("#dialog").region.shrink(d.query_one("#dialog").styles.gutter)
            assert keys.region.height >= 2, keys.region  # wrapped
            assert inside.contains_region(keys.region), (keys.region, inside)  # and all of it shown

        await eventually(pilot, keys_shown)


async def test_a_write_outside_the_workspace_is_one_dialog_that_says_so(tmp_path: Path) -> None:
    """Issue 13: the policy's dialog names the path as outside (with the diff) and what
    approving allows; approving it is enough: the fence does not open a second one."""
    outside = tmp_path / "away" / "notes.txt"
    outside.parent.mkdir()
    rt = runtime(tmp_path, [call("write_file", path=str(outside), content="far\n"), "Wrote it."])
    app = AgentShellApp(runtime=rt)
    opened: list[str] = []
    async with app.run_test(size=SMALL) as pilot:
        d = await ask_dialog(app, pilot, "write it")
        await wait_for(pilot, lambda: "+far" in str(d.query_one("#preview", Static).render()))  # drawn
        opened.append(str(d.query_one("#req-desc", Static).render()))
        assert "+far" in str(d.query_one("#preview", Static).render())
        await pilot.press("y")
        if approval_dialog(app) is d and d._seen_end:  # longer than the dialog: the first key showed its end
            d.quiet_until = 0
            await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy or approval_dialog(app) is not None)
        assert approval_dialog(app) is None, "the fence asked a second time"
        await wait_for(pilot, lambda: not app.busy)
    said = " ".join(opened[0].split())
    assert f"{outside} is outside the workspace {rt.workspace.root}" in said
    assert "allows exactly that file (nothing next to it)" in said
    assert outside.read_text() == "far\n"


async def test_only_the_decisions_a_tool_allows_are_offered(tmp_path: Path) -> None:
    rt = runtime(tmp_path, [call("run_shell", command="touch x"), "Done."])
    hitl = next(m for m in rt.agent.middleware if isinstance(m, HumanInTheLoop))
    hitl.interrupt_on = HumanInTheLoop({"run_shell": {"allowed_decisions": ["edit", "reject"]}}).interrupt_on
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=SMALL) as pilot:
        d = await ask_dialog(app, pilot, "run it")
        keys = str(d.query_one("#keys", Static).render())
        assert "approve" not in keys and "always" not in keys and "[e] edit" in keys
        await pilot.press("y")
        await pilot.press("a")
        await frame_drawn(pilot)  # both keys handled and drawn
        assert approval_dialog(app) is d and d.mode == "view"  # neither key did anything
        await pilot.press("n")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.busy)
    assert not (rt.workspace.root / "x").exists()


@pytest.fixture
def guard_clock(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The approval dialog's clock (``.now``), which moves only when the test says time
    passed: on a loaded machine the pilot's keys came more than the typing guard's 2 s
    apart, and 'y' was taken as an answer."""
    from shell.tui.screens import approval, approval_guards

    clock = SimpleNamespace(now=time.monotonic())
    for module in (approval, approval_guards):  # the dialog's and its guards'
        monkeypatch.setattr(module, "time", SimpleNamespace(monotonic=lambda: clock.now))
    return clock


@pytest.mark.typing_guard
async def test_keys_typed_as_the_dialog_opens_are_not_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guard_clock: SimpleNamespace
) -> None:
    clock = guard_clock
    monkeypatch.setattr(ApprovalScreen, "GUARD_S", 2.0)
    rt = runtime(tmp_path, [call("run_shell", command="touch x"), "Done."])
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=SMALL) as pilot:
        d = await ask_dialog(app, pilot, "run it")
        for key in "yes any":  # the user was still typing a sentence
            await pilot.press(key if key != " " else "space")
        await wait_for(pilot, lambda: "paused" in str(d.query_one("#guard", Static).render()))
        assert approval_dialog(app) is d and not (rt.workspace.root / "x").exists()
        assert "paused" in str(d.query_one("#guard", Static).render())
        assert app.prompt.text == "yes any"  # what was being typed is kept in the prompt
        clock.now = time.monotonic() + ApprovalScreen.GUARD_S + 0.2  # a pause, then a deliberate answer
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy)
    assert (rt.workspace.root / "x").exists()


@pytest.mark.typing_guard
async def test_a_sentence_typed_into_a_dialog_that_was_already_up_is_no_answer(
    tmp_path: Path, guard_clock: SimpleNamespace
) -> None:
    clock = guard_clock
    rt = runtime(tmp_path, [call("run_shell", command="touch x"), "Done."])
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=SMALL) as pilot:
        d = await ask_dialog(app, pilot, "run it")
        clock.now = time.monotonic() + ApprovalScreen.GUARD_S + 1  # the dialog has been up a while
        for key in "write notes":  # 'e' and 'n' would be Edit and Reject
            await pilot.press(key if key != " " else "space")
        await wait_for(pilot, lambda: app.prompt.text == "write notes")
        assert approval_dialog(app) is d and d.mode == "view", "a letter of the sentence was an answer"
        assert "paused" in str(d.query_one("#guard", Static).render())
        clock.now = time.monotonic() + ApprovalScreen.GUARD_S + 2  # a pause, then a deliberate answer
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy)
        assert app.prompt.text == "write notes"  # kept, to send when the user chooses
    assert (rt.workspace.root / "x").exists()


async def test_permissions_lists_rules_with_their_source_and_removes_one(tmp_path: Path) -> None:
    rt = runtime(tmp_path, [])
    rt.permissions.add_rule("run_shell(git status:*)", "allow", "session")
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/permissions")
        await wait_for(pilot, lambda: "this session" in _conversation_text(app))
        assert "1. `allow run_shell(git status:*)`: this session" in _conversation_text(app)
        await send(pilot, "/permissions remove 1")
        await wait_for(pilot, lambda: not rt.permissions.listed())
        assert rt.permissions.listed() == []
