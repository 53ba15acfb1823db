"""An editor opens a clicked link of any scheme through the OS, with no question
(finding X10): what the agent sends it holds no link the TUI would ask about
(``file://``, ``vscode://``, ``command:``, ``zed://``, a look-alike host), in the
reply, its thinking and a reopened session. Code fences stay as written; plain web
links to ordinary hosts stay links. Nor a link whose text reads as another web address
than its target: the TUI and the line mode show the target after such a text, an
editor only the text."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from acp.schema import TextContentBlock

from shell.acp.toolview import editor_defuser, one_line
from shell.core.remoteimages import defuse_images
from shell.frontend.linkopen import link_target

from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio

ASKING = (
    "[docs](file:///etc/passwd) "
    "[open](vscode://vscode.git/clone?url=https%3A%2F%2Fevil.example%2Fr) "
    "[run](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D) "
    "[z](zed://settings) [apple](https://\u0430pple.com/login) [e](&#x66;ile:///etc/shadow) "
    "![i](file:///etc/hosts) x<file:///etc/group> [ref][r] bare https://\u0430pple.com/x\n\n"
    "[r]: vscode://evil\n"
)
FINE = "Read [the docs](https://docs.python.org/3/) or <https://ok.example/a>.\n"
CODE = "\n```md\n[kept](file:///in/a/fence)\n```\n"
MISLEADING = (
    "[https://bank.example](https://evil.example/) [www.bank.example/login](https://evil.example/login) "
    "[Sign in at **https://bank.example**](https://evil.example/) [https://bank.example][b] "
    "[https://BANK.example/](https://evil.example/) ![https://bank.example](https://evil.example/p.png) "
    "[https://bank&#46;example](https://evil.example/) [`https://bank.example`](<https://evil.example/>) "
    "[https://bank.example]\n\n"
    "[b]: https://evil.example/\n[https://bank.example]: https://evil.example/\n\n"
    "[https://bank.example" + " " * 1100 + "](https://evil.example/)\n"  # too long a text to judge
)
HONEST = (
    "[https://bank.example/login](https://bank.example/login) [www.bank.example](https://bank.example/) "
    "[the bank](https://bank.example/)\n"
)


def live_links(markdown: str) -> list[str]:
    """The targets an editor's GFM renderer (markdown-it with linkify) makes clickable."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("gfm-like").render(markdown)
    return re.findall(r'<a href="([^"]*)"', html)


def misleading(markdown: str) -> list[tuple[str, str]]:
    """The live links whose shown text names bank.example while they go elsewhere."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("gfm-like").render(markdown)
    pairs = re.findall(r'<a href="([^"]*)">(.*?)</a>', html)
    return [(href, shown) for href, shown in pairs if "bank.example" in shown.lower()
            and not re.match(r"https://bank\.example(/|$)", href, re.IGNORECASE)]


def asking(markdown: str) -> list[str]:
    import html

    return [href for href in live_links(markdown) if link_target(html.unescape(href)).asks]


async def test_the_editor_gets_no_link_that_would_ask(spawn: Spawn, script: Any, workspace: Path) -> None:
    client = EditorClient()
    turn = {"thinking": "see [t](file:///etc/passwd)", "text": ASKING + FINE + CODE}
    async with spawn(client, "--model", script([turn])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[TextContentBlock(type="text", text="hi")])
    text, thoughts = client.text(), client.thoughts()
    assert asking(ASKING) and asking(text) == [] and asking(thoughts) == [], text
    assert "https://docs.python.org/3/" in live_links(text)  # an ordinary web link stays one
    assert CODE.strip() in text  # a link in a fence is code: left as written
    assert "file:///etc/passwd" in text and "\u0430pple.com" in text  # the targets stay readable

    again = EditorClient()
    async with spawn(again, "--model", script(["hi"])) as conn:
        await conn.load_session(cwd=str(workspace), session_id=session.session_id, mcp_servers=[])
    assert again.text() == text and again.thoughts() == thoughts  # a reopened session is drawn as it was live


async def test_the_editor_gets_no_link_whose_text_reads_as_another_address(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    client = EditorClient()
    turn = {"thinking": "see [https://bank.example](https://evil.example/)", "text": MISLEADING + HONEST}
    async with spawn(client, "--model", script([turn])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[TextContentBlock(type="text", text="hi")])
    text, thoughts = client.text(), client.thoughts()
    assert len(misleading(MISLEADING)) == 9  # what the model wrote: each link a live spoof (and an image)
    assert misleading(text) == [] and misleading(thoughts) == [], text
    assert text.count("https://evil.example/") == MISLEADING.count("https://evil.example/")  # readable
    honest = [href for href, _ in re.findall(r'<a href="([^"]*)">(.*?)</a>', _html(text))]
    assert honest.count("https://bank.example/login") == 1 and honest.count("https://bank.example/") == 2

    again = EditorClient()
    async with spawn(again, "--model", script(["hi"])) as conn:
        await conn.load_session(cwd=str(workspace), session_id=session.session_id, mcp_servers=[])
    assert again.text() == text and again.thoughts() == thoughts


def _html(markdown: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("gfm-like").render(markdown)


def test_split_anywhere_the_stream_says_the_same_as_the_whole() -> None:
    whole = ASKING + FINE + CODE + MISLEADING + HONEST + "end [x](https://\u0430pple.com/" + "a" * 400 + ")"
    expected = defuse_images(whole, editor_defuser())
    for size in (1, 2, 3, 7, 13):
        d = editor_defuser()
        out = "".join(d.feed(whole[i : i + size]) for i in range(0, len(whole), size)) + d.flush()
        assert out == expected, size
    assert asking(expected) == [] and misleading(expected) == []


def test_a_title_holds_no_link_that_would_ask() -> None:
    assert asking(one_line("Fetch [docs](vscode://x) https://\u0430pple.com/")) == []
    assert misleading(one_line("Fetch [https://bank.example](https://evil.example/)")) == []
