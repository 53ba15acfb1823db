"""Finding sessions: the full-text index (kept current, rebuilt when damaged, never holding
a redacted secret), titles (the model's or /rename), and forks that leave the original alone."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from shell.commands import default_commands
from shell.config import Settings
from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock
from shell.core.secrets import Secrets
from shell.providers.scripted import ScriptedModel
from shell.rewind import apply_rewind, plan_rewind, turns
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionRecorder, SessionStore, load_session
from shell.sessions.search import SearchIndex, fts_query

from .util import header, write

SECRET = "sk-ant-api03-" + "Q" * 40
VALUE = "hunter2-but-longer-and-secret"


def runtime(ws: Path, turns: list[Any], **options: Any) -> ShellRuntime:
    opts = RuntimeOptions(cwd=str(ws), permission_mode="bypass", **options)
    return ShellRuntime.create(opts, settings=Settings(path=ws / "none.toml"), model=ScriptedModel(turns))


async def talk(rt: ShellRuntime, text: str) -> None:
    async for _ in rt.reply(text):
        pass


def session_file(store: SessionStore, session_id: str, lines: list[dict[str, Any]], cwd: str = "/w") -> Path:
    path = store.ensure() / f"{session_id}.jsonl"
    write(path, [header(session_id, cwd=cwd), *(json.dumps(x) + "\n" for x in lines)])
    return path


def said(role: str, text: str) -> dict[str, Any]:
    return {"kind": "message", "message": {"role": role, "content": text}}


def test_a_word_said_fifty_sessions_ago_is_found(store: SessionStore, tmp_path: Path) -> None:
    for n in range(60):
        word = "zanzibar" if n == 9 else f"topic{n}"
        session_file(store, f"2026010{n // 10}-0000{n % 10:02d}-{n:06x}", [
            said("user", f"tell me about {word} please"),
            said("assistant", f"Here is what I know of {word}."),
        ])
    index = SearchIndex(store, tmp_path / "i.sqlite")
    hits = index.search("zanzibar")
    assert [h.session_id for h in hits] == ["20260100-000009-000009"]
    assert "[zanzibar]" in hits[0].snippet
    assert hits[0].title == "tell me about zanzibar please"
    assert index.search("zanzi")  # the last word may be the start of one
    assert index.search("topic5 please")[0].session_id.endswith("000005")
    assert index.search("nothing-like-this") == []
    assert index.refresh() == 0  # nothing new: nothing read


def test_a_hit_in_a_huge_word_shows_a_short_passage(store: SessionStore, tmp_path: Path) -> None:
    # The index's snippet counts words: one word of 200,000 characters was a hit line
    # of 20,000 printed whole.
    blob = "needle" + "y" * 200_000
    session_file(store, "20260101-000000-000001", [said("user", "hello " + blob)])
    [hit] = SearchIndex(store, tmp_path / "i.sqlite").search("needl")
    assert len(hit.snippet) <= 250 and len(hit.title) <= 120


def test_the_index_keeps_up_with_sessions_being_written(store: SessionStore, tmp_path: Path) -> None:
    path = session_file(store, "s1", [said("user", "first words")])
    index = SearchIndex(store, tmp_path / "i.sqlite")
    assert index.search("first")
    with path.open("a") as f:
        f.write(json.dumps(said("assistant", "later: quetzalcoatl")) + "\n")
        f.write('{"kind":"message","message":{"role":"user","content":"half a li')  # being written
    assert [h.session_id for h in index.search("quetzalcoatl")] == ["s1"]
    assert not index.search("half")
    with path.open("a") as f:
        f.write('ne"}}\n')
    assert index.search("half")
    path.unlink()
    assert index.search("quetzalcoatl") == []  # a session gone is gone from the index


def test_a_history_rewrite_is_not_indexed_twice(store: SessionStore, tmp_path: Path) -> None:
    session_file(store, "s1", [said("user", "alpha"), {"kind": "history", "messages": [
        {"role": "user", "content": "alpha"}, {"role": "assistant", "content": "summary beta"}]}])
    index = SearchIndex(store, tmp_path / "i.sqlite")
    assert len(index.search("alpha")) == 1
    db = sqlite3.connect(tmp_path / "i.sqlite")
    assert db.execute("SELECT count(*) FROM chunks").fetchone() == (2,)


def test_a_redacted_secret_is_never_stored_nor_returned(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", VALUE)
    # As an older version might have written it: the secrets in clear.
    session_file(store, "old", [said("user", f"my key is {SECRET} and the token {VALUE} okapi"),
                                said("assistant", "noted okapi")])
    index = SearchIndex(store, tmp_path / "i.sqlite", redactor=Secrets.from_environment())
    hits = index.search("okapi")
    assert hits and all(SECRET not in h.snippet and VALUE not in h.snippet for h in hits)
    assert index.search(SECRET) == [] and index.search(VALUE) == []
    assert index.search("QQQQQQQQQQ") == []
    index.close()
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("i.sqlite*"))
    assert SECRET.encode() not in stored and VALUE.encode() not in stored
    assert b"QQQQQQQQQQQQ" not in stored


@pytest.mark.anyio
async def test_a_secret_typed_in_the_shell_is_not_found(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", VALUE)
    rt = runtime(tmp_path, ["ok, saved"])
    await talk(rt, f"remember {SECRET} for the marmoset")
    hits = rt.search_index.search("marmoset")
    assert hits and SECRET not in hits[0].snippet and "REDACTED" in hits[0].snippet
    assert rt.search_index.search(SECRET[:20]) == []


def test_a_damaged_index_is_rebuilt(store: SessionStore, tmp_path: Path) -> None:
    session_file(store, "s1", [said("user", "the wombat")])
    (tmp_path / "i.sqlite").write_bytes(b"this is not a database" * 100)
    index = SearchIndex(store, tmp_path / "i.sqlite")
    assert [h.session_id for h in index.search("wombat")] == ["s1"]
    assert index.rebuilt == 1
    assert (tmp_path / "i.sqlite").stat().st_mode & 0o777 == 0o600


def test_queries_cannot_be_fts_syntax() -> None:
    assert fts_query('NEAR(a b) OR "x" AND col:y*') == '"NEAR" "a" "b" "OR" "x" "AND" "col" "y"*'
    assert fts_query("  ...  ") == ""


def test_titles_from_the_model_and_the_user(store: SessionStore, tmp_path: Path) -> None:
    from shell.agent import Agent
    from shell.core.messages import UserMessage

    agent = Agent(ScriptedModel([]))
    agent.messages.append(UserMessage("hello"))
    recorder = SessionRecorder(store, agent, cwd=str(tmp_path))
    assert recorder.set_title("Model \x1b[31msays\nthis", "model") == "Model ␛[31msays this"
    recorder.sync()
    recorder.open()
    assert store.info(recorder.session_id).title == "Model ␛[31msays this"
    assert recorder.set_title("Mine", "user") == "Mine"
    assert recorder.set_title("Model again", "model") == ""  # never over the user's
    recorder.close()
    assert store.info(recorder.session_id).title == "Mine"
    assert load_session(recorder.path).meta["title"] == "Mine"
    index = SearchIndex(store, tmp_path / "i.sqlite")
    assert index.search("hello")[0].title == "Mine"


@pytest.mark.anyio
async def test_the_model_names_the_session_after_the_first_answer(
    store: SessionStore, tmp_path: Path
) -> None:
    rt = runtime(tmp_path, ["Paris is the capital.", '"Capital of France"\nmore words'])
    assert not rt.titles_wanted()  # never for the scripted and demo models
    await talk(rt, "what is the capital of France?")
    assert await rt.name_session() == "Capital of France"
    request = rt.agent.model.requests[-1]  # type: ignore[attr-defined]
    assert request.tools == () and "capital of France" in request.messages[0].text
    assert rt.session_recorder is not None
    assert store.info(rt.session_recorder.session_id).title == "Capital of France"
    rt.settings.extra["sessions"] = {"titles": False}
    rt.agent.model.provider = "openai"  # type: ignore[attr-defined]
    assert not rt.titles_wanted()


@pytest.mark.anyio
async def test_rename_and_search_commands(store: SessionStore, tmp_path: Path) -> None:
    rt = runtime(tmp_path, ["about capybaras"])
    commands = default_commands()
    await talk(rt, "capybara facts")
    result = await commands.run(rt, "/rename Rodent research")
    assert not result.error and "Rodent research" in result.text
    found = await commands.run(rt, "/sessions capybaras")
    assert rt.session_recorder is not None
    assert rt.session_recorder.session_id in found.text and "Rodent research" in found.text
    none = await commands.run(rt, "/sessions aardvark")
    assert "No session mentions" in none.text


@pytest.mark.anyio
async def test_fork_leaves_the_original_untouched(store: SessionStore, tmp_path: Path) -> None:
    call = AssistantMessage((TextBlock("writing"), ToolCallBlock("c1", "write_file",
                                                                 {"path": "f.txt", "content": "v2"})))
    (tmp_path / "f.txt").write_text("v1")
    rt = runtime(tmp_path, ["one", call, "two", "three in the fork", "four"])
    await talk(rt, "first")
    await talk(rt, "second")
    original = rt.session_recorder
    assert original is not None
    before = original.path.read_bytes()
    result = await default_commands().run(rt, "/fork")
    assert result.action == "fork" and not result.error
    forked = rt.session_recorder
    assert forked is not None and forked.session_id != original.session_id
    assert load_session(forked.path).meta["forked_from"] == {"id": original.session_id}
    assert load_session(forked.path).messages[0].text == "first"  # type: ignore[union-attr]
    await talk(rt, "third")
    assert original.path.read_bytes() == before  # the original is exactly as it was
    assert [m.text for m in load_session(forked.path).messages][-1] == "three in the fork"
    # The fork came with its checkpoints: a rewind there still puts the file back.
    assert [r.text for r in turns(rt)] == ["first", "second", "third"]
    apply_rewind(rt, plan_rewind(rt, turns(rt)[1].number), "both")
    assert (tmp_path / "f.txt").read_text() == "v1"
    assert original.path.read_bytes() == before


@pytest.mark.anyio
async def test_a_fork_keeps_what_the_calls_it_holds_showed(store: SessionStore, tmp_path: Path) -> None:
    """A call the user rejected, and a command whose planted .envrc was moved out, show
    so when the fork is resumed, as they do in the original (it came back as plain
    errors and without the ⚠)."""
    call = AssistantMessage((ToolCallBlock("c1", "write_file", {"path": "f.txt", "content": "v2"}),))
    rt = runtime(tmp_path, [call, "ok", "later"])
    await talk(rt, "first")
    original = rt.session_recorder
    assert original is not None
    original.outcomes["c1"] = "rejected"  # as _outcome and _call_notes record them live
    original.call_notes["c1"] = {"quarantined": [".envrc"]}
    original.outcomes["gone"] = "blocked"  # a call this history does not hold
    assert not (await default_commands().run(rt, "/fork")).error
    forked = rt.session_recorder
    assert forked is not None and forked is not original
    loaded = load_session(forked.path)
    assert loaded.outcomes == {"c1": "rejected"}
    assert loaded.call_notes == {"c1": {"quarantined": [".envrc"]}}


@pytest.mark.anyio
async def test_resuming_in_another_directory_says_where_the_tools_now_work(
    store: SessionStore, tmp_path: Path
) -> None:
    """--resume ID from project B ran the conversation's tools on B's files without a
    word; its earlier replies were about project A's."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    first = runtime(a, ["in a"])
    await talk(first, "hello")
    assert first.session_recorder is not None
    session = first.session_recorder.session_id
    first.session_recorder.close()
    here = runtime(a, [])
    here.resume(session)
    assert not any("was started in" in p for p in here.problems)
    here.session_recorder.close()  # type: ignore[union-attr]
    there = runtime(b, [])
    there.resume(session)
    [said] = [p for p in there.problems if "was started in" in p]
    assert said.startswith(f"session {session} was started in {a}; its tools now work in {b}.")


