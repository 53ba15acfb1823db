"""The config this run loaded (``--config FILE``, which README suggests for per-project
and CI setups) holds provider keys; the default config's folder is hidden from
commands, a file given elsewhere was not: ``grep -rh api_key ~/work`` printed the key,
unasked (finding Q30). Real bubblewrap, through the console script."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox

KEY = "sk-proj-CONFIGFILEKEYabcdef1234567890"


def test_a_command_cannot_read_the_config_file_the_run_loaded(
    run_cli: Any, script: Any, workspace: Path
) -> None:
    require_sandbox()
    config = workspace / "agentcfg.toml"  # in the project, as a per-project setup keeps it (/tmp is empty)
    config.write_text(f'[providers.myp]\ntype = "openai"\napi_key = "{KEY}"\nbase_url = "http://127.0.0.1:9/v1"\n')
    shutil.copy(config, workspace / "copy-not-loaded.toml")  # the same bytes, not the run's config
    command = "cat agentcfg.toml; grep -h api_key copy-not-loaded.toml | wc -l; echo done"
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json", "--config", str(config))
    assert r.returncode == 0, r.stderr
    said = json.loads(r.stdout)["messages"]
    result = next(m for m in said if m["role"] == "tool")
    text = json.dumps(result)
    assert "done" in text and KEY not in text, text
    assert "\\n1\\n" in text  # the copy beside it is an ordinary file: read as it is
