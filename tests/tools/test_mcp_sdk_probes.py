"""A real MCP server written with the official SDK (tests/tools/sdk_mcp_server.py),
over stdio, streamable HTTP and the older SSE transport on 127.0.0.1, doing what
such servers do to a client: a flood of progress, a tool list said to change 300
times (it did not), a result for a call that was cancelled, every content type,
escape sequences in a description and in an error, an error of 100 kB. Each time
the answer arrives, the server stays ready, the next call works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.core.messages import DataBlock, TextBlock
from shell.core.textsafety import is_safe, sanitize_line
from shell.tools.mcp_results import MAX_RESULT_CHARS

from .conftest import Recorder
from .test_mcp_sdk_servers import _connected, _run

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
TRANSPORTS = ["stdio", "http", "sse"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_progress_flood_and_lies_about_the_tool_list_leave_the_answers_and_the_tools(
    transport: str, recorder: Recorder
) -> None:
    async with _connected("probe", transport) as mcp:
        before = sorted(t.name for t in mcp.tools())
        flooded = await _run(mcp, "progress", recorder, n=1000)
        assert flooded.text == "progressed 1000"
        shown = [p for p in recorder.progress if isinstance(p, dict) and "progress" in p]
        assert 0 < len(shown) < 1000 and shown[-1]["progress"] == 1000  # thinned, the last always shown
        lied = await _run(mcp, "list_changed", recorder, n=300)
        assert lied.text == "changed 300 times"
        assert sorted(t.name for t in mcp.tools()) == before and mcp.status("sdk").state == "ready"
        assert (await _run(mcp, "echo", recorder, a="after")).text == "echo after"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_result_sent_for_a_cancelled_call_is_dropped_quietly(
    transport: str, recorder: Recorder, capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    answering = tmp_path / "answering"
    async with _connected("probe", transport) as mcp:
        late = {t.name: t for t in mcp.tools()}["sdk__late"]
        with anyio.move_on_after(0.5) as scope:  # Esc, as the TUI does it
            await late.run({"seconds": 1.5, "mark": str(answering)}, recorder.context(late.name, {}))
        assert scope.cancelled_caught
        with anyio.fail_after(30):  # its answer is sent now, for a call nobody waits for
            while not answering.exists():  # noqa: ASYNC110 (the server's mark, in another process)
                await anyio.sleep(0.02)
        assert mcp.status("sdk").state == "ready" and mcp.status("sdk").message == ""
        assert (await _run(mcp, "echo", recorder, a="after")).text == "echo after"
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_every_content_type_and_escapes_in_errors_arrive_whole_and_shown_harmless(
    transport: str, recorder: Recorder
) -> None:
    async with _connected("probe", transport) as mcp:
        fail = {t.name: t for t in mcp.tools()}["sdk__fail"]
        assert not is_safe(fail.description) and is_safe(sanitize_line(fail.description))
        blocks = await _run(mcp, "blocks", recorder)
        assert not blocks.is_error and not isinstance(blocks.content, str)
        kinds = [b.media_type if isinstance(b, DataBlock) else "text" for b in blocks.content]
        assert kinds[:3] == ["text", "image/png", "audio/wav"]
        texts = [b.text for b in blocks.content if isinstance(b, TextBlock)]
        assert any("resource \x1b[2J text" in t for t in texts)  # the embedded resource's text
        assert any("file:///y.txt" in t for t in texts)  # the link
        assert all(is_safe(sanitize_line(t)) for t in texts)
        failed = await _run(mcp, "fail", recorder)
        assert failed.is_error
        assert failed.text == "Error executing tool fail: boom \x1b[2J\x1b]52;c;cHdu\x07\u202e"
        assert is_safe(sanitize_line(failed.text))  # the clipboard write (OSC 52) is shown, never sent
        huge: Any = await _run(mcp, "fail", recorder, size=100_000)
        assert huge.is_error and len(huge.text) < MAX_RESULT_CHARS + 1000
        assert "characters are shown" in huge.text
        assert mcp.status("sdk").state == "ready"
        assert (await _run(mcp, "echo", recorder, a="after")).text == "echo after"