@pytest.mark.anyio
async def test_fork_from_a_message(store: SessionStore, tmp_path: Path) -> None:
    rt = runtime(tmp_path, ["one", "two", "again"])
    await talk(rt, "first")
    await talk(rt, "second")
    original = rt.session_recorder
    assert original is not None
    result = await default_commands().run(rt, "/fork 2")
    assert result.data.text == "second" and result.data.conversation
    assert "Message 2 is back in the prompt." in result.text  # said, as /rewind says it (finding T9)
    assert [m.text for m in rt.agent.messages] == ["first", "one"]
    assert load_session(original.path).messages[-1].text == "two"
    bad = await default_commands().run(rt, "/fork 7")
    assert bad.error and "no message 7" in bad.text


@pytest.mark.anyio
async def test_resume_with_fork(store: SessionStore, tmp_path: Path) -> None:
    import argparse

    from shell.cli import _resume

    rt = runtime(tmp_path, ["one"])
    await talk(rt, "first")
    assert rt.session_recorder is not None
    first = rt.session_recorder.session_id
    before = rt.session_recorder.path.read_bytes()
    rt.session_recorder.close()
    again = runtime(tmp_path, ["two"])
    _resume(again, argparse.Namespace(continue_=True, resume=None, fork=True))
    assert again.session_recorder is not None and again.session_recorder.session_id != first
    await talk(again, "more")
    again.session_recorder.close()
    assert (store.root / f"{first}.jsonl").read_bytes() == before


