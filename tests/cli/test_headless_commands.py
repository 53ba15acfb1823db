"""-p runs your own slash commands as the TUI and --plain do (finding B9): the text
"/review src/mod.py" went to the model as is; a built-in command gets a clear error."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from shell.config import Settings
from shell.core.messages import UserMessage
from shell.headless import EXIT_OK, EXIT_USAGE, run_headless
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime

pytestmark = pytest.mark.anyio


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config"
    (config / "commands").mkdir(parents=True)
    (config / "commands" / "review.md").write_text(
        "---\ndescription: Review a file\n---\nPlease review @$ARGUMENTS carefully.\n")
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(config))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "mod.py").write_text("def f():\n    return 1\n")
    return work


async def headless(work: Path, prompt: str) -> tuple[int, ScriptedModel, str]:
    model = ScriptedModel(["Looks fine."])
    runtime = ShellRuntime.create(RuntimeOptions(cwd=str(work), record=False),
                                  settings=Settings(path=work.parent / "none.toml"), model=model)
    err = io.StringIO()
    code = await run_headless(runtime, prompt, approve="never", out=io.StringIO(), err=err)
    return code, model, err.getvalue()


async def test_your_command_is_expanded_and_its_file_attached(work: Path) -> None:
    code, model, _ = await headless(work, "/review src/mod.py")
    assert code == EXIT_OK
    sent = model.requests[0].messages[-1]
    assert isinstance(sent, UserMessage)
    assert sent.text.startswith("Please review @src/mod.py carefully.")
    assert "return 1" in sent.text  # the file went with it, as in the TUI


async def test_a_built_in_command_is_refused_naming_what_p_runs(work: Path) -> None:
    code, model, err = await headless(work, "/rewind")
    assert code == EXIT_USAGE and model.requests == []
    assert "/rewind is a command of the interactive shell; -p runs only your own commands" in err
    assert "/review" in err


async def test_other_text_starting_with_a_slash_is_still_a_message(work: Path) -> None:
    code, model, _ = await headless(work, "/tmp is full, what can I delete?")
    assert code == EXIT_OK and model.requests[0].messages[-1].text == "/tmp is full, what can I delete?"
