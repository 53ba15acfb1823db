"""``/rewind``: back to just before a message, byte for byte, in the conversation and the files,
also after ``--resume``; what a command did outside the sandbox is said to be not undoable."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from shell.commands import default_commands
from shell.config import Settings
from shell.core.messages import AssistantMessage, ToolCallBlock
from shell.core.summaryrecord import summary_of
from shell.providers.scripted import ScriptedModel
from shell.rewind import RewindError, apply_rewind, plan_rewind, turns
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionStore, load_session
from shell.sessions.checkpoints import Checkpoints

BINARY = bytes(range(256)) * 3 + b"\x00\xff\xfe"


def call(name: str, **args: Any) -> AssistantMessage:
    return AssistantMessage((ToolCallBlock(f"c-{name}-{len(str(args))}", name, args),))


def runtime(ws: Path, turns: list[Any], **options: Any) -> ShellRuntime:
    opts = RuntimeOptions(cwd=str(ws), permission_mode="bypass", **options)
    return ShellRuntime.create(opts, settings=Settings(path=ws / "none.toml"), model=ScriptedModel(turns))


async def talk(rt: ShellRuntime, text: str) -> None:
    async for _ in rt.reply(text):
        pass


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


async def three_edits(rt: ShellRuntime, ws: Path) -> None:
    await talk(rt, "first: create notes")
    await talk(rt, "second: edit notes")
    await talk(rt, "third: rewrite everything")


def scripted_edits() -> list[Any]:
    return [
        call("write_file", path="notes.txt", content="one\n"), "created",
        call("edit_file", path="notes.txt", old_string="one", new_string="two"), "edited",
        call("write_file", path="notes.txt", content="three\n"),
        call("write_file", path="keep.txt", content="kept?\n"),
        call("edit_file", path="crlf.txt", old_string="b", new_string="B"), "done",
    ]


@pytest.mark.anyio
async def test_rewind_restores_files_byte_for_byte_and_the_conversation(
    store: SessionStore, ws: Path
) -> None:
    crlf = b"a\r\nb\r\n\xef\xbb\xbfc\tno newline at end"
    (ws / "crlf.txt").write_bytes(crlf)
    os.chmod(ws / "crlf.txt", 0o640)
    rt = runtime(ws, scripted_edits())
    await three_edits(rt, ws)
    assert (ws / "notes.txt").read_text() == "three\n"
    assert (ws / "crlf.txt").read_bytes() != crlf

    rows = turns(rt)
    said = ["first: create notes", "second: edit notes", "third: rewrite everything"]
    assert [r.text for r in rows] == said
    assert [r.files for r in rows] == [1, 1, 3]

    plan = plan_rewind(rt, rows[1].number)
    shown = plan.describe()
    assert "notes.txt" in shown and "crlf.txt" in shown and "keep.txt" in shown
    assert "all after it are removed (2 messages of yours," in " ".join(shown.split())  # counts said plainly
    assert (ws / "notes.txt").read_text() == "three\n"  # a plan changes nothing
    outcome = apply_rewind(rt, plan, "both")
    assert not outcome.failed
    assert (ws / "notes.txt").read_text() == "one\n"
    assert (ws / "crlf.txt").read_bytes() == crlf  # byte for byte: CR LF, a BOM, no final newline
    assert (ws / "crlf.txt").stat().st_mode & 0o777 == 0o640
    assert not (ws / "keep.txt").exists()  # created after the message: removed
    kinds = [type(m).__name__ for m in rt.agent.messages]
    assert kinds == ["UserMessage", "AssistantMessage", "ToolResultMessage", "AssistantMessage"]
    assert rt.agent.messages[-1].text == "created"
    assert outcome.text == "second: edit notes"
    assert [r.text for r in turns(rt)] == ["first: create notes"]

    recorder = rt.session_recorder
    assert recorder is not None
    recorder.close()
    assert load_session(recorder.path).messages == rt.agent.messages  # the file says the same


@pytest.mark.anyio
async def test_rewind_works_after_a_resume(store: SessionStore, ws: Path) -> None:
    rt = runtime(ws, scripted_edits())
    await three_edits(rt, ws)
    session = rt.session_recorder
    assert session is not None
    session.close()

    again = runtime(ws, ["fine"])
    again.resume(session.session_id)
    assert [r.text for r in turns(again)][-1] == "third: rewrite everything"
    outcome = apply_rewind(again, plan_rewind(again, turns(again)[0].number), "both")
    assert not (ws / "notes.txt").exists()
    assert not (ws / "keep.txt").exists()
    assert again.agent.messages == []
    assert outcome.text == "first: create notes"
    await talk(again, "start over")
    assert [m.text for m in again.agent.messages] == ["start over", "fine"]
    assert again.session_recorder is not None
    again.session_recorder.close()
    assert [m.text for m in load_session(session.path).messages] == ["start over", "fine"]


@pytest.mark.anyio
async def test_files_only_and_conversation_only(store: SessionStore, ws: Path) -> None:
    rt = runtime(ws, scripted_edits())
    await three_edits(rt, ws)
    before = list(rt.agent.messages)
    apply_rewind(rt, plan_rewind(rt, turns(rt)[2].number), "files")
    assert (ws / "notes.txt").read_text() == "two\n"
    assert rt.agent.messages == before  # the conversation stays
    assert len(turns(rt)) == 3
    apply_rewind(rt, plan_rewind(rt, turns(rt)[1].number), "conversation")
    assert (ws / "notes.txt").read_text() == "two\n"  # the files stay
    assert len(rt.agent.messages) == 4


@pytest.mark.anyio
async def test_a_file_the_user_changed_back_is_left_alone_and_big_files_are_said(
    store: SessionStore, ws: Path
) -> None:
    rt = runtime(ws, [call("write_file", path="a.txt", content="agent\n"), "ok"])
    (ws / "a.txt").write_text("mine\n")
    await talk(rt, "overwrite it")
    (ws / "a.txt").write_text("mine\n")  # the user put it back already
    plan = plan_rewind(rt, turns(rt)[0].number)
    assert [s.action for s in plan.files] == ["unchanged"]

    cp = rt.checkpoints
    assert cp is not None
    cp.max_file = 4
    rt.agent.model = ScriptedModel([call("write_file", path="a.txt", content="again\n"), "ok"])
    await talk(rt, "once more")
    plan = plan_rewind(rt, turns(rt)[1].number)
    assert [s.action for s in plan.files] == ["lost"]
    assert "too big to keep" in plan.describe()
    outcome = apply_rewind(rt, plan, "files")
    assert outcome.failed and (ws / "a.txt").read_text() == "again\n"


@pytest.mark.anyio
async def test_a_symlink_planted_since_is_never_written_through(
    store: SessionStore, ws: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret config\n")
    (ws / "a.txt").write_text("v1\n")
    rt = runtime(ws, [call("write_file", path="a.txt", content="v2\n"), "ok"])
    await talk(rt, "change it")
    (ws / "a.txt").unlink()
    (ws / "a.txt").symlink_to(outside)
    outcome = apply_rewind(rt, plan_rewind(rt, 1), "files")
    assert outside.read_text() == "secret config\n"
    assert outcome.failed and "symlink" in outcome.failed[0]


@pytest.mark.anyio
async def test_unsandboxed_commands_are_listed_as_not_undoable(
    store: SessionStore, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shell.permissions import sandbox

    monkeypatch.setattr(sandbox.Sandbox, "available", property(lambda self: False))
    rt = runtime(ws, [call("run_shell", command="echo hi > made.txt"), "ran"])
    await talk(rt, "run it")
    assert (ws / "made.txt").read_text() == "hi\n"
    plan = plan_rewind(rt, 1)
    text = plan.describe()
    assert "not undoable" in text and "outside the sandbox" in text and "echo hi" in text
    apply_rewind(rt, plan, "files")
    assert (ws / "made.txt").exists()  # said, not pretended


@pytest.mark.anyio
async def test_sandboxed_commands_are_captured_and_undone_byte_for_byte(
    store: SessionStore, ws: Path
) -> None:
    from tests.sandboxing import require_sandbox

    require_sandbox()
    (ws / "data.bin").write_bytes(BINARY)
    (ws / "gone.txt").write_text("delete me\n")
    (ws / "sub").mkdir()
    (ws / "sub" / "same.txt").write_text("untouched\n")
    command = "printf 'X' > data.bin && rm gone.txt && head -c 3000 /dev/urandom > new.bin"
    rt = runtime(ws, [call("run_shell", command=command), "ran"])
    await talk(rt, "mangle")
    assert (ws / "data.bin").read_bytes() == b"X" and not (ws / "gone.txt").exists()
    plan = plan_rewind(rt, 1)
    assert "ran in the sandbox" in plan.describe()
    assert sorted((s.shown, s.action) for s in plan.files) == [
        ("data.bin", "restore"), ("gone.txt", "restore"), ("new.bin", "delete")]
    apply_rewind(rt, plan, "files")
    assert (ws / "data.bin").read_bytes() == BINARY
    assert (ws / "gone.txt").read_text() == "delete me\n"
    assert not (ws / "new.bin").exists()
    assert (ws / "sub" / "same.txt").read_text() == "untouched\n"


@pytest.mark.anyio
async def test_a_command_that_widens_gitignore_still_has_its_overwrites_captured(
    store: SessionStore, ws: Path
) -> None:
    """``echo '*' > .gitignore`` then ``echo clobbered > notes.txt``: the second command
    was "0 workspace changes" and the user's untracked notes (which git does not keep
    either) were lost (tester's H18). A file scanned once stays scanned."""
    from tests.sandboxing import require_sandbox

    require_sandbox()
    (ws / "notes.txt").write_text("my precious notes v1\n")
    rt = runtime(ws, [call("run_shell", command="echo '*' > .gitignore"), "one",
                      call("run_shell", command="echo clobbered > notes.txt && rm -f gone.txt"), "two"])
    (ws / "gone.txt").write_text("deleted after\n")
    await talk(rt, "one")
    await talk(rt, "two")
    assert (ws / "notes.txt").read_text() == "clobbered\n" and not (ws / "gone.txt").exists()
    plan = plan_rewind(rt, 1)
    assert sorted((s.shown, s.action) for s in plan.files) == [
        (".gitignore", "delete"), ("gone.txt", "restore"), ("notes.txt", "restore")]
    apply_rewind(rt, plan, "files")
    assert (ws / "notes.txt").read_text() == "my precious notes v1\n"
    assert (ws / "gone.txt").read_text() == "deleted after\n"
    assert not (ws / ".gitignore").exists()


@pytest.mark.anyio
async def test_what_you_changed_after_a_sandboxed_command_wrote_it_is_never_destroyed(
    store: SessionStore, ws: Path
) -> None:
    """A command wrote data.txt and created created.txt; you then added lines to both,
    and re-made a file it deleted: a files rewind lost all three silently."""
    from tests.sandboxing import require_sandbox

    require_sandbox()
    (ws / "data.txt").write_text("original content\n")
    (ws / "gone.txt").write_text("old\n")
    (ws / "plain.txt").write_text("before\n")
    command = ("echo 'agent v1' > data.txt; echo 'agent new' > created.txt; rm gone.txt; "
               "echo 'agent' > plain.txt")
    rt = runtime(ws, [call("run_shell", command=command), "ran"])
    await talk(rt, "go")
    with (ws / "data.txt").open("a") as fh:
        fh.write("USER IMPORTANT EDIT\n")
    with (ws / "created.txt").open("a") as fh:
        fh.write("USER EDIT 2\n")
    (ws / "gone.txt").write_text("the user's new file\n")
    plan = plan_rewind(rt, 1)
    assert sorted((s.shown, s.action) for s in plan.files) == [
        ("created.txt", "kept"), ("data.txt", "kept"), ("gone.txt", "kept"), ("plain.txt", "restore")]
    assert plan.describe().count("changed since the agent wrote it") == 3
    apply_rewind(rt, plan, "files")
    assert (ws / "data.txt").read_text() == "agent v1\nUSER IMPORTANT EDIT\n"
    assert (ws / "created.txt").read_text() == "agent new\nUSER EDIT 2\n"
    assert (ws / "gone.txt").read_text() == "the user's new file\n"
    assert (ws / "plain.txt").read_text() == "before\n"  # untouched since: put back


@pytest.mark.anyio
async def test_no_session_keeps_checkpoints_in_a_temporary_dir(ws: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    rt = runtime(ws, [call("write_file", path="n.txt", content="x"), "ok"], record=False)
    await talk(rt, "make it")
    cp = rt.checkpoints
    assert cp is not None and cp.ephemeral
    apply_rewind(rt, plan_rewind(rt, 1), "both")
    assert not (ws / "n.txt").exists() and rt.agent.messages == []
    await rt.aclose()
    assert not cp.root.exists()
    assert not (tmp_path / "data" / "checkpoints").exists()


@pytest.mark.anyio
async def test_the_command_lists_previews_and_rewinds(store: SessionStore, ws: Path) -> None:
    rt = runtime(ws, scripted_edits())
    await three_edits(rt, ws)
    commands = default_commands()
    listing = await commands.run(rt, "/rewind")
    assert "1." in listing.text and "third: rewrite everything" in listing.text
    preview = await commands.run(rt, "/rewind 3")
    assert "restore `notes.txt`" in preview.text and "/rewind 3 both" in preview.text
    assert (ws / "notes.txt").read_text() == "three\n"
    done = await commands.run(rt, "/rewind 3 both")
    assert done.action == "rewind" and done.data.text == "third: rewrite everything"
    assert (ws / "notes.txt").read_text() == "two\n"
    bad = await commands.run(rt, "/rewind 9")
    assert bad.error and "1 to 2" in bad.text


@pytest.mark.anyio
async def test_busy_and_unknown(store: SessionStore, ws: Path) -> None:
    rt = runtime(ws, ["hi"])
    with pytest.raises(RewindError, match="no message 1"):
        plan_rewind(rt, 1)
    await talk(rt, "hello")
    plan = plan_rewind(rt, 1)
    rt.agent._reply = object()  # type: ignore[assignment]
    with pytest.raises(RewindError, match="Wait for the reply"):
        apply_rewind(rt, plan)
    rt.agent._reply = None


def test_a_damaged_log_keeps_what_it_can(tmp_path: Path) -> None:
    cp = Checkpoints(tmp_path / "cp")
    cp.begin_turn("hello", offset=0, history_len=0)
    cp.before_write(tmp_path / "x", b"old", "write_file")
    with cp.log_path.open("ab") as f:
        f.write(b'{"kind": "file", "tu')
    again = Checkpoints(tmp_path / "cp")
    assert [t.text for t in again.turns()] == ["hello"]
    assert again.problems == ["1 damaged checkpoint record(s) skipped"]
    blob = next(r for r in again.records if getattr(r, "before", None))
    assert again.blob(blob.before) == b"old"  # type: ignore[union-attr,arg-type]
    assert oct((tmp_path / "cp").stat().st_mode & 0o777) == "0o700"


async def hello_hello_compact(rt: ShellRuntime) -> None:
    await talk(rt, "hello one")
    await talk(rt, "hello two")
    result = await default_commands().run(rt, "/compact")
    assert not result.error, result.text
    assert len(rt.agent.messages) == 1 and summary_of(rt.agent.messages[0]) is not None


LONG = ", said at length for a summary to be shorter than the history" * 5
ONE = "reply one" + LONG
COMPACTED = [ONE, "reply two" + LONG, "SUMMARY: two hellos."]


@pytest.mark.anyio
@pytest.mark.parametrize("record", [True, False], ids=["saved", "no-session"])
async def test_rewind_to_a_message_a_compaction_summarised_says_what_it_does(
    store: SessionStore, ws: Path, record: bool
) -> None:
    """Issue 19: after hello one, hello two, /compact, `/rewind 2` said "nothing to
    remove" yet `/rewind 2 conversation` brought the pre-compaction messages back.
    Going back to before a summarised message restores the history as it was before
    the compaction, up to that message, and the preview says exactly that."""
    rt = runtime(ws, COMPACTED, record=record)
    await hello_hello_compact(rt)
    commands = default_commands()
    preview = " ".join((await commands.run(rt, "/rewind 2")).text.split())
    assert "nothing to remove" not in preview
    assert ("this message was summarised by a compaction, so the conversation goes back to how it was "
            "before the compaction, up to this message: the 2 message(s) before it that the summary had "
            "replaced come back in full (1 reply), and the 1 message(s) there now are removed, the summary "
            "among them (0 replies)") in preview
    done = await commands.run(rt, "/rewind 2 conversation")
    assert not done.error and done.data.text == "hello two"
    assert "as it was before the compaction" in done.text
    assert [m.text for m in rt.agent.messages] == ["hello one", ONE]


@pytest.mark.anyio
async def test_rewind_to_the_first_summarised_message_says_it_starts_empty(
    store: SessionStore, ws: Path
) -> None:
    rt = runtime(ws, COMPACTED)
    await hello_hello_compact(rt)
    plan = plan_rewind(rt, 1)
    said = "this message was summarised by a compaction; the conversation starts empty again"
    assert said in plan.describe()
    apply_rewind(rt, plan, "conversation")
    assert rt.agent.messages == []


@pytest.mark.anyio
async def test_after_a_resume_the_compacted_rewind_reads_the_session_file(
    store: SessionStore, ws: Path
) -> None:
    rt = runtime(ws, COMPACTED)
    await hello_hello_compact(rt)
    session = rt.session_recorder
    assert session is not None
    session.close()
    again = runtime(ws, [])
    again.resume(session.session_id)
    assert len(again.agent.messages) == 1  # the summary
    plan = plan_rewind(again, 2)
    assert plan.summarised and [m.text for m in plan.brought_back] == ["hello one", ONE]
    assert "come back in full (1 reply)" in plan.describe()
    apply_rewind(again, plan, "conversation")
    assert [m.text for m in again.agent.messages] == ["hello one", ONE]



@pytest.mark.anyio
async def test_a_file_the_user_edited_since_the_agent_wrote_it_is_never_destroyed(
    store: SessionStore, ws: Path
) -> None:
    (ws / "hello.py").write_text('print("hello")\n')
    rt = runtime(ws, [
        call("write_file", path="notes.txt", content="hello\n"),
        call("edit_file", path="hello.py", old_string="hello", new_string="bye"),
        call("write_file", path="plain.txt", content="agent only\n"), "done",
    ])
    await talk(rt, "write notes, edit hello, write plain")
    with (ws / "notes.txt").open("a") as fh:
        fh.write("USER EDIT important\n")
    with (ws / "hello.py").open("a") as fh:
        fh.write("# my own important work\n")

    plan = plan_rewind(rt, turns(rt)[0].number)
    actions = {s.shown: s.action for s in plan.files}
    assert actions == {"hello.py": "kept", "notes.txt": "kept", "plain.txt": "delete"}
    shown = " ".join(plan.describe().split())
    assert "`notes.txt` **changed since the agent wrote it**" in shown
    assert "`hello.py` **changed since the agent wrote it**" in shown
    outcome = apply_rewind(rt, plan, "files")
    assert (ws / "notes.txt").read_text() == "hello\nUSER EDIT important\n"
    assert (ws / "hello.py").read_text() == 'print("bye")\n# my own important work\n'
    assert not (ws / "plain.txt").exists()  # untouched since the agent: undone as before
    assert "changed since the agent wrote them: `hello.py`, `notes.txt`" in outcome.describe()


@pytest.mark.anyio
async def test_what_the_agent_left_is_known_after_a_resume(store: SessionStore, ws: Path) -> None:
    rt = runtime(ws, [call("write_file", path="notes.txt", content="hello\n"), "ok"])
    await talk(rt, "write notes")
    session = rt.session_recorder
    assert session is not None
    session.close()
    (ws / "notes.txt").write_text("hello\nmine\n")
    again = runtime(ws, ["fine"])
    again.resume(session.session_id)
    outcome = apply_rewind(again, plan_rewind(again, turns(again)[0].number), "both")
    assert (ws / "notes.txt").read_text() == "hello\nmine\n"
    assert outcome.kept == ("notes.txt",)


@pytest.mark.anyio
async def test_a_commands_renames_and_symlinks_are_undone_by_a_rewind_of_files(
    store: SessionStore, ws: Path
) -> None:
    """``mv sub sub_old && ln -s ~/target sub``: a rewind of files left ``sub`` a
    symlink out of the workspace and the user's files in ``sub_old/`` (tester finding
    K17). Now the plan lists both and the rewind undoes them."""
    from tests.sandboxing import require_sandbox

    require_sandbox()
    (ws / "sub").mkdir()
    (ws / "sub" / "victim.txt").write_text("mine\n")
    (ws / "plain.txt").write_text("x\n")
    command = "mv sub sub_old && ln -s /etc sub && ln -s ../etc/hostname plain-link"
    rt = runtime(ws, [call("run_shell", command=command), "ran"])
    await talk(rt, "go")
    assert (ws / "sub").is_symlink()
    said = plan_rewind(rt, 1).describe()
    assert "workspace change(s)" not in said and "what it changed in files is included above" in said
    assert "remove the symlink `sub` a command made (to `/etc`)" in said
    assert "rename `sub_old` back to `sub` (a command renamed it)" in said
    assert "remove the symlink `plain-link` a command made (to `../etc/hostname`)" in said
    assert "**Not undone**" not in said
    outcome = apply_rewind(rt, plan_rewind(rt, 1), "files")
    assert not (ws / "sub").is_symlink() and (ws / "sub" / "victim.txt").read_text() == "mine\n"
    assert not (ws / "sub_old").exists() and not (ws / "plain-link").is_symlink()
    assert "renamed `sub_old` back to `sub`" in outcome.describe() and not outcome.failed


@pytest.mark.anyio
async def test_a_rewind_does_not_undo_a_rename_or_link_changed_since(store: SessionStore, ws: Path) -> None:
    """A symlink pointed elsewhere since (by the user), and so the folder cannot go
    back under its name: both refused, said, and left; the user's file is not removed."""
    from tests.sandboxing import require_sandbox

    require_sandbox()
    (ws / "sub").mkdir()
    (ws / "sub" / "victim.txt").write_text("mine\n")
    rt = runtime(ws, [call("run_shell", command="mv sub sub_old && ln -s /etc sub"), "ran"])
    await talk(rt, "go")
    (ws / "sub").unlink()
    (ws / "sub").symlink_to("/usr")
    said = plan_rewind(rt, 1).describe()
    assert "it leads to `/usr` now, not where the command pointed it" in said
    assert "`sub` stands there now" in said
    outcome = apply_rewind(rt, plan_rewind(rt, 1), "files")
    assert os.readlink(ws / "sub") == "/usr"
    assert (ws / "sub_old" / "victim.txt").read_text() == "mine\n"
    assert len(outcome.failed) >= 2


@pytest.mark.anyio
async def test_after_a_rewind_the_preview_numbers_a_message_as_the_list_does(
    store: SessionStore, ws: Path
) -> None:
    """Finding Y6: after an earlier rewind the list said "2.", the preview "message 4"
    (its count in the session, rewound messages included) and the question "message 2"."""
    rt = runtime(ws, ["a", "b", "c", "d", "e"])
    for text in ("one", "two", "three"):
        await talk(rt, text)
    commands = default_commands()
    await commands.run(rt, "/rewind 2 conversation")  # back to before "two": one message left
    await talk(rt, "four")
    rows = turns(rt)
    assert [r.text for r in rows] == ["one", "four"]
    preview = await commands.run(rt, "/rewind 2")
    assert "**Rewind to before message 2**" in preview.text, preview.text
