"""Damaged files load what is readable and say what was skipped; cut-off replies come back valid."""

from __future__ import annotations

import json
from pathlib import Path

from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage, UserMessage
from shell.sessions import INTERRUPTED_RESULT, load_session, repair_history
from tests.helpers import history_is_valid

from .util import header, msg, write

U1, A1 = UserMessage("one"), AssistantMessage((TextBlock("first answer"),))
U2, A2 = UserMessage("two"), AssistantMessage((TextBlock("second answer"),))
END = {"kind": "reply_end", "reply_id": "r", "stop_reason": "end_turn"}


def clean(path: Path) -> Path:
    return write(path, [header(), msg(U1), msg(A1), END, msg(U2), msg(A2), END])


def test_a_clean_file_loads_without_problems(tmp_path: Path) -> None:
    loaded = load_session(clean(tmp_path / "s.jsonl"))
    assert loaded.messages == [U1, A1, U2, A2]
    assert loaded.problems == [] and not loaded.interrupted
    assert loaded.meta["id"] == "s1" and loaded.session_id == "s1"


def test_a_torn_last_line_is_skipped_and_reported(tmp_path: Path) -> None:
    path = clean(tmp_path / "s.jsonl")
    path.write_bytes(path.read_bytes() + b'{"kind":"message","message":{"role":"user","cont')
    loaded = load_session(path)
    assert loaded.messages == [U1, A1, U2, A2]
    assert loaded.skipped_lines == 1
    assert any("torn" in p for p in loaded.problems)


def test_garbage_in_the_middle_costs_only_its_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        header(), msg(U1), b"\x00\xff\xfe garbage \x80\n", "[1, 2, 3]\n", '{"no kind": 1}\n',
        msg(A1), END, "{not json\n", msg(U2), msg(A2), END,
    ])
    loaded = load_session(path)
    assert loaded.messages == [U1, A1, U2, A2]
    assert loaded.skipped_lines == 4
    assert len(loaded.problems) == 4 and any("line 3" in p for p in loaded.problems)
    assert not loaded.interrupted


def test_a_newer_version_s_fields_and_records_are_ignored_and_counted(tmp_path: Path) -> None:
    newer_user = msg(U1) | {"sentiment": "happy"}
    newer_user["message"]["lang"] = "en"
    path = write(tmp_path / "s.jsonl", [
        header(version=7, encryption=None), newer_user,
        {"kind": "telemetry", "x": 1}, {"kind": "telemetry", "x": 2}, {"kind": "branch", "from": 3},
        msg(A1), END,
    ])
    loaded = load_session(path)
    assert loaded.messages == [U1, A1]
    assert loaded.unknown_records == 3
    text = "\n".join(loaded.problems)
    assert "newer" in text and "'telemetry'" in text and "2 record" in text and "'branch'" in text


def test_a_bad_record_of_a_known_kind_is_skipped(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        header(), msg(U1), {"kind": "message", "message": {"role": "alien"}},
        {"kind": "state", "state": [1]}, msg(A1), END,
    ])
    loaded = load_session(path)
    assert loaded.messages == [U1, A1]
    assert loaded.skipped_lines == 2 and "alien" in loaded.problems[0]


def test_a_missing_header_is_reported_and_the_file_name_gives_the_id(tmp_path: Path) -> None:
    loaded = load_session(write(tmp_path / "abc.jsonl", [msg(U1), msg(A1), END]))
    assert loaded.messages == [U1, A1]
    assert loaded.session_id == "abc" and "header" in loaded.problems[0]


def test_a_checkpoint_without_its_message_comes_back_as_interrupted_text(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        header(), msg(U1), msg(A1), END, msg(U2),
        {"kind": "checkpoint", "reply_id": "r2", "content": [{"type": "text", "text": "sec"}]},
        {"kind": "checkpoint", "reply_id": "r2", "content": [{"type": "thinking", "text": "t"},
                                                            {"type": "text", "text": "second ans"}]},
    ])
    loaded = load_session(path)
    assert loaded.interrupted
    last = loaded.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "interrupted"
    assert last.text == "second ans"
    assert loaded.messages[:-1] == [U1, A1, U2]
    assert loaded.stored == (U1, A1, U2)


