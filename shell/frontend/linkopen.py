"""What a click on a link may open, and how its target is shown: the one policy.

A link in a reply, a tool's output or a command result was written by a model, a
tool or a file: hostile until proven otherwise. A click used to open any scheme
markdown-it lets through (findings 15): ``vscode://vscode.git/clone?url=…`` clones
a repository, ``ssh://``, ``smb://`` and ``file://`` reach hosts and files, a
custom scheme starts whatever app registered it. So only a plain web address
(http/https, its host in ASCII, nothing hidden in it) opens at once, with a
notice before it that names the real target; anything else is shown in full and
asked about. Non-ASCII hosts ask too: ``\u0430pple.com`` (a Cyrillic a) reads
as Apple's and is not, so the host is shown as DNS sees it (``xn--…``). A host is
judged as it reads, not as it is spelled: markdown-it hands over every Markdown
link's host already in punycode (``xn--pple-43d.com``), so a label that decodes to
non-ASCII counts as non-ASCII (finding X4: no look-alike was ever asked about).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from shell.core.textsafety import hidden_characters, sanitize_line

if TYPE_CHECKING:  # the line mode's first prompt does not pay for markdown-it
    from markdown_it.token import Token

WEB_SCHEMES = frozenset({"http", "https"})
"""Schemes a click opens with no question (the browser is the one place they go)."""

SHOWN_WIDTH = 2000
"""Characters of a target shown (a ``data:`` URL may be megabytes); the rest is counted."""


@dataclass(frozen=True)
class LinkTarget:
    """A link's target as the user must see it before it opens."""

    href: str
    """The target exactly as the link holds it (what is opened)."""
    shown: str
    """The target made safe to draw: controls, bidi and zero-width characters visible."""
    asks: bool
    """Whether to ask before opening (not a plain http/https address)."""
    reasons: tuple[str, ...]
    """Why it asks, one sentence each (empty when it opens unasked)."""


def link_target(href: str) -> LinkTarget:
    """Decide whether ``href`` opens at a click or is asked about first, and why."""
    shown = sanitize_line(href[:SHOWN_WIDTH])
    if len(href) > SHOWN_WIDTH:
        shown += f" … ({len(href) - SHOWN_WIDTH} more characters)"
    reasons: list[str] = []
    scheme, host = _scheme_and_host(href)
    if scheme not in WEB_SCHEMES:
        what = f'Its scheme is "{sanitize_line(scheme)}:"' if scheme else "It has no scheme"
        reasons.append(f"{what}, not a web address's: it may start another app or reach files.")
    if shown != href[:SHOWN_WIDTH] or hidden_characters(href):
        reasons.append("It holds control or invisible characters (drawn as ␍, \\u… above).")
    if (dns := lookalike_host(href)) is not None:
        reasons.append(
            f"Its host reads as {sanitize_line(_readable_host(host))}, which is not plain ASCII "
            f"(it may imitate another): DNS sees {dns}."
        )
    return LinkTarget(href=href, shown=shown, asks=bool(reasons), reasons=tuple(reasons))


def unlink_asking(tokens: Iterable[Token]) -> None:
    """Empty the target of each link (nested ones too) that :func:`link_target` would ask
    about, in place: where no question can be put (the line mode's OSC 8 hyperlinks,
    which the terminal opens at a Ctrl+click), such a link is text, not a link. Its
    target still shows after its text (:func:`shell.frontend.markdown.show_link_targets`),
    or is its text."""
    for token in tokens:
        if token.type == "link_open" and link_target(str(token.attrs.get("href", ""))).asks:
            token.attrs["href"] = ""
        if token.children:
            unlink_asking(token.children)


def lookalike_host(href: str) -> str | None:
    """The host of ``href`` as DNS sees it (``xn--…``, sanitised) when it reads as
    non-ASCII, spelled so (``\u0430pple.com``) or in punycode (``xn--pple-43d.com``);
    None for a plain ASCII host or none. A punycode label that decodes to nothing
    valid reads as nothing anyone can check: it counts too."""
    _, host = _scheme_and_host(href)
    if not host:
        return None
    if not host.isascii():
        return _dns_name(host)
    if any(_decoded_label(label) != label for label in host.split(".")):
        return sanitize_line(host)
    return None


def _decoded_label(label: str) -> str:
    """An ASCII host label as it reads: a punycode one (``xn--…``) decoded; one that
    does not decode comes back marked (never equal to ``label``)."""
    if not label.lower().startswith("xn--"):
        return label
    try:
        return label[4:].encode("ascii").decode("punycode")
    except (UnicodeError, ValueError):
        return f"{label} (no valid name)"


def _readable_host(host: str) -> str:
    """``host`` as a reader sees it: its punycode labels decoded."""
    return ".".join(_decoded_label(label) for label in host.split("."))


