"""The one Markdown parser for text from outside (replies, tool output, command results).

Both Markdown renderers (Rich's in the line mode, Textual's in the TUI) read
markdown-it tokens; this module makes the tokens honest before either sees them:

* **No raw HTML.** With markdown-it's ``html`` option on (the CommonMark and
  "gfm-like" presets), ``List<String>``, ``<details>`` or a traceback's
  ``<module>`` become HTML tokens, which both renderers drop: the text vanished.
  Here ``html`` is off, so they are ordinary text and show as written (code spans
  and fences are unaffected; an autolink ``<https://…>`` still links).
* **A link shows where it goes.** ``[https://docs.python.org](https://evil)``
  drew "https://docs.python.org", its real target hidden in an OSC 8 hyperlink
  (line mode) or a click action (TUI): a spoof. Wherever a link's text is not
  its target, the target follows it in parentheses, ``docs (https://evil)``, cut
  at :data:`TARGET_WIDTH`; an autolink or a bare URL (its text *is* the target)
  is left as it is, unless its host reads as non-ASCII (``https://\u0430pple.com/``
  reads as Apple's): then what follows it is the host as DNS sees it, the
  ``xn--…`` markdown-it links to (finding X4). An image (a terminal shows none) becomes a link named by its
  alt text, ``🖼 logo (https://…/logo.png)``, in place.

It imports markdown-it only (no UI library), lazily: the line mode's first
prompt does not pay for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from .linkopen import lookalike_host

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore
    from markdown_it.token import Token

__all__ = ["TARGET_WIDTH", "markdown_parser", "show_link_targets"]

TARGET_WIDTH = 200
"""Characters of a link target shown after its text (a ``data:`` URL may be megabytes)."""


@cache
def markdown_parser(preset: str = "commonmark") -> MarkdownIt:
    """A markdown-it parser on ``preset`` (Rich uses "commonmark" with tables and
    strikethrough, the TUI "gfm-like") with raw HTML off and link targets shown.
    Shared (cached) per preset: building one costs about half a millisecond."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt(preset, {"html": False})
    if preset == "commonmark":
        parser.enable(["strikethrough", "table"])  # what Rich's own parser enables
    if parser.linkify is not None:  # "gfm-like": only URLs with a scheme (README.md is no link)
        parser.linkify.set({"fuzzy_link": False})
    parser.core.ruler.push("show_link_targets", show_link_targets)
    return parser


def show_link_targets(state: StateCore) -> None:
    """A markdown-it core rule: after each link or image whose text differs from its
    target, a text token `` (target)``."""
    for block in state.tokens:
        if block.type == "inline" and block.children:
            block.children = _with_targets(block.children, state)


def _with_targets(children: Sequence[Token], state: StateCore) -> list[Token]:
    from markdown_it.token import Token

    out: list[Token] = []
    opened: list[tuple[Token, int]] = []  # (link_open, index in out)
    for token in children:
        out.append(token)
        if token.type == "link_open":
            opened.append((token, len(out)))
        elif token.type == "link_close" and opened:
            start, first = opened.pop()
            target = str(start.attrs.get("href", ""))
            if start.markup in ("autolink", "linkify"):  # its text is the URL it links to…
                if lookalike_host(target) is not None:  # …as it reads, not as DNS sees it
                    out.append(_text(Token, f" ({_short(target)})"))
                continue
            inside = out[first:-1]
            text = "".join(t.content for t in inside) if all(
                t.type in ("text", "code_inline", "softbreak") for t in inside) else None
            if not _same(text, target, state):
                out.append(_text(Token, f" ({_short(target)})"))
        elif token.type == "image":  # a terminal shows no image: a link to it, named
            out.pop()
            target = str(token.attrs.get("src", ""))
            link = Token("link_open", "a", 1)
            link.attrs = {"href": target}
            out += [link, _text(Token, f"🖼 {token.content or 'image'}"), Token("link_close", "a", -1)]
            if not _same(token.content, target, state):
                out.append(_text(Token, f" ({_short(target)})"))
    return out


def _same(text: str | None, target: str, state: StateCore) -> bool:
    """Whether the link's visible text already says where it goes (never when its host
    reads as non-ASCII: the text shows the look-alike, the target its DNS form)."""
    if text is None or lookalike_host(target) is not None:
        return False
    text = text.strip()
    return text == target or state.md.normalizeLink(text) == target or f"mailto:{text}" == target


def _short(target: str) -> str:
    """The target as shown after a link's text, at most :data:`TARGET_WIDTH` long. For a
    web address the host is always there, right after the scheme: user info before an
    ``@`` is what a spoof hides behind (``https://docs.python.org%2F…@evil.example/``
    goes to evil.example), so it shows as ``…@``, and a long rest is cut in the middle,
    never the host."""
    scheme, sep, after = target.partition("://")
    authority = after.replace("\\", "/").split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    if not sep or not scheme.isascii() or not scheme.isalpha() or not authority:
        return _cut(target, TARGET_WIDTH)
    _, at, host = authority.rpartition("@")
    head = f"{scheme}://{'…@' if at else ''}{_cut(host, TARGET_WIDTH // 2, keep_end=True)}"
    return head + _cut(after[len(authority) :], TARGET_WIDTH - len(head))


def _cut(text: str, width: int, keep_end: bool = False) -> str:
    if len(text) <= width:
        return text
    if keep_end:  # a host's own name is at its end (evil.example in a.b.c.evil.example)
        return "…" + text[len(text) - width + 1 :]
    half = (width - 1) // 2
    return text[:half] + "…" + text[len(text) - (width - 1 - half) :]


def _text(token_class: Any, content: str) -> Token:
    token: Token = token_class("text", "", 0)
    token.content = content
    return token