def words(hits: list[Any]) -> list[str]:
    return [h.snippet for h in hits]


@pytest.mark.anyio
async def test_rewound_text_leaves_the_search_and_resume_shows_the_rewound_state(
    store: SessionStore, tmp_path: Path
) -> None:
    """What the user took back (/rewind, Esc Esc) is gone from the conversation, so
    from ``/sessions`` search too: passages said from that message on are dropped;
    what stays is still found, and so is what is said afterwards."""
    rt = runtime(tmp_path, ["about axolotls", "about pangolins, quokka", "about narwhals"])
    commands = default_commands()
    await talk(rt, "tell me of axolotls")
    await talk(rt, "and pangolins")
    assert len(rt.agent.messages) == 4
    assert (await commands.run(rt, "/sessions pangolins")).text.count("pangolins") >= 1
    apply_rewind(rt, plan_rewind(rt, turns(rt)[1].number), "conversation")
    recorder = rt.session_recorder
    assert recorder is not None
    assert [r["kind"] for r in map(json.loads, recorder.path.read_text().splitlines())][-1] == "rewind"
    for gone in ("pangolins", "quokka"):
        none = await commands.run(rt, f"/sessions {gone}")
        assert "No session mentions" in none.text, none.text
    assert recorder.session_id in (await commands.run(rt, "/sessions axolotls")).text
    await talk(rt, "then narwhals")
    assert recorder.session_id in (await commands.run(rt, "/sessions narwhals")).text
    recorder.close()
    # resumed, the session is as the rewind left it (and as said after it)
    again = runtime(tmp_path, [])
    again.resume(recorder.session_id)
    assert [m.text for m in again.agent.messages] == [
        "tell me of axolotls", "about axolotls", "then narwhals", "about narwhals"]
    assert store.info(recorder.session_id).message_count == 4
    assert again.session_recorder is not None
    again.session_recorder.close()


