"""The line mode's prompt is up before the runtime is built (``shell.plain_start``):
what is typed at once is neither lost nor sent twice, the banner still comes first in
the scrollback, and a runtime that cannot be built is still one line and exit 2."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.core.messages import UserMessage
from shell.plain import PROMPT

Script = Callable[[list[Any]], str]


def _user_messages(cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from shell.sessions import SessionStore, load_session

    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", cli_env["AGENT_SHELL_DATA_DIR"])
    infos = SessionStore().list()
    assert len(infos) == 1, infos
    return [m.text for m in load_session(infos[0].path).messages if isinstance(m, UserMessage)]


def test_a_message_sent_the_moment_the_prompt_shows_is_sent_once_under_the_banner(
    terminal: Any, script: Script, cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    t = terminal("--plain", "--model", script(["Hi there."]), columns=200)
    t.expect(PROMPT.strip())
    t.send("hello\r")  # most likely before the runtime exists
    t.expect("Hi there.")
    t.send("/quit\r")
    assert t.close() == 0
    shown = t.text
    assert shown.index("permissions:") < shown.rindex(f"{PROMPT}hello") < shown.index("Hi there.")
    assert _user_messages(cli_env, monkeypatch) == ["hello"]


def test_words_typed_before_the_shell_is_ready_stay_in_the_prompt(
    terminal: Any, script: Script, cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    t = terminal("--plain", "--model", script(["Noted."]), columns=200)
    t.expect(PROMPT.strip())
    t.send("first half, ")
    t.expect("permissions:")  # the banner: the shell is ready now
    t.send("second half\r")
    t.expect("Noted.")
    t.send("/quit\r")
    assert t.close() == 0
    assert _user_messages(cli_env, monkeypatch) == ["first half, second half"]


def test_ctrl_d_on_the_first_prompt_leaves_at_once(terminal: Any, script: Script) -> None:
    t = terminal("--plain", "--no-session", "--model", script(["unused"]))
    t.expect(PROMPT.strip())
    t.send("\x04")
    assert t.close() == 0


def test_a_model_that_cannot_be_built_is_one_line_and_exit_2_on_a_terminal(
    terminal: Any, tmp_path: Path
) -> None:
    t = terminal("--plain", "--no-session", "--model", f"scripted:{tmp_path / 'missing.json'}", columns=200)
    assert t.close() == 2
    assert "missing.json" in t.text
    assert "Traceback" not in t.text


def _mark_sent(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Set once the first prompt has sent its message and waits for the runtime (the
    only time a Ctrl+C withdraws it): a test's ``build`` waits for it instead of
    sleeping for a time a loaded machine may outlast."""
    from shell import plain_start

    sent = threading.Event()
    real = plain_start._withdraw_on_sigint

    @contextlib.contextmanager
    def marked() -> Iterator[list[bool]]:
        with real() as withdrawn:
            sent.set()
            yield withdrawn

    monkeypatch.setattr(plain_start, "_withdraw_on_sigint", marked)
    return sent


def _until(condition: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


@pytest.mark.anyio
async def test_ctrl_c_while_the_runtime_is_still_built_withdraws_the_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enter on the first prompt, then Ctrl+C while the shell is still starting (a slow
    build under load): the message comes back to the prompt; the shell does not end."""
    import signal

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from shell.config import Settings
    from shell.plain_start import run_plain_starting

    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))

    class Shell:
        initial: str | None = None
        next_default = ""
        interrupted = False
        notes: list[str] = []

        def note(self, text: str) -> None:
            self.notes.append(text)

        def cycle_mode(self) -> None:
            raise AssertionError("no Shift+Tab was pressed")

        async def run(self) -> int:
            return 0

    shell = Shell()
    sent = _mark_sent(monkeypatch)

    def build() -> str:  # still building when Ctrl+C comes, however slow the machine
        assert sent.wait(30), "Enter on the first prompt never sent the message"
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)  # as a terminal's Ctrl+C
        _until(lambda: signal.getsignal(signal.SIGINT) is signal.default_int_handler)  # it was handled
        return "runtime"

    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("hello\r")
        settings = Settings(path=tmp_path / "c.toml")
        code = await run_plain_starting(build, lambda runtime, history: shell, settings)
    assert code == 0
    assert shell.initial is None and shell.next_default == "hello"
    assert any("not sent" in n for n in shell.notes)


@pytest.mark.anyio
async def test_shift_tab_on_the_first_prompt_changes_the_mode_once_the_shell_is_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The permission modes come with the policy, which the first prompt does not have
    yet: each Shift+Tab pressed there is applied at the hand-over (it was ignored)."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from shell.config import Settings
    from shell.plain_start import run_plain_starting

    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))

    class Shell:
        initial: str | None = None
        next_default = ""
        interrupted = False
        cycled = 0

        def note(self, text: str) -> None:
            pass

        def cycle_mode(self) -> None:
            self.cycled += 1

        async def run(self) -> int:
            return 0

    shell = Shell()

    sent = _mark_sent(monkeypatch)

    def build() -> str:  # the keys are read before the runtime is ready, however slow the machine
        assert sent.wait(30), "Enter on the first prompt never sent the message"
        return "runtime"

    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("\x1b[Z\x1b[Zhello\r")  # Shift+Tab twice, then a message
        settings = Settings(path=tmp_path / "c.toml")
        code = await run_plain_starting(build, lambda runtime, history: shell, settings)
    assert code == 0
    assert shell.cycled == 2 and shell.initial == "hello"
