"""``/export`` and ``/copy`` after ``/compact`` (findings R1, R2): they work from the
conversation the user saw, not from the summary the model is now sent. The export
held one "## User" section with the summary; ``/copy`` said no reply had any text
while the replies were on screen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shell.commands import default_commands
from shell.providers.scripted import ScriptedModel
from shell.sessions import export_markdown

from .test_compact import compacted, isolated, recorded_after_a_reply, resumed

pytestmark = pytest.mark.anyio
__all__ = ["isolated"]  # the fixture that keeps config and data under tmp_path


async def test_export_after_compact_writes_the_conversation_not_the_summary(tmp_path: Path) -> None:
    model = ScriptedModel(["first reply", "SUMMARY ONE", "second reply", "SUMMARY TWO"])
    runtime = await recorded_after_a_reply(model, tmp_path)
    await compacted(runtime)
    async for _ in runtime.reply("one more"):
        pass
    await compacted(runtime)  # a summary of a summary and a later exchange
    assert len(runtime.agent.messages) == 1
    said = await default_commands().run(runtime, "/export")
    assert not said.error, said.text
    assert "Exported 10 messages" in said.text
    found = re.search(r"`([^`]+\.md)`", said.text)
    assert found is not None, said.text
    text = Path(found.group(1)).read_text(encoding="utf-8")  # noqa: ASYNC240 (a small file, once)
    for words in ("question 0 about api_0", "question 2 about api_2", "and now?", "first reply",
                  "one more", "second reply"):
        assert words in text, words
    assert "SUMMARY" not in text


async def test_copy_after_compact_copies_the_last_reply_shown(tmp_path: Path) -> None:
    model = ScriptedModel(["first reply", "SUMMARY ONE"])
    runtime = await recorded_after_a_reply(model, tmp_path)
    await compacted(runtime)
    said = await default_commands().run(runtime, "/copy")
    assert not said.error, said.text
    assert said.action == "copy" and said.data == "first reply"


async def test_an_exported_summary_is_headed_as_a_summary_not_as_the_user(tmp_path: Path) -> None:
    """A resumed session holds only the summary: it is labelled as what it is."""
    model = ScriptedModel(["first reply", "SUMMARY ONE"])
    runtime = await recorded_after_a_reply(model, tmp_path)
    await compacted(runtime)
    text = export_markdown(resumed(tmp_path))
    assert "## Summary of earlier turns\n\nSUMMARY ONE" in text
    assert "## User" not in text


async def test_export_after_resuming_a_compacted_session_writes_what_the_user_saw(tmp_path: Path) -> None:
    """r17: R1's fix covered /export after /compact in the same run; after --resume the
    export held the summary alone. The session file holds the turns before each
    compaction: they are exported, and a line marks where the summary stands in."""
    from .test_compact import runtime_with

    model = ScriptedModel(["first reply", "SUMMARY ONE", "second reply", "SUMMARY TWO"])
    runtime = await recorded_after_a_reply(model, tmp_path)
    await compacted(runtime)
    async for _ in runtime.reply("one more"):
        pass
    await compacted(runtime)  # a summary of a summary and a later exchange
    assert runtime.session_recorder is not None
    runtime.session_recorder.close()  # the run ends (its lock is let go)
    again = runtime_with(ScriptedModel(["third reply"]), tmp_path, record=True)
    again.resume(latest=True)
    assert len(again.agent.messages) == 1  # the model is sent the summary...
    said = await default_commands().run(again, "/export")
    assert not said.error, said.text
    assert "Exported 10 messages" in said.text  # ...the export holds what the user saw
    found = re.search(r"`([^`]+\.md)`", said.text)
    assert found is not None, said.text
    text = Path(found.group(1)).read_text(encoding="utf-8")  # noqa: ASYNC240 (a small file, once)
    for words in ("question 0 about api_0", "and now?", "first reply", "one more", "second reply"):
        assert words in text, words
    assert "SUMMARY" not in text
    assert text.count("Compacted here") == 2  # after "and now?"'s reply, then at the end
    assert text.index("first reply") < text.index("Compacted here") < text.index("one more")
    shown = await default_commands().run(again, "/compact show 1")  # resumed: it knows them too
    assert not shown.error and "question 0 about api_0" in shown.text