@pytest.mark.anyio
async def test_a_rewind_to_the_first_message_takes_the_title_back_too(
    store: SessionStore, tmp_path: Path
) -> None:
    rt = runtime(tmp_path, ["noted", "fine"])
    await talk(rt, "my confidential wombat plan")
    index = SearchIndex(store, tmp_path / "i.sqlite")
    assert index.search("noted")[0].title == "my confidential wombat plan"
    apply_rewind(rt, plan_rewind(rt, turns(rt)[0].number), "conversation")
    recorder = rt.session_recorder
    assert recorder is not None
    assert store.info(recorder.session_id).title == "(no messages)"
    assert index.search("wombat") == [] and index.search("noted") == []
    await talk(rt, "a fresh start")
    recorder.close()
    assert store.info(recorder.session_id).title == "a fresh start"
    assert [h.title for h in index.search("fine")] == ["a fresh start"]


@pytest.mark.anyio
async def test_compacted_text_is_still_found_but_rewound_text_is_not(
    store: SessionStore, tmp_path: Path
) -> None:
    """A compaction summarises: the old messages are still what the user said, and
    still found. Rewinding past the compaction takes the summary and what followed
    back; the messages the rewind brings back in full stay found."""
    long = ", said at length for a summary to be shorter than the history" * 5
    replies = ["reply ocelot" + long, "reply tapir" + long, "SUMMARY: lemur digest.", "reply okapi"]
    rt = runtime(tmp_path, replies)
    commands = default_commands()
    await talk(rt, "hello ocelot")
    await talk(rt, "hello tapir")
    assert not (await commands.run(rt, "/compact")).error
    assert len(rt.agent.messages) == 1
    await talk(rt, "hello okapi")
    recorder = rt.session_recorder
    assert recorder is not None
    for word in ("ocelot", "tapir", "lemur", "okapi"):  # the summarised ones too
        assert recorder.session_id in (await commands.run(rt, f"/sessions {word}")).text, word
    # back to before "hello tapir", a message the compaction summarised
    apply_rewind(rt, plan_rewind(rt, turns(rt)[1].number), "conversation")
    assert [m.text for m in rt.agent.messages] == ["hello ocelot", "reply ocelot" + long]
    assert recorder.session_id in (await commands.run(rt, "/sessions ocelot")).text
    for word in ("tapir", "lemur", "okapi"):
        assert "No session mentions" in (await commands.run(rt, f"/sessions {word}")).text, word


