"""Listing, lookup by id or prefix, and the lock that keeps two shells off one file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from shell.agent import Agent
from shell.providers.scripted import ScriptedModel
from shell.sessions import (
    SessionError,
    SessionLocked,
    SessionNotFound,
    SessionRecorder,
    SessionStore,
    data_dir,
)
from shell.sessions.redact import NO_REDACTION

from .util import header, msg, write


def make(store: SessionStore, session_id: str, cwd: str, first: str, mtime: float) -> Path:
    from shell.core.messages import AssistantMessage, TextBlock, UserMessage

    path = write(store.path(session_id), [
        header(session_id, cwd=cwd), msg(UserMessage(first + "\n  with   spaces")),
        msg(AssistantMessage((TextBlock("ok"),))), {"kind": "reply_end", "stop_reason": "end_turn"},
    ])
    os.utime(path, (mtime, mtime))
    return path


def test_the_data_dir_comes_from_the_environment(store: SessionStore, tmp_path: Path) -> None:
    assert data_dir() == tmp_path / "data"
    assert store.root == tmp_path / "data" / "sessions"


def test_list_is_newest_first_with_titles_and_counts(store: SessionStore, tmp_path: Path) -> None:
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    make(store, "20260101-000000-aaaaaa", a, "first question", 1000)
    make(store, "20260102-000000-bbbbbb", b, "second question", 3000)
    make(store, "20260103-000000-cccccc", a, "third question", 2000)
    (store.root / "notes.txt").write_text("not a session")
    infos = store.list()
    assert [i.id for i in infos] == [
        "20260102-000000-bbbbbb", "20260103-000000-cccccc", "20260101-000000-aaaaaa"
    ]
    assert infos[0].title == "second question with spaces" and infos[0].message_count == 2
    assert infos[0].cwd == b and infos[0].updated == 3000
    assert [i.id for i in store.list(cwd=a)] == ["20260103-000000-cccccc", "20260101-000000-aaaaaa"]
    latest = store.latest(a)
    assert latest is not None and latest.id == "20260103-000000-cccccc"
    assert store.latest(str(tmp_path / "elsewhere")) is None


def test_get_by_id_prefix_or_suffix(store: SessionStore) -> None:
    make(store, "20260101-000000-aaaaaa", "/x", "q", 1)
    make(store, "20260101-000001-bbbbbb", "/x", "q", 2)
    assert store.get("20260101-000000-aaaaaa").id == "20260101-000000-aaaaaa"
    assert store.get("20260101-000001").id == "20260101-000001-bbbbbb"
    assert store.get("bbbbbb").id == "20260101-000001-bbbbbb"
    with pytest.raises(SessionError, match="matches 2 sessions"):
        store.get("20260101")
    with pytest.raises(SessionNotFound, match="no session matches"):
        store.get("zzz")
    with pytest.raises(SessionError):
        store.path("../escape")


def test_an_empty_store_lists_nothing(store: SessionStore) -> None:
    assert store.list() == [] and store.latest() is None


HOLDER = textwrap.dedent("""
    import sys, time
    from shell.sessions.store import SessionStore
    lock = SessionStore(sys.argv[1]).lock(sys.argv[2])
    lock.acquire()
    print("locked", flush=True)
    time.sleep(60)
""")


def hold(store: SessionStore, session_id: str) -> subprocess.Popen[str]:
    store.ensure()
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(store.root), session_id],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2],
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_a_session_open_in_another_process_is_refused_with_its_pid(store: SessionStore) -> None:
    proc = hold(store, "shared")
    try:
        agent = Agent(ScriptedModel(["a"]))
        rec = SessionRecorder(store, agent, session_id="shared", redactor=NO_REDACTION)
        with pytest.raises(SessionLocked) as info:
            rec.open()
        assert info.value.pid == proc.pid
        assert f"process {proc.pid}" in str(info.value) and "shared" in str(info.value)
        assert not rec.path.exists()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    # the kernel dropped the lock with the process: the session opens now
    with SessionRecorder(store, Agent(ScriptedModel(["a"])), session_id="shared") as rec:
        rec.open()
        assert rec.started


def test_the_lock_is_released_on_close(store: SessionStore) -> None:
    agent = Agent(ScriptedModel(["a"]))
    first = SessionRecorder(store, agent, session_id="s", redactor=NO_REDACTION).open()
    second = SessionRecorder(store, agent, session_id="s", redactor=NO_REDACTION)
    with pytest.raises(SessionLocked, match=f"process {os.getpid()}"):
        second.open()
    first.close()
    second.open().close()


def test_two_processes_racing_for_one_session_get_one_winner(store: SessionStore) -> None:
    store.ensure()
    script = textwrap.dedent("""
        import sys, time
        from shell.sessions.store import SessionStore, SessionLocked
        lock = SessionStore(sys.argv[1]).lock("race")
        try:
            lock.acquire()
        except SessionLocked as exc:
            print("refused", exc.pid, flush=True)
        else:
            print("won", flush=True)
            time.sleep(1.0)
    """)
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(store.root)], stdout=subprocess.PIPE, text=True,
                         cwd=Path(__file__).parents[2])
        for _ in range(4)
    ]
    deadline = time.monotonic() + 30
    outs = [p.communicate(timeout=max(1.0, deadline - time.monotonic()))[0].split() for p in procs]
    assert sum(o[0] == "won" for o in outs) >= 1
    winners = {p.pid for p, o in zip(procs, outs, strict=True) if o[0] == "won"}
    for o in outs:
        if o[0] == "refused" and o[1] != "None":  # None: it met the lock before the winner wrote its pid
            assert int(o[1]) in winners
