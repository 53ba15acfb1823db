"""Summarization sized by the configured window from -p's first request (finding B12,
the tester's sum.toml): the window was set on the model by a background task that -p's
first request always beat, so a fraction trigger measured against a guess and never
summarised a history that had long passed half of the server's 2,048 tokens.
(llama-cpp-python's server has no /props: the window is the config's.)"""

from __future__ import annotations

import json

from .conftest import Home
from .llama import CONTEXT, LlamaServer

SUMMARISING = """
[models."smol"]
context_window = 2048

[middleware]
enabled = ["Summarization"]

[middleware.Summarization]
trigger = { fraction = 0.5 }
keep = { messages = 2 }
"""


def test_a_history_past_half_the_servers_window_is_summarised_in_p(home: Home, llama: LlamaServer) -> None:
    home.configure(llama.url, max_tokens=16)
    config = home.config / "config.toml"
    text = config.read_text(encoding="utf-8").replace('model = "llama"', 'model = "llama:smol"', 1)
    config.write_text(text + SUMMARISING, encoding="utf-8")
    facts = "blue " * 350  # 3 x ~440 tokens as Summarization counts (chars / 4): past half of 2,048
    for n in range(3):
        go_on = ("--continue",) if n else ()
        r = home.run("-p", f"Remember these, part {n}: {facts}", *go_on, "--output-format", "json")
        assert r.returncode in (0, 1), r.stderr[-2000:]
    r = home.run("-p", "One more fact please", "--continue", "--output-format", "json")
    data = json.loads(r.stdout)
    texts = [json.dumps(m) for m in data["messages"]]
    assert any("summary of the conversation so far" in t for t in texts), (CONTEXT, r.stderr[-2000:])
