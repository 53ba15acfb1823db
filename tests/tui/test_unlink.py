"""``shell.tui.unlink``: what the TUI drops is freed by reference counting, not left
for a full garbage collection (each of which stopped a streaming reply 150-700 ms).

Each test turns the collector off, so only reference counting can free anything:
before ``unlink`` every one of these objects stayed alive."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from rich.segment import Segment
from rich.style import Style
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.cache import LRUCache
from textual.containers import VerticalScroll
from textual.strip import Strip
from textual.widgets import Static

from shell.tui import unlink
from shell.tui.widgets.chat_markdown import ChatMarkdown

unlink.install()

REPLY = """## Findings

The agent **reads** files, runs `tools` and *answers*.

- one item with **bold** words
- a second item with `code`

```python
x = 1
```

A last paragraph with ~~struck~~ text.
"""


@pytest.fixture
def no_collector() -> Iterator[None]:
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class Chat(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="chat")


@pytest.mark.anyio
async def test_a_removed_markdown_chunk_is_freed_without_the_collector(no_collector: None) -> None:
    """What parking a chunk of a long reply does: its blocks, their styles and
    render caches must go when it is removed, not at the next full collection."""
    app = Chat()
    async with app.run_test(size=(80, 30)) as pilot:
        chat = app.query_one("#chat", VerticalScroll)
        chunk = ChatMarkdown(REPLY)
        await chat.mount(chunk)
        await pilot.pause()
        chunk.query_one("MarkdownParagraph").add_class("-end")  # a restyle: new component nodes
        await pilot.pause()
        widgets = [weakref.ref(node) for node in chunk.walk_children(with_self=True)]
        assert len(widgets) > 6  # a tree of blocks (a list of one-line items is one widget)
        await chat.mount(Static("spacer"), before=chunk)  # parking: a spacer takes its place
        await chunk.remove()
        del chunk
        StylesCache.get_inner_outer.cache_clear()  # as AssistantMessage does when it parks
        for line in range(5):  # the reply goes on (Textual's layout caches keep the last few)
            await chat.mount(Static(f"line {line}"))
            await pilot.pause()
        alive = [type(ref()).__name__ for ref in widgets if ref() is not None]
        assert alive == []


@pytest.mark.anyio
async def test_a_restyled_block_drops_its_old_component_nodes(no_collector: None) -> None:
    """Every restyle of a Markdown block builds a node per component class (bold,
    code...); the ones it replaces must be freed, not piled up."""
    app = Chat()
    async with app.run_test(size=(80, 30)) as pilot:
        chunk = ChatMarkdown(REPLY)
        await app.query_one("#chat").mount(chunk)
        await pilot.pause()
        block = chunk.query_one("MarkdownParagraph")
        old = [weakref.ref(styles.node) for styles in block._component_styles.values() if styles.node]
        assert old
        block.add_class("-end")
        await pilot.pause()
        assert [ref for ref in old if ref() is not None] == []
        assert block._component_styles  # the block has its new ones: it still draws bold and code
        assert block.get_component_rich_style("strong").bold


def test_a_strip_that_is_its_own_result_is_freed(no_collector: None) -> None:
    """``divide`` at its own width, ``adjust_cell_length`` and ``crop_extend`` to its
    own length answer the strip itself, as before, without caching it in itself."""
    strip = Strip([Segment("hello "), Segment("world", Style(bold=True))])
    assert strip.divide([11]) == [strip]
    assert strip.adjust_cell_length(11) is strip
    assert strip.crop_extend(0, 11, None) is strip
    assert [s.text for s in strip.divide([5, 11])] == ["hello", " world"]
    assert strip.adjust_cell_length(13).text == "hello world  "
    assert strip.crop_extend(6, 13, None).text == "world  "
    del strip

    def strips() -> int:
        return sum(isinstance(o, Strip) for o in gc.get_objects())

    before = strips()
    for n in range(50):
        line = Strip([Segment(f"line {n:>4}")])
        line.divide([9])
        line.adjust_cell_length(9)
        line.crop_extend(0, 9, None)
    del line
    assert strips() == before


def test_a_cleared_lru_cache_frees_its_values_and_still_works(no_collector: None) -> None:
    class Value:
        pass

    cache: LRUCache[int, Value] = LRUCache(4)
    values = [Value() for _ in range(6)]
    refs = [weakref.ref(v) for v in values]
    for key, value in enumerate(values):
        cache[key] = value
    del values, value
    assert sum(ref() is not None for ref in refs) == 4  # two evicted
    cache.clear()
    assert all(ref() is None for ref in refs)
    fresh = Value()
    cache[1] = fresh
    cache[2] = Value()
    assert cache.get(1) is fresh and len(cache) == 2
