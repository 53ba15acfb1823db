"""``agent-shell -p … --output-format jsonl | head``: when the reader goes away the
run ends quietly with 141 (what a shell reports for a filter killed by SIGPIPE),
and the reply stops there: nothing reads what its tools would do."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from shell.config import Settings
from shell.headless import EXIT_PIPE, run_headless
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from tests.helpers import calls

pytestmark = pytest.mark.anyio


class ClosedAfter(io.StringIO):
    """A pipe whose reader reads ``lines`` lines, then goes away."""

    def __init__(self, lines: int) -> None:
        super().__init__()
        self.left = lines

    def write(self, text: str) -> int:
        if self.left <= 0:
            raise BrokenPipeError(32, "Broken pipe")
        self.left -= 1
        return super().write(text)


@pytest.mark.parametrize("output_format", ["jsonl", "json", "text"])
async def test_a_closed_stdout_ends_the_run_quietly_with_141(tmp_path: Path, output_format: str) -> None:
    turn = calls(("write_file", {"path": "made.txt", "content": "x"}), text="Writing.")
    model = ScriptedModel([turn, "Done."])
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False),
        settings=Settings(path=tmp_path / "none.toml"),
        model=model,
    )
    out, err = ClosedAfter(lines=1 if output_format == "jsonl" else 0), io.StringIO()
    code = await run_headless(runtime, "go", output_format=output_format,  # type: ignore[arg-type]
                              approve="always", out=out, err=err)
    assert code == EXIT_PIPE
    assert "Traceback" not in err.getvalue() and "BrokenPipe" not in err.getvalue()
    if output_format == "jsonl":  # the reader left at the first line: the call never ran
        assert not (tmp_path / "made.txt").exists()
        assert len(model.requests) == 1
