"""A session is named by what the user typed, never by the files the message
attached (finding B4): ``/sessions`` and ``--resume`` showed the internal
``<attached-file …>`` tag and the file's first lines (a private note, a log) as
the title, a ``/fork`` dropped the original's title, and the demo model quoted the
tag and the file's text back on screen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shell.commands import default_commands
from shell.config import Settings
from shell.context.attachments import compose
from shell.core.messages import UserMessage
from shell.core.model import ModelRequest, TextDelta
from shell.providers.demo import DemoModel
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionStore
from shell.sessions.search import SearchIndex

from .util import header, write

PRIVATE = "my diary: the launch slips to May"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00\x00\x00\x02" * 2 + b"\x08\x02\x00\x00\x00"


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "notes.md").write_text(f"{PRIVATE}\nsecond line\n")
    (ws / "src" / "mod.py").write_text("print('hi')\n")
    (ws / "pic.png").write_bytes(PNG)
    return ws


def attaching(ws: Path, text: str) -> UserMessage:
    composed = compose(text, ws)
    assert not composed.problems and composed.attachments
    return composed.message


def runtime(ws: Path, turns: list[Any]) -> ShellRuntime:
    opts = RuntimeOptions(cwd=str(ws), permission_mode="bypass")
    return ShellRuntime.create(opts, settings=Settings(path=ws / "none.toml"), model=ScriptedModel(turns))


async def talk(rt: ShellRuntime, said: str | UserMessage) -> None:
    async for _ in rt.reply(said):
        pass


@pytest.mark.anyio
async def test_a_session_is_listed_by_the_users_words_and_a_count_of_files(
    store: SessionStore, tmp_path: Path
) -> None:
    ws = workspace(tmp_path)
    rt = runtime(ws, ["ok"])
    await talk(rt, attaching(ws, "explain @src/mod.py and @notes.md and @pic.png"))
    recorder = rt.session_recorder
    assert recorder is not None
    title = store.info(recorder.session_id).title
    assert title == "explain @src/mod.py and @notes.md and @pic.png (+3 files)"
    hits = SearchIndex(store, tmp_path / "i.sqlite").search("explain")  # /sessions QUERY names it the same
    assert [h.title for h in hits] == [title]


def test_a_long_message_keeps_its_count_and_an_acp_joined_one_is_cut_at_its_tag(
    store: SessionStore, tmp_path: Path
) -> None:
    from shell.context.attachments import fenced_file

    joined = "look at this\n" + fenced_file("/p/notes.md", PRIVATE) + "\n" + fenced_file("/p/b.md", "x")
    long = {"role": "user", "content": [{"type": "text", "text": "word " * 40},
                                        {"type": "text", "text": fenced_file("notes.md", PRIVATE)}]}
    for n, message in enumerate(({"role": "user", "content": joined}, long)):
        session_id = f"20260101-00000{n}-aaaaaa"
        write(store.path(session_id), [header(session_id, cwd="/w"),
                                       json.dumps({"kind": "message", "message": message}) + "\n"])
    titles = [store.info(f"20260101-00000{n}-aaaaaa").title for n in range(2)]
    assert titles[0] == "look at this (+2 files)"
    assert titles[1].endswith("… (+1 file)") and len(titles[1]) <= 80
    assert not any("attached" in t or "diary" in t for t in titles)


@pytest.mark.anyio
async def test_a_fork_keeps_its_originals_title(store: SessionStore, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    rt = runtime(ws, ["ok", "ok"])
    await talk(rt, attaching(ws, "explain @notes.md"))
    original = rt.session_recorder
    assert original is not None
    original.set_title("Launch notes explained", "model")
    assert not (await default_commands().run(rt, "/fork")).error
    forked = rt.session_recorder
    assert forked is not None and forked is not original
    assert store.info(forked.session_id).title == "Launch notes explained (fork)"
    assert store.info(original.session_id).title == "Launch notes explained"


@pytest.mark.anyio
async def test_an_untitled_fork_is_named_by_the_first_messages_words(
    store: SessionStore, tmp_path: Path
) -> None:
    ws = workspace(tmp_path)
    rt = runtime(ws, ["ok"])
    await talk(rt, attaching(ws, "explain @notes.md"))
    assert not (await default_commands().run(rt, "/fork")).error
    forked = rt.session_recorder
    assert forked is not None
    assert store.info(forked.session_id).title == "explain @notes.md (+1 file) (fork)"


@pytest.mark.anyio
async def test_the_demo_does_not_quote_an_attached_files_text(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    message = attaching(ws, "ponder @notes.md")
    model = DemoModel(delay=0)
    chunks = [c async for c in model.stream(ModelRequest(model, "", (message,)))]
    said = "".join(c.text for c in chunks if isinstance(c, TextDelta))
    assert "ponder @notes.md" in said
    assert "attached-file" not in said and "diary" not in said
