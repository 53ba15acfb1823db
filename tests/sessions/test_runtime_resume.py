"""``ShellRuntime.recorder`` / ``ShellRuntime.resume``: what ``--continue``,
``--resume`` and ``/resume`` do, and the CLI's pick of a session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shell.config import Settings
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellError, ShellRuntime
from shell.sessions import SessionError, SessionRecorder, SessionStore, load_session
from shell.subcommands import choose_session as _choose_session


def runtime(cwd: Path, turns: list[Any]) -> ShellRuntime:
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(cwd)), settings=Settings(path=cwd / "none.toml"), model=ScriptedModel(turns)
    )


async def talk(rt: ShellRuntime, text: str) -> None:
    async for _ in rt.reply(text):
        pass


@pytest.mark.anyio
async def test_continue_resumes_the_latest_session_of_the_directory(
    store: SessionStore, tmp_path: Path
) -> None:
    first = runtime(tmp_path, ["one"])
    await talk(first, "hello")
    recorder = first.recorder()
    assert recorder is first.session_recorder
    recorder.close()

    second = runtime(tmp_path, ["two"])
    loaded = second.resume(latest=True)
    assert loaded.session_id == recorder.session_id
    assert second.session_recorder is not None
    assert second.session_recorder.session_id == recorder.session_id
    await talk(second, "again")
    second.session_recorder.close()
    assert [m.text for m in load_session(recorder.path).messages] == ["hello", "one", "again", "two"]

    third = runtime(tmp_path, [])
    third.resume(recorder.session_id[-6:])  # --resume with the id's tail
    assert len(third.agent.messages) == 4
    with pytest.raises(ShellError, match="open in another agent-shell"):
        runtime(tmp_path, []).resume(recorder.session_id)
    third.session_recorder.close()


def test_errors_are_one_line_shell_errors(store: SessionStore, tmp_path: Path) -> None:
    with pytest.raises(ShellError, match="no session to continue"):
        runtime(tmp_path, []).resume(latest=True)
    with pytest.raises(ShellError, match="no session matches"):
        runtime(tmp_path, []).resume("nope")
    with pytest.raises(SessionError, match="no sessions to resume"):
        _choose_session(str(tmp_path))


@pytest.mark.anyio
async def test_resume_without_an_id_off_a_terminal_lists_the_sessions(
    store: SessionStore, tmp_path: Path
) -> None:
    rt = runtime(tmp_path, ["one"])
    await talk(rt, "what is up")
    rt.session_recorder.close()
    with pytest.raises(SessionError, match="what is up"):
        _choose_session(str(tmp_path))


def test_a_damaged_session_resumes_with_its_problems_reported(store: SessionStore, tmp_path: Path) -> None:
    from .util import header, write

    write(store.ensure() / "bad.jsonl", [header("bad", cwd=str(tmp_path)), "garbage\n"])
    rt = runtime(tmp_path, [])
    rt.resume("bad")
    assert rt.problems and "session bad: line 2" in rt.problems[0]
    assert isinstance(rt.session_recorder, SessionRecorder)
    rt.session_recorder.close()
