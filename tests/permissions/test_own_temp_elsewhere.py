"""``TMPDIR`` outside ``/tmp`` (``~/tmp``, ``/scratch/$USER`` on shared hosts): the shell's
own temporary folders there (git's staged copies of secret files, scrubbed git configs,
``--no-session`` checkpoints) were readable by every command through the read-only root,
since only ``/tmp`` is replaced by an empty one (finding Q15). Real bubblewrap."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..sandboxing import require_sandbox
from .later_ws import later_workspace, sh

pytestmark = pytest.mark.anyio


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, "agent-shell-test-owntemp-")


async def test_the_shells_own_folders_in_a_temporary_folder_outside_tmp_are_hidden(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_sandbox()
    tmpdir = ws.parent / "scratch-tmp"  # outside the workspace and outside /tmp
    tmpdir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
    staged = tmpdir / "agent-shell-staged-4242" / "b122"
    staged.parent.mkdir()
    staged.write_text("OPENAI_API_KEY=sk-proj-STAGEDCOPY\n")
    checkpoint = tmpdir / "agent-shell-checkpoints-4242-abc" / "log.jsonl"
    checkpoint.parent.mkdir()
    checkpoint.write_text('{"prompt": "MY-PRIVATE-PROMPT"}\n')
    (tmpdir / "someone-elses.txt").write_text("ordinary temp file\n")
    line = f"cat {staged} {checkpoint} {tmpdir}/someone-elses.txt; grep -r PRIVATE {tmpdir}; echo done"
    result = await sh(ws, line)
    assert "done" in result.text and "ordinary temp file" in result.text, result.text
    assert "STAGEDCOPY" not in result.text and "MY-PRIVATE-PROMPT" not in result.text, result.text