_INLINE_TARGET = re.compile(r"\]\((<[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)")
"""``](target`` of an inline link (or an image, whose ``!`` the image defuser escaped)."""
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)")
"""An autolink's start (its ``>`` need not have come: ``&lt;`` draws as ``<`` either way)."""
_DEFINITION = re.compile(r"\]:([ \t]*\n?[ \t]*)(<[^<>\n]*>|\S+)")
"""``]: target`` of a link reference definition (the target may be on the next line)."""
_BARE_WEB = re.compile(r"(?<![\w/\\])(https?)(:)(//[^\s/?#<>()\[\]`]+)", re.IGNORECASE)
"""A bare web address, which GFM renderers link by themselves: only its host is judged."""

HOST_HOLD = 300
"""Characters of a web address's host held back while it is written (a DNS name has
at most 253); past them its start is judged."""
_SCHEME_SO_FAR = r"(?:[A-Za-z][A-Za-z0-9+.-]{0,31})?"
_WEB_HOST_SO_FAR = r"https?:/{0,2}[^\s/?#<>()\[\]`\\]{0," + str(HOST_HOLD) + "}"
LINK_HOLD = re.compile(
    r"(?:\](?:\(<?)?|\]:[ \t]*\n?[ \t]*|<)(?:" + _WEB_HOST_SO_FAR + "|" + _SCHEME_SO_FAR + r")\Z"
    r"|(?<![\w/\\])(?:" + _WEB_HOST_SO_FAR + r"|h(?:t(?:t(?:ps?)?)?)?)\Z",
    re.IGNORECASE,
)
"""The end of a streamed piece :func:`defuse_links` cannot judge yet: a link's target
(or an autolink's, a definition's) whose scheme, or a web address's host, is still
being written. It is short: the editor is sent the text as it comes, and on a cancel
the history keeps what it was sent."""


def defuse_links(text: str) -> str:
    """``text`` (Markdown an editor renders, outside fenced code) with each link that
    :func:`link_target` would ask about made text, for where no question can be put
    before the renderer opens it (an ACP editor opens a clicked link of any scheme
    through the OS: finding X10). ``](`` becomes ``]\\(``, an autolink's ``<`` is
    ``&lt;``, a definition's ``]:`` is ``]\\:``, and a web address whose host reads as
    non-ASCII has its ``:`` escaped, which no renderer links. Backslashes, not code
    spans: the text may sit in a code span (it then shows the backslash) whose
    backticks must stay paired. Plain web links to ordinary hosts stay links."""
    if "](" in text:
        text = _INLINE_TARGET.sub(_inline_target, text)
    if "<" in text:
        text = _AUTOLINK.sub(_autolink, text)
    if "]:" in text:
        text = _DEFINITION.sub(_definition, text)
    if "://" in text:
        text = _BARE_WEB.sub(_bare_web, text)
    return text


def _inline_target(m: re.Match[str]) -> str:
    return "]\\(" + m.group(1) if _asks(m.group(1)) else m.group(0)


def _autolink(m: re.Match[str]) -> str:
    return "&lt;" + m.group(0)[1:] if _asks(m.group(1)) else m.group(0)


def _definition(m: re.Match[str]) -> str:
    return f"]\\:{m.group(1)}{m.group(2)}" if _asks(m.group(2)) else m.group(0)


def _bare_web(m: re.Match[str]) -> str:
    return f"{m.group(1)}\\:{m.group(3)}" if lookalike_host(m.group(0)) is not None else m.group(0)


def _asks(written: str) -> bool:
    """Whether the target as written in Markdown (angle brackets, backslash escapes,
    entities: ``&#x66;ile:`` is ``file:``) is one :func:`link_target` asks about."""
    from markdown_it.common.utils import unescapeAll

    if written.startswith("<") and written.endswith(">"):
        written = written[1:-1]
    return link_target(unescapeAll(written)).asks


def _scheme_and_host(href: str) -> tuple[str, str]:
    """The scheme (lower case, "" when none or unreadable) and the host of ``href``."""
    try:
        parts = urlsplit(href.strip())
        return parts.scheme.lower(), parts.hostname or ""
    except ValueError:  # e.g. an unbalanced "[" in the host
        return "", ""


def _dns_name(host: str) -> str:
    """``host`` as DNS sees it (IDNA, ``xn--…``), or marked unreadable."""
    try:
        return sanitize_line(host.encode("idna").decode("ascii"))
    except UnicodeError:
        return "no valid name (it cannot be looked up as written)"


__all__ = [
    "LINK_HOLD", "SHOWN_WIDTH", "WEB_SCHEMES", "LinkTarget", "defuse_links", "link_target", "lookalike_host",
    "unlink_asking",
]
