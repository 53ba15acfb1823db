"""The TUI says a misspelt config key once the shell is up (finding B10), as it says
the config's other problems: a ``[permisions]`` table is otherwise silently ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import SIZE, notices, runtime_app, wait_for, workspace

pytestmark = pytest.mark.anyio


async def test_a_misspelt_table_and_key_are_notices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = workspace(tmp_path, monkeypatch, {"a.txt": "x\n"})
    raw = {"permisions": {"allow": ["read_file"]}, "providers": {"openai": {"base_ulr": "http://127.0.0.1:1/v1"}}}
    app, _ = runtime_app(ws, ["ok"], raw=raw)
    wanted = (
        "unknown key `permisions` is ignored; did you mean `permissions`?",
        "unknown key `base_ulr` under [providers.openai] is ignored; did you mean `base_url`?",
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: all(any(w in n for n in notices(app)) for w in wanted))
        assert sum("unknown key" in n for n in notices(app)) == 2, notices(app)