def test_both_rewrites_read_back_and_an_old_history_record_still_loads(
    store: SessionStore, tmp_path: Path
) -> None:
    """Version-1 files wrote a rewind as a ``history`` record: it still loads (and,
    unable to tell it from a compaction, the index keeps its text). A ``rewind``
    record loads the same and drops what was said from its ``to`` on."""
    from shell.core.messages import UserMessage
    from shell.sessions.codec import message_to_dict

    def user(text: str) -> dict[str, Any]:
        return message_to_dict(UserMessage(text))

    def model(text: str) -> dict[str, Any]:
        return message_to_dict(AssistantMessage((TextBlock(text),)))

    talk_ = [user("first"), model("one"), user("second"), model("two")]
    kept = talk_[:2]
    old = session_file(store, "old", [{"kind": "message", "message": m} for m in talk_])
    with old.open("a") as f:
        f.write(json.dumps({"kind": "history", "messages": kept}) + "\n")
    assert [m.text for m in load_session(old).messages] == ["first", "one"]
    new = session_file(store, "new", [{"kind": "message", "message": m} for m in talk_])
    lines = new.read_bytes().split(b"\n")
    to = sum(len(line) + 1 for line in lines[:3])  # where the record of "second" begins
    with new.open("a") as f:
        f.write(json.dumps({"kind": "rewind", "to": to, "messages": kept}) + "\n")
    assert [m.text for m in load_session(new).messages] == ["first", "one"]
    assert not load_session(new).skipped_lines and not load_session(new).unknown_records
    index = SearchIndex(store, tmp_path / "i.sqlite")
    assert [h.session_id for h in index.search("second")] == ["old"]
    assert [h.session_id for h in index.search("two")] == ["old"]
    assert sorted(h.session_id for h in index.search("first")) == ["new", "old"]
    assert store.info("new").message_count == 2
