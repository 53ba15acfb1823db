"""The TUI's ``@`` picker, the chips a message shows, staged images and the meter."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.core.messages import AssistantMessage as Said
from shell.core.messages import TextBlock, Usage
from shell.tui.app import AgentShellApp
from shell.tui.widgets.mention_picker import MentionPicker
from shell.tui.widgets.notice_line import NoticeLine
from shell.tui.widgets.user_message import UserMessage as UserWidget
from tests.context.test_attachments import png

from .helpers import SIZE, runtime_app, send, wait_for, workspace

pytestmark = pytest.mark.anyio


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return workspace(tmp_path, monkeypatch, {"src/app.py": "def main():\n    return 42\n",
                                             "src/ui/button.py": "class Button: ...\n",
                                             "README.md": "# hi\n", "shot.png": png()})


async def open_picker(app: AgentShellApp, pilot: object, typed: str) -> MentionPicker:
    """Once the app and its file index are ready, type ``typed``; the picker, open with matches."""
    await wait_for(pilot, lambda: app.ready)
    assert app.runtime.file_index.wait(10)
    await pilot.press(*typed)  # type: ignore[attr-defined]
    picker = app.query_one(MentionPicker)
    await wait_for(pilot, lambda: picker.open and bool(picker.matches))
    return picker


async def test_at_opens_the_picker_tab_attaches_and_the_message_carries_the_file(ws: Path) -> None:
    app, model = runtime_app(ws, ["It returns 42."])
    async with app.run_test(size=SIZE) as pilot:
        picker = await open_picker(app, pilot, "what does @but")
        assert picker.chosen() is not None and picker.chosen().path == "src/ui/button.py"  # type: ignore[union-attr]
        await pilot.press("escape")  # closes the picker, not the app's cancel
        assert not picker.open and app.prompt.text == "what does @but"
        await pilot.press("backspace", "backspace", "backspace", *"app")
        await wait_for(pilot, lambda: picker.open and bool(picker.matches))
        await pilot.press("tab")
        assert app.prompt.text == "what does @src/app.py "
        assert not picker.open
        await send(pilot, "do?")
        await wait_for(pilot, lambda: not app.busy and len(model.requests) == 1)
        sent = model.requests[0].messages[-1]
        assert "what does @src/app.py do?" in sent.text and "return 42" in sent.text
        shown = app.query(UserWidget).last()
        assert shown.text == "what does @src/app.py do?" and shown.chips == ("@src/app.py · 2 lines",)


async def test_a_picked_name_with_a_newline_goes_in_escaped_and_attaches(ws: Path) -> None:
    """Picking ``weird/nl⏎fake_line.txt`` put a real newline into the prompt."""
    (ws / "weird").mkdir()
    (ws / "weird" / "nl\nfake_line.txt").write_text("the real one\n")
    app, model = runtime_app(ws, ["ok"])
    async with app.run_test(size=SIZE) as pilot:
        await open_picker(app, pilot, "read @fake_l")
        await pilot.press("tab")
        assert app.prompt.text == "read @weird/nl\\nfake_line.txt "
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.busy and len(model.requests) == 1)
        assert "the real one" in model.requests[0].messages[-1].text


async def test_a_folder_keeps_the_picker_open_and_enter_with_nothing_to_pick_sends(ws: Path) -> None:
    app, model = runtime_app(ws, ["ok", "ok"])
    async with app.run_test(size=SIZE) as pilot:
        picker = await open_picker(app, pilot, "@ui")
        assert picker.chosen().path == "src/ui/"  # type: ignore[union-attr]
        await pilot.press("enter")
        assert app.prompt.text == "@src/ui/"
        await wait_for(pilot, lambda: picker.open and bool(picker.matches))
        assert [m.path for m in picker.matches][:1] == ["src/ui/"]
        app.prompt.clear()
        await send(pilot, "ask @nobody")  # nothing matches: Enter sends
        await wait_for(pilot, lambda: len(model.requests) == 1)
        assert model.requests[0].messages[-1].text == "ask @nobody"


async def test_a_refused_attachment_is_said_and_the_text_comes_back(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("secret")
    (ws / "link.txt").symlink_to(tmp_path / "outside.txt")
    app, model = runtime_app(ws, ["never"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready)
        await send(pilot, "read @link.txt ")
        await wait_for(pilot, lambda: app.prompt.text == "read @link.txt ")
        assert model.requests == []
        notices = " ".join(n.text for n in app.query(NoticeLine))
        assert "outside the workspace" in notices


async def test_image_chip_above_the_prompt_then_in_the_message(ws: Path) -> None:
    app, model = runtime_app(ws, ["A red square."])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready)
        await send(pilot, "/image shot.png")
        bar = app.query_one("#attachments")
        await wait_for(pilot, lambda: bar.has_class("-shown"))
        assert "image shot.png · 3x2" in str(bar.render())
        await send(pilot, "what is it?")
        await wait_for(pilot, lambda: len(model.requests) == 1 and not app.busy)
        assert not bar.has_class("-shown")
        assert app.query(UserWidget).last().chips[0].startswith("image shot.png · 3x2")
        content = model.requests[0].messages[-1].content
        assert isinstance(content, tuple) and content[-1].media_type == "image/png"  # type: ignore[union-attr]


async def test_the_status_line_shows_how_full_and_what_it_cost(ws: Path) -> None:
    said = Said((TextBlock("done"),), usage=Usage(input_tokens=9_000, output_tokens=1_000))
    models = {"scripted-model": {"context_window": 10_000, "input_price": 3.0, "output_price": 15.0}}
    app, model = runtime_app(ws, [said], extra={"models": models})
    model.name = "scripted-model"
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready)
        await send(pilot, "go")
        await wait_for(pilot, lambda: not app.busy and app.status.context != "")
        assert app.status.context == "ctx 90% of 10k" and app.status.fullness == 0.9
        assert app.status.cost == "$0.042 reply · $0.042 session"
        line = str(app.status.render())
        assert "ctx 90% of 10k" in line and "$0.042" in line


async def test_moving_the_cursor_off_the_at_word_closes_the_picker_and_back_opens_it(ws: Path) -> None:
    app, _ = runtime_app(ws, ["ok"])
    async with app.run_test(size=SIZE) as pilot:
        picker = await open_picker(app, pilot, "see @but")
        await pilot.press("home")
        await wait_for(pilot, lambda: not picker.open)
        await pilot.press("end")
        await wait_for(pilot, lambda: picker.open and bool(picker.matches))
        assert app.prompt.text == "see @but"


async def test_a_picker_opened_before_the_index_exists_fills_in_without_a_key(tmp_path: Path) -> None:
    """``@mod`` typed while the shell started: "indexing the workspace…" stayed for
    minutes after the index was ready, until the next key (tester round 6)."""
    from textual.app import App, ComposeResult

    from shell.context.files import FileIndex

    index = FileIndex(tmp_path, walker=lambda root: [f"mod{i}.py" for i in range(120)])
    holder: list[FileIndex | None] = [None]

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield MentionPicker(lambda: holder[0])

    async with Host().run_test(size=(80, 20)) as pilot:
        picker = pilot.app.query_one(MentionPicker)
        picker.show_for("mod")
        await pilot.pause()
        assert "indexing the workspace" in str(picker.render())
        index.start()
        assert index.wait(10)
        holder[0] = index  # the shell is ready: no key pressed since
        await wait_for(pilot, lambda: bool(picker.matches))
        await wait_for(pilot, lambda: "50+ matches: type more" in str(picker.render()))
        assert " more" not in str(picker.render()).replace("type more", "")  # not "42 more" of 120
