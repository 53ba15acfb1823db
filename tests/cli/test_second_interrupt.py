"""A second Ctrl+C quits at once. It lands wherever the process is, often inside a task
group (the session writer's fsync): anyio then raises it wrapped in an exception group,
and the user saw a traceback and exit code 1 instead of "interrupted" and 130 (V18)."""

from __future__ import annotations

import argparse

import pytest

from shell import cli
from shell.frontend.exits import EXIT_INTERRUPTED


def _raising(error: BaseException) -> object:
    def dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
        raise error

    return dispatch


@pytest.mark.parametrize("error", [
    KeyboardInterrupt(),
    BaseExceptionGroup("task group", [KeyboardInterrupt()]),
    BaseExceptionGroup("outer", [BaseExceptionGroup("inner", [KeyboardInterrupt()]), KeyboardInterrupt()]),
])
def test_ctrl_c_however_it_is_wrapped_exits_130_saying_interrupted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], error: BaseException
) -> None:
    monkeypatch.setattr(cli, "_dispatch", _raising(error))
    assert cli.main(["-p", "hello"]) == EXIT_INTERRUPTED
    captured = capsys.readouterr()
    assert captured.err.strip() == "interrupted"
    assert "Traceback" not in captured.err


def test_a_real_error_beside_the_interrupt_is_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    group = BaseExceptionGroup("task group", [KeyboardInterrupt(), RuntimeError("a bug")])
    monkeypatch.setattr(cli, "_dispatch", _raising(group))
    with pytest.raises(BaseExceptionGroup):
        cli.main(["-p", "hello"])
