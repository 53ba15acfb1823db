"""Benchmark: building one provider request (the body and its JSON bytes, what each
round of a reply sends) for a 1,000-message session, with ``TextBlock.text`` a plain
slot (as it is) against the same build with it read through the packed field's
descriptor (as it was from 60cc039 on: every block of every reply, ~1.3 us a read
instead of ~0.17). Only a block whose text is packed reads through it now
(``PackedTextBlock``).

Both ways in one process, taken in turns; reported: the best of ``--rounds`` for each,
in CPU time, and their ratio. The history is long_session's (60% replies of ~600
characters, 30% tool call + result pairs, 10% user messages).

    python benchmarks/request_build.py [--messages 1000] [--rounds 15]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from time import process_time
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.long_session import history


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()

    from shell.core.messages import TextBlock
    from shell.core.model import ModelRequest
    from shell.core.packed_text import PackedField
    from shell.core.textsafety import utf8_json
    from shell.providers.anthropic import AnthropicModel
    from shell.providers.openai import OpenAIModel

    messages = tuple(history(args.messages))
    slot = TextBlock.__dict__["text"]
    descriptor = PackedField(slot, auto=False)
    ways = {"slot": slot, "descriptor": descriptor}
    block = TextBlock("a reply")
    for way, attribute in ways.items():
        TextBlock.text = attribute  # type: ignore[method-assign,assignment]
        start = process_time()
        for _ in range(200_000):
            block.text  # noqa: B018
        print(f"one read of TextBlock.text, {way}: {(process_time() - start) / 200_000 * 1e6:.2f} us")
    TextBlock.text = slot  # type: ignore[method-assign,assignment]
    print(f"{args.messages} messages, {sum(isinstance(b, TextBlock) for m in messages for b in _blocks(m))} "
          "text blocks; CPU ms per request build (body + JSON), best of "
          f"{args.rounds}")
    for provider in (OpenAIModel("gpt-x", api_key="k"), AnthropicModel("claude-x", api_key="k")):
        request = ModelRequest(model=provider, system_prompt="You help.", messages=messages)
        best = dict.fromkeys(ways, float("inf"))
        for _ in range(args.rounds):
            for way, attribute in ways.items():
                TextBlock.text = attribute  # type: ignore[method-assign,assignment]
                start = process_time()
                for _ in range(5):
                    utf8_json(provider.build_body(request))
                best[way] = min(best[way], (process_time() - start) / 5 * 1000)
        TextBlock.text = slot  # type: ignore[method-assign,assignment]
        name = type(provider).__name__
        print(f"  {name:15} slot {best['slot']:6.2f}  descriptor {best['descriptor']:6.2f}  "
              f"ratio {best['descriptor'] / best['slot']:.2f}")


def _blocks(message: Any) -> tuple[Any, ...]:
    content = message.content
    return content if isinstance(content, tuple) else ()


if __name__ == "__main__":
    main()
