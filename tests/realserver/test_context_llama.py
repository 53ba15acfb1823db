"""``/context`` against a real tokenizer and chat template: llama.cpp (llama-cpp-python)
serving SmolLM2-135M counts the requests agent-shell builds.

llama-cpp-python reports no usage while streaming, so the test posts the very
bodies the OpenAI provider builds, unstreamed, and reads ``usage.prompt_tokens``:
the calibration gets the server's count of one request, and the next request's
breakdown must land within 5% of the server's count of it. Its default chat format
leaves a request's ``tools`` out of the prompt (it has no tool template), so the
agent here offers none: what is measured is the system prompt, the instructions
and the history through a real vocabulary and chat template.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shell.config import ProviderSettings, Settings
from shell.context.accounting import breakdown, next_request
from shell.core.messages import (
    AssistantMessage,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from shell.core.model import ModelRequest
from shell.runtime import RuntimeOptions, ShellRuntime

from . import llama as llama_module
from .llama import LlamaServer, gguf_path, llama_python

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def wide_llama(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LlamaServer]:
    """A server with room for the shell's system prompt, tools and a few files."""
    monkeypatch.setattr(llama_module, "CONTEXT", 8192)
    python = llama_python()
    server = LlamaServer(python, gguf_path(python), tmp_path / "wide-server.log")
    server.start()
    yield server
    server.stop()


def counted(server: LlamaServer, runtime: ShellRuntime, request: ModelRequest) -> int:
    """The server's count of ``request``'s prompt, as the provider would send it."""
    body: dict[str, Any] = runtime.agent.model.build_body(request)  # type: ignore[attr-defined]
    body.update(stream=False, max_tokens=1)
    body.pop("stream_options", None)
    answer = httpx.post(f"{server.url}/chat/completions", json=body, timeout=600)
    answer.raise_for_status()
    return int(answer.json()["usage"]["prompt_tokens"])


def tool_round(n: int, path: str, question: str, limit: int) -> list[Any]:
    text = (ROOT / path).read_text(encoding="utf-8")[:limit]
    call = ToolCallBlock(f"call_{n}", "read_file", {"path": path})
    return [
        UserMessage(question),
        AssistantMessage((TextBlock(f"Let me read {path}."), call)),
        ToolResultMessage(f"call_{n}", "read_file", text),
        AssistantMessage((TextBlock(f"{path} is read; it has {len(text.splitlines())} lines."),)),
    ]


async def test_context_is_within_5_percent_of_a_real_tokenizers_count(
    wide_llama: LlamaServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    settings = Settings(providers={"llama": ProviderSettings(type="openai", base_url=wide_llama.url)})
    runtime = ShellRuntime.create(
        RuntimeOptions(model=f"llama:{wide_llama.model_id()}", cwd=str(tmp_path), record=False),
        settings=settings,
    )
    agent = runtime.agent
    agent.tools = []  # this server's chat format would drop them from the prompt anyway
    (tmp_path / "AGENTS.md").write_text("Run the tests with `python -m pytest -q` before saying done.\n" * 5)
    agent.messages.extend(tool_round(1, "shell/context/meter.py", "What does the meter do?", 3000))
    first = await next_request(agent)
    first_count = counted(wide_llama, runtime, first)
    agent.messages.extend([
        *tool_round(2, "README.md", "And what does the README promise?", 3000),
        *tool_round(3, "pyproject.toml", "Which dependencies?", 1000),
    ])
    second = await next_request(agent)
    result = breakdown(second, last_request=first, last_usage=Usage(first_count))
    real = counted(wide_llama, runtime, second)
    error = abs(result.total - real) / real
    print(f"\n/context {result.total} vs llama.cpp {real}: {error:.1%} (factor {result.factor:.3f})")
    assert result.calibrated
    assert error < 0.05, f"/context said {result.total}, llama.cpp counted {real} ({error:.1%})"
