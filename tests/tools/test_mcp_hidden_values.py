"""Finding X15, at the MCP layer: an answer's every text passes the hidden-values net
(structured content and images included), and the file a call names is shown."""

from __future__ import annotations

from pathlib import Path

from shell.core.messages import DataBlock, TextBlock, ToolResult
from shell.permissions.sandbox import Sandbox
from shell.tools.mcp_values import answer_without_hidden_values

PASSWORD = "Xk9mP2vQ7wLr4Tz8hunter"
PNG = DataBlock("image/png", b"\x89PNG" + PASSWORD.encode())


def _box(tmp_path: Path) -> Sandbox:
    (tmp_path / ".env").write_text(f"DB_PASSWORD={PASSWORD}\n")
    return Sandbox(tmp_path)


def test_structured_content_and_blocks_lose_the_values_and_say_so(tmp_path: Path) -> None:
    box = _box(tmp_path)
    answer = ToolResult((TextBlock(f"found {PASSWORD}"), PNG),
                        details={"server": "s", "structured": {"hits": [f"pw={PASSWORD}"]}})
    out = answer_without_hidden_values(answer, box, {"q": "pw"}, {}, [tmp_path])
    assert isinstance(out.content, tuple)
    assert out.content[0] == TextBlock("found [REDACTED]")
    assert out.content[1] == PNG  # an image is not the model's text: kept whole
    assert "(.env) was redacted" in out.content[-1].text  # type: ignore[union-attr]
    assert out.details["structured"] == {"hits": ["pw=[REDACTED]"]}
    assert out.details["redacted_values"] == 1


def test_a_call_naming_the_file_or_spelling_the_value_gets_it_as_is(tmp_path: Path) -> None:
    box = _box(tmp_path)
    answer = ToolResult(f"DB_PASSWORD={PASSWORD}")
    schema = {"type": "object", "properties": {"uri": {"type": "string"}}}
    for args in ({"path": ".env"}, {"uri": (tmp_path / ".env").as_uri()}, {"q": PASSWORD}):
        assert answer_without_hidden_values(answer, box, args, schema, [tmp_path]) == answer
    assert PASSWORD not in answer_without_hidden_values(answer, box, {"path": "main.py"}, {}, [tmp_path]).text


def test_a_value_cut_over_two_text_blocks_is_redacted_in_each(tmp_path: Path) -> None:
    """Providers join a message's text parts: the model would read the value whole."""
    box = _box(tmp_path)
    answer = ToolResult((TextBlock("pw=" + PASSWORD[:9]), PNG, TextBlock(PASSWORD[9:] + " end")))
    out = answer_without_hidden_values(answer, box, {"q": "pw"}, {}, [tmp_path])
    assert isinstance(out.content, tuple)
    assert [b.text for b in out.content[:3:2]] == ["pw=[REDACTED]", "[REDACTED] end"]  # type: ignore[union-attr]
    assert "(.env) was redacted" in out.content[-1].text  # type: ignore[union-attr]


def test_a_value_in_another_spelling_is_withheld_with_its_line(tmp_path: Path) -> None:
    """Finding Z7: an MCP server (not sandboxed: it reads the .env itself) sent the value
    reversed, base64, hex: the net took it out only as written. (Upper-cased is not read:
    the egress check folds case only where a host or DNS label does.)"""
    import base64

    box = _box(tmp_path)
    spellings = [PASSWORD[::-1], base64.b64encode(PASSWORD.encode()).decode(), PASSWORD.encode().hex()]
    text = "\n".join(["a harmless line", *(f"v: {s}" for s in spellings), "the end"])
    out = answer_without_hidden_values(ToolResult(text), box, {"q": "pw"}, {}, [tmp_path])
    shown = out.text
    assert not any(s in shown for s in spellings), shown
    assert "a harmless line" in shown and "the end" in shown
    assert shown.count("[REDACTED: a line holding a value of a hidden secret file") == len(spellings)
    assert "hidden secret file, reversed]" in shown
    assert "(.env)" in shown
