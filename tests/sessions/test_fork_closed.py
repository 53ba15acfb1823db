"""A fork is a finished conversation, named by the user's words (finding E3): every
``/fork``'d session said "the last reply did not finish" when resumed (the fork copied
``message`` records and no ``reply_end``, and resuming appended an ``interrupted``
record), and a fork of a ``/compact``'ed session was titled with the summary record's
marker text ("[agent-shell: summary of earlier turns] Here is a summary … (fork)")."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.commands import default_commands
from shell.config import Settings
from shell.core.messages import AssistantMessage, TextBlock, UserMessage
from shell.core.summaryrecord import SUMMARY_MARK, summary_message
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionStore, load_session

pytestmark = pytest.mark.anyio


def runtime(ws: Path, turns: list[str]) -> ShellRuntime:
    ws.mkdir(exist_ok=True)
    opts = RuntimeOptions(cwd=str(ws), permission_mode="bypass")
    return ShellRuntime.create(opts, settings=Settings(path=ws / "none.toml"), model=ScriptedModel(turns))


async def test_a_resumed_fork_says_nothing_was_left_unfinished(store: SessionStore, tmp_path: Path) -> None:
    rt = runtime(tmp_path / "ws", ["linked."])
    async for _ in rt.reply("link"):
        pass
    assert not (await default_commands().run(rt, "/fork")).error
    forked = rt.session_recorder
    assert forked is not None
    loaded = load_session(store.path(forked.session_id))
    assert not loaded.interrupted, loaded.interrupted_reason
    assert not any("did not finish" in p for p in loaded.problems), loaded.problems
    assert [m.text for m in loaded.messages] == ["link", "linked."]


async def test_a_fork_of_a_compacted_session_is_not_named_by_the_summary(
    store: SessionStore, tmp_path: Path
) -> None:
    rt = runtime(tmp_path / "ws", [])
    compacted = [summary_message("Here is a summary of the conversation so far."),
                 UserMessage("tidy the release notes"), AssistantMessage((TextBlock("Tidied."),))]
    rt.fork(compacted)
    forked = rt.session_recorder
    assert forked is not None
    title = store.info(forked.session_id).title
    assert SUMMARY_MARK not in title and "summary" not in title, title
    assert title.startswith("tidy the release notes"), title
