"""The private parts of Textual the TUI relies on (shell/tui/textual_internals.py) are all
in the Textual installed, and the list is whole: a Textual upgrade that renames one
fails here, naming it and what relies on it, instead of as an AttributeError in the
middle of a reply. Where it is cheap, the shell falls back to plain Textual."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path
from typing import Any

import pytest
import textual

from shell.tui import textual_internals
from shell.tui.textual_internals import ALL, SPLIT_FRAME, lacks

from .helpers import SIZE, scripted_app, send, wait_for

pytestmark = pytest.mark.anyio

TUI = Path(textual_internals.__file__).parent
GROUPS = ("SPLIT_FRAME", "KEYS_IN_ORDER", "UNLINK", "MARKDOWN", "WIDGETS", "RICH")


def _present(entry: str) -> bool:
    module_name, _, rest = entry.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return False
    if not rest:
        return True
    class_name, _, name = rest.partition(".")
    owner = getattr(module, class_name, None)
    if owner is None:
        return False
    if hasattr(owner, name):
        return True
    assigned = re.compile(rf"self\.{re.escape(name)}\b\s*(:[^=\n]*)?=[^=]")  # set by __init__
    return any(assigned.search(inspect.getsource(base)) for base in owner.__mro__
               if base.__module__.startswith(("textual", "rich")))


def _what_for(entry: str) -> str:
    group = next(g for g in GROUPS if entry in getattr(textual_internals, g))
    return f"{group}: " + " ".join(inspect.getsource(textual_internals).split(f"{group} = (")[1]
                                   .split('"""')[1].split())


def test_every_internal_the_shell_relies_on_is_in_this_textual() -> None:
    gone = [entry for entry in ALL if not _present(entry)]
    said = "\n".join(f"  {entry} — used by {_what_for(entry)}" for entry in gone)
    assert not gone, (f"Textual {textual.__version__} no longer has these private names the shell "
                      f"relies on (update the code using them, or pin textual below this version):\n{said}")


def _defined(root: Path) -> set[str]:
    """Names a package defines: functions, classes, assigned attributes."""
    names: set[str] = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


def _private_module(name: str) -> bool:
    return name.startswith("textual.") and any(part.startswith("_") for part in name.split("."))


def _uses(path: Path, ours: set[str], theirs: set[str]) -> set[str]:
    """The private Textual names ``path`` uses: attributes Textual defines that our code
    does not (or that it reaches through ``super()``), and private modules it imports."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            through_super = isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "super"
            if node.attr in theirs and (node.attr not in ours or through_super):
                found.add(node.attr)
        elif isinstance(node, ast.ImportFrom) and node.module and _private_module(node.module):
            found.add(node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _private_module(node.value):
            found.add(node.value)  # a module imported ahead by name (screens/main_startup.py)
    return found


def test_every_private_textual_name_the_tui_uses_is_listed() -> None:
    theirs = _defined(Path(textual.__file__).parent)
    ours = _defined(TUI.parent)
    listed = {entry.rpartition(".")[2] if ":" in entry else entry for entry in ALL}
    paths = [path for path in sorted(TUI.rglob("*.py")) if path.name != "textual_internals.py"]
    unlisted = {f"{path.relative_to(TUI.parent.parent)}: {name}"
                for path in paths for name in _uses(path, ours, theirs) - listed}
    assert not unlisted, ("private Textual names used but not listed in shell/tui/textual_internals.py "
                          "(list them, with what relies on them):\n  " + "\n  ".join(sorted(unlisted)))


async def test_without_the_split_frames_internals_frames_are_drawn_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Textual that renamed one of them: the shell still streams a reply, drawn by
    Textual's own update timer (deleting a name Textual itself uses would break
    Textual, so the list is given one that no Textual has)."""
    from shell.tui.screens import split_frame

    renamed = "textual.app:App._renamed_in_a_later_textual"
    monkeypatch.setattr(split_frame, "SPLIT_FRAME", (*SPLIT_FRAME, renamed))
    monkeypatch.setattr(split_frame.SplitFrameScreen, "_splits", None)
    app, _, _ = scripted_app(["Hello **there**, a reply drawn whole."])
    async with app.run_test(size=SIZE) as pilot:
        assert lacks(app, split_frame.SPLIT_FRAME) == [renamed]
        await send(pilot, "hi")
        await wait_for(pilot, lambda: not app.busy and "drawn whole" in _shown(app))
        assert split_frame.SplitFrameScreen._splits is False and app.main._frame_timer is None


async def test_without_bindings_keys_still_edit_the_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    from shell.tui.widgets import keys_in_order

    monkeypatch.setattr(keys_in_order, "BINDINGS", "_renamed_in_a_later_textual")
    app, _, _ = scripted_app(["ok"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.focused is app.prompt)
        await pilot.press(*"abc", "backspace", "left", "x")
        await wait_for(pilot, lambda: app.prompt.text == "axb")


def _shown(app: Any) -> str:
    from shell.tui.widgets.assistant_message import AssistantMessage

    return " ".join(w.text for w in app.query(AssistantMessage))
