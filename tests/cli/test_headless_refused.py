"""A call refused in a headless run (``--approve never`` in CI) is the policy at
work, not a failure: the run exits 0, and says which calls were refused on stderr
and in ``json``'s ``refused``, so a script that must know can tell."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from shell.config import Settings
from shell.headless import EXIT_OK, run_headless
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from tests.helpers import calls

pytestmark = pytest.mark.anyio


def runtime_for(tmp_path: Path, *turns: object) -> ShellRuntime:
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False),
        settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel(list(turns)),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("output_format", ["json", "jsonl", "text"])
async def test_a_refused_call_exits_0_and_is_named_on_stderr_and_in_json(
    tmp_path: Path, output_format: str
) -> None:
    turn = calls(("run_shell", {"command": "touch made.txt"}), text="Touching.")
    runtime = runtime_for(tmp_path, turn, "I was not allowed to.")
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(runtime, "go", output_format=output_format,  # type: ignore[arg-type]
                              approve="never", out=out, err=err)
    assert code == EXIT_OK
    assert not (tmp_path / "made.txt").exists()
    assert "1 tool call refused and not run (run_shell)" in err.getvalue()
    if output_format == "json":
        refused = json.loads(out.getvalue())["refused"]
        assert [(r["call_id"], r["name"]) for r in refused] == [("call_0_run_shell", "run_shell")]
        assert "--approve never" in refused[0]["reason"]


async def test_a_run_with_nothing_refused_says_nothing_of_it(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    runtime = runtime_for(tmp_path, calls(("read_file", {"path": "a.txt"})), "It says hello.")
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(runtime, "go", output_format="json", approve="never", out=out, err=err)
    assert code == EXIT_OK
    assert "refused" not in err.getvalue()
    assert json.loads(out.getvalue())["refused"] == []


async def test_a_refused_fetch_url_carrying_a_token_prints_it_redacted_on_stderr(tmp_path: Path) -> None:
    """The egress check refuses a URL that carries a key; the stderr line naming the
    refused call must not print the key it just kept from leaving (a terminal, a CI log)."""
    token = "dckr_pat_FAKEabcdefghijklmnopqrstuvw"
    turn = calls(("fetch_url", {"url": f"https://x.example/?u={token}"}), text="Fetching.")
    runtime = runtime_for(tmp_path, turn, "I was not allowed to.")
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(runtime, "go", output_format="text", approve="never", out=out, err=err)
    assert code == EXIT_OK
    assert "fetch_url" in err.getvalue()
    assert token[:16] not in err.getvalue() + out.getvalue()


async def test_a_middlewares_refusal_is_not_blamed_on_the_approval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TodoList refuses a second write_todos in one turn: the stderr line said "a refusal
    is the approval policy at work (--approve always lets calls that ask run …)", and
    --approve always would change nothing (round 21, E6)."""
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    todo = {"todos": [{"content": "plan", "status": "pending"}]}
    turn = calls(("write_todos", todo), ("write_todos", todo))
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False, middleware_on=["TodoList"]),
        settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel([turn, "Planned."]),
    )
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(runtime, "plan", output_format="text", approve="always", out=out, err=err)
    assert code == EXIT_OK
    said = err.getvalue()
    assert "2 tool calls refused and not run (write_todos)" in said
    assert "approval policy" not in said and "a middleware" in said


async def test_json_names_the_model_that_answered_and_stderr_says_it_fell_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ModelFallback answered from its fallback: json's "model" named the dead primary
    and stderr said nothing (round 21, E5): a CI job logging the model per run learned
    nothing. It names the model that answered, and the fallback's warning is on stderr."""
    from middleware.model_fallback import ModelFallback
    from shell.agent import ModelError

    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False, middleware_on=["ModelFallback"]),
        settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel([ModelError("connection refused", provider="test")], name="primary"),
    )
    (fallback,) = [m for m in runtime.agent.middleware if isinstance(m, ModelFallback)]
    fallback.fallback_models = (ScriptedModel(["from the backup"], name="backup"),)
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(runtime, "hello", output_format="json", approve="never", out=out, err=err)
    assert code == EXIT_OK
    result = json.loads(out.getvalue())
    assert result["answer"] == "from the backup" and result["model"] == "scripted:backup"
    assert "warning: Model scripted:primary failed" in err.getvalue()
