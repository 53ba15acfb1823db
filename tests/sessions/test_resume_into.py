"""``resume_into`` / ``recorder_for``: what the CLI and the runtime call."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from shell.agent import Agent
from shell.providers.scripted import ScriptedModel
from shell.runtime import ShellError
from shell.sessions import SessionRecorder, SessionStore, load_session, recorder_for, resume_into


def runtime(cwd: Path, turns: list[Any]) -> Any:
    return SimpleNamespace(
        agent=Agent(ScriptedModel(turns)), workspace=SimpleNamespace(root=cwd), settings=None, problems=[],
    )


async def talk(rt: Any, text: str) -> None:
    async for _ in recorder_for(rt).record(rt.agent.reply(text)):
        pass


@pytest.mark.anyio
async def test_continue_resumes_the_latest_session_of_the_directory(
    store: SessionStore, tmp_path: Path
) -> None:
    first = runtime(tmp_path, ["one"])
    await talk(first, "hello")
    recorder = recorder_for(first)
    assert recorder is first.session_recorder
    recorder.close()

    second = runtime(tmp_path, ["two"])
    loaded = resume_into(second, None, latest=True)
    assert loaded.session_id == recorder.session_id
    assert second.session_recorder.session_id == recorder.session_id
    await talk(second, "again")
    second.session_recorder.close()
    assert [m.text for m in load_session(recorder.path).messages] == ["hello", "one", "again", "two"]

    third = runtime(tmp_path, [])
    resume_into(third, recorder.session_id[-6:])  # --resume with the id's tail
    assert len(third.agent.messages) == 4
    with pytest.raises(ShellError, match="open in another agent-shell"):
        resume_into(runtime(tmp_path, []), recorder.session_id)
    third.session_recorder.close()


def test_errors_are_one_line_shell_errors(store: SessionStore, tmp_path: Path) -> None:
    with pytest.raises(ShellError, match="no session to continue"):
        resume_into(runtime(tmp_path, []), None, latest=True)
    with pytest.raises(ShellError, match="no session matches"):
        resume_into(runtime(tmp_path, []), "nope")
    with pytest.raises(ShellError, match="no sessions to resume"):
        resume_into(runtime(tmp_path, []), None)


@pytest.mark.anyio
async def test_resume_without_an_id_off_a_terminal_lists_the_sessions(
    store: SessionStore, tmp_path: Path
) -> None:
    rt = runtime(tmp_path, ["one"])
    await talk(rt, "what is up")
    rt.session_recorder.close()
    with pytest.raises(ShellError, match="what is up"):
        resume_into(runtime(tmp_path, []), None)


def test_a_damaged_session_resumes_with_its_problems_reported(store: SessionStore, tmp_path: Path) -> None:
    from .util import header, write

    write(store.ensure() / "bad.jsonl", [header("bad", cwd=str(tmp_path)), "garbage\n"])
    rt = runtime(tmp_path, [])
    resume_into(rt, "bad")
    assert rt.problems and "session bad: line 2" in rt.problems[0]
    assert isinstance(rt.session_recorder, SessionRecorder)
    rt.session_recorder.close()
