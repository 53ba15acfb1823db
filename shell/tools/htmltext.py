"""An HTML document's readable text, with light structure (headings, lists, links,
preformatted blocks kept as they are): what ``fetch_url`` gives the model."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

_SKIP = {"script", "style", "noscript", "template", "svg", "head", "iframe", "object", "canvas"}
_BLOCK = {
    "p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "br", "hr",
    "table", "tr", "ul", "ol", "dl", "dt", "dd", "blockquote", "pre", "form", "figure",
    "figcaption", "h1", "h2", "h3", "h4", "h5", "h6", "li", "title",
}  # fmt: skip


_PRE = "\x00"


class TextExtractor(HTMLParser):
    """Collects the visible text of an HTML document, with light structure."""

    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.parts: list[str] = []
        self.title = ""
        self._skip_depth = 0
        self._in_title = False
        self._pre = 0
        self._href: str | None = None
        self._link_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
            return
        if tag in _SKIP:
            self._skip_depth += 1
            return
        if tag in _BLOCK:
            self.parts.append("\n")
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.parts.append("#" * int(tag[1]) + " ")
        elif tag == "li":
            self.parts.append("- ")
        elif tag == "pre":
            self._pre += 1
        elif tag == "a":
            href = dict(attrs).get("href")
            if href and not href.startswith(("#", "javascript:")):
                self._href = urljoin(self.base_url, href)
                self._link_text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
            return
        if tag in _SKIP:
            self._skip_depth = max(0, self._skip_depth - 1)
            return
        if tag == "pre":
            self._pre = max(0, self._pre - 1)
        if tag == "a" and self._href is not None:
            text = "".join(self._link_text).strip()
            if text and text != self._href:
                self.parts.append(f" ({self._href})")
            self._href = None
        if tag in _BLOCK and tag != "li":
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
            return
        if self._skip_depth:
            return
        # Preformatted lines carry a marker so that text() leaves their spacing alone.
        text = "\n".join(_PRE + line for line in data.split("\n")) if self._pre else re.sub(r"\s+", " ", data)
        self.parts.append(text)
        if self._href is not None:
            self._link_text.append(text)

    def text(self) -> str:
        raw = "".join(self.parts)
        lines = [
            line.replace(_PRE, "").rstrip() if _PRE in line else line.strip() for line in raw.split("\n")
        ]
        out = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
        title = " ".join(self.title.split())
        return f"# {title}\n\n{out}" if title else out