def test_a_checkpoint_followed_by_its_message_is_dropped(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        header(), msg(U1), {"kind": "checkpoint", "content": [{"type": "text", "text": "fir"}]}, msg(A1),
    ])
    loaded = load_session(path)
    assert loaded.messages == [U1, A1]
    assert loaded.interrupted  # no reply_end: the reply did not finish
    assert history_is_valid(loaded.messages)


def test_tool_calls_without_results_get_interrupted_error_results(tmp_path: Path) -> None:
    calls = AssistantMessage(
        (TextBlock("running"), ToolCallBlock("c1", "a", {}), ToolCallBlock("c2", "b", {}))
    )
    done = ToolResultMessage("c1", "a", "ok")
    loaded = load_session(write(tmp_path / "s.jsonl", [header(), msg(U1), msg(calls), msg(done)]))
    assert loaded.interrupted
    assert loaded.messages[:3] == [U1, calls, done]
    assert loaded.messages[3] == ToolResultMessage("c2", "b", INTERRUPTED_RESULT, is_error=True)
    assert history_is_valid(loaded.messages)


def test_results_that_finished_before_the_crash_are_kept(tmp_path: Path) -> None:
    calls = AssistantMessage((ToolCallBlock("c1", "a", {}), ToolCallBlock("c2", "b", {})))
    finished = ToolResultMessage("c2", "b", "long output", is_error=False)
    loaded = load_session(write(tmp_path / "s.jsonl", [
        header(), msg(U1), msg(calls), {"kind": "tool_result", "message": msg(finished)["message"]},
    ]))
    assert loaded.messages[2:] == [ToolResultMessage("c1", "a", INTERRUPTED_RESULT, is_error=True), finished]
    assert history_is_valid(loaded.messages) and loaded.interrupted
    assert any("kept" in p for p in loaded.problems)


def test_repair_drops_stray_results_and_keeps_objects() -> None:
    calls = AssistantMessage((ToolCallBlock("c1", "a", {}),))
    stray = ToolResultMessage("zz", "ghost", "?")
    dup = ToolResultMessage("c1", "a", "again")
    fixed, notes = repair_history([U1, stray, calls, ToolResultMessage("c1", "a", "ok"), dup, U2])
    assert history_is_valid(fixed)
    assert fixed[0] is U1 and fixed[-1] is U2 and len(fixed) == 4
    assert len(notes) == 2


def test_a_history_record_replaces_the_messages(tmp_path: Path) -> None:
    summary = UserMessage("summary of before")
    path = write(tmp_path / "s.jsonl", [
        header(), msg(U1), msg(A1), END,
        {"kind": "history", "messages": [json.loads(json.dumps(msg(summary)))["message"]]},
        msg(U2), msg(A2), END,
    ])
    assert load_session(path).messages == [summary, U2, A2]


def test_the_last_state_record_wins(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        header(), {"kind": "state", "state": {"HITL": {"always": ["a"]}}}, msg(U1), msg(A1),
        {"kind": "state", "state": {"HITL": {"always": ["a", "b"]}, "bad": 3}}, END,
    ])
    assert load_session(path).session_state == {"HITL": {"always": ["a", "b"]}}


def test_an_interrupted_marker_closes_the_cut_off_reply(tmp_path: Path) -> None:
    partial = AssistantMessage((TextBlock("par"),), stop_reason="interrupted")
    path = write(tmp_path / "s.jsonl", [
        header(), msg(U1), {"kind": "checkpoint", "content": [{"type": "text", "text": "par"}]},
        msg(partial), {"kind": "interrupted", "reason": "x"},
    ])
    loaded = load_session(path)
    assert loaded.messages == [U1, partial] and not loaded.interrupted
