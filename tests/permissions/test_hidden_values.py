"""The values of hidden secret files, redacted from what a command prints: exact
values and their URL-encoded forms, not those of a file the call was shown, whole
across the pipe's reads, each file read again only when it changed."""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path

import pytest

from shell.permissions import hiddenvalues
from shell.permissions.hiddenvalues import HOLD, StreamRedaction, file_values, hidden_values, redacted_note

KEY = "sk-proj-Hv0123456789abcdefXYZ"
PASSWORD = "p@ss w/rd:0123-é"


@pytest.fixture
def env(tmp_path: Path) -> Path:
    path = tmp_path / ".env"
    path.write_text(f"OPENAI_API_KEY={KEY}\nDB_PASSWORD='{PASSWORD}'\nNODE_ENV=production\n")
    return path


def test_values_and_their_url_encoded_forms_are_redacted(env: Path) -> None:
    values = hidden_values([env], name=lambda p: p.name)
    text = (f"+OPENAI_API_KEY={KEY}\nurl: https://x/?pw={urllib.parse.quote(PASSWORD, safe='')}\n"
            f"form: a={urllib.parse.quote_plus(PASSWORD)}\nNODE_ENV=production\n")
    out, found = values.redact(text)
    assert KEY not in out and urllib.parse.quote(PASSWORD, safe="") not in out
    assert urllib.parse.quote_plus(PASSWORD) not in out
    assert "NODE_ENV=production" in out  # ordinary text stays
    assert found == {KEY: ".env", PASSWORD: ".env"}  # two values, however often or spelled
    assert redacted_note(found) == ("[agent-shell: 2 values of hidden secret files (.env) were redacted "
                                    "from this output]")


def test_output_without_a_value_is_the_same_text(env: Path) -> None:
    values = hidden_values([env])
    text = "NODE_ENV=production\nall tests passed\n"
    out, found = values.redact(text)
    assert out is text and found == {}
    assert redacted_note(found) == ""


def test_a_file_the_call_was_shown_keeps_its_values_even_where_another_holds_them(
    env: Path, tmp_path: Path
) -> None:
    local = tmp_path / ".env.local"
    local.write_text(f"OPENAI_API_KEY={KEY}\nOTHER_TOKEN=other-0123456789abcdef\n")
    values = hidden_values([local], shown=[env], name=lambda p: p.name)
    out, found = values.redact(f"{KEY} other-0123456789abcdef")
    assert out == f"{KEY} [REDACTED]"
    assert found == {"other-0123456789abcdef": ".env.local"}


def test_a_value_cut_between_two_reads_of_the_pipe_is_still_found(env: Path) -> None:
    stream = StreamRedaction(hidden_values([env], name=lambda p: p.name))
    shown = [stream.feed("before\n+OPENAI_API_KEY=sk-proj-Hv01"), stream.feed("23456789abcdefXYZ\nafter"),
             stream.flush()]
    assert "".join(shown) == "before\n+OPENAI_API_KEY=[REDACTED]\nafter"
    assert shown[0] == "before\n"  # the line's start waits for its end
    assert stream.note().startswith("[agent-shell: 1 value of hidden secret files (.env) was redacted")


def test_a_long_line_is_cut_before_a_value_not_through_it(env: Path) -> None:
    stream = StreamRedaction(hidden_values([env]))
    first = "x" * (HOLD - 10) + KEY[:15]
    shown = stream.feed(first)
    assert shown and not shown.endswith(KEY[:1]) and KEY[:15] not in shown
    rest = stream.feed(KEY[15:] + "y" * 10) + stream.flush()
    assert KEY not in shown + rest and (shown + rest).count("[REDACTED]") == 1
    assert len(shown + rest) == HOLD - 10 + len("[REDACTED]") + 10


def test_no_values_passes_the_stream_through() -> None:
    stream = StreamRedaction(hidden_values([]))
    assert stream.feed("partial line") == "partial line"
    assert stream.flush() == "" and stream.note() == ""


def test_a_file_is_read_again_only_when_it_changed(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    real_read = hiddenvalues._read
    monkeypatch.setattr(hiddenvalues, "_read", lambda p: reads.append(p) or real_read(p))
    assert KEY in file_values(env) and KEY in file_values(env)
    assert len(reads) == 1
    env.write_text("OPENAI_API_KEY=sk-proj-changed-0123456789\n")
    assert file_values(env) == ("sk-proj-changed-0123456789",)
    assert len(reads) == 2


def test_what_is_not_a_regular_file_gives_nothing(tmp_path: Path) -> None:
    fifo = tmp_path / ".env.fifo"
    os.mkfifo(fifo)
    assert file_values(fifo) == ()  # not opened: nothing writes to it, it would wait forever
    assert file_values(tmp_path / "missing.env") == ()


def test_a_secret_file_a_command_just_wrote_does_not_push_the_users_values_out_of_the_net(
    tmp_path: Path,
) -> None:
    """Finding C14: the spelled net looks for a bounded number of values, the first given;
    a 300-value file the model wrote (sorting first by name) took every place, and the
    user's own key, printed reversed, passed. The oldest files' values come first (by
    ctime, which no command can set back)."""
    env = tmp_path / "work" / ".env"
    env.parent.mkdir()
    key = "Yt83hdPq2LmXz7RtQ9wE"
    env.write_text(f"TOKEN={key}\n")
    pad = env.parent / "0pad.env"
    pad.write_text("".join(f"K{i}=P{i:03d}x7Qm2Lr9Vz4Tb8Nc\n" for i in range(300)))
    hour_ago = os.stat(env).st_mtime - 3600
    os.utime(pad, (hour_ago, hour_ago))  # an mtime set back does not move it before the user's
    net = hidden_values([pad, env])
    out, found = net.redact(f"token reversed: {key[::-1]}\n")
    assert key[::-1] not in out and found, out
