"""What a click on a link may open, and how its target is shown: the one policy.

A link in a reply, a tool's output or a command result was written by a model, a
tool or a file: hostile until proven otherwise. A click used to open any scheme
markdown-it lets through (findings 15): ``vscode://vscode.git/clone?url=…`` clones
a repository, ``ssh://``, ``smb://`` and ``file://`` reach hosts and files, a
custom scheme starts whatever app registered it. So only a plain web address
(http/https, its host in ASCII, nothing hidden in it) opens at once, with a
notice before it that names the real target; anything else is shown in full and
asked about. Non-ASCII hosts ask too: ``\u0430pple.com`` (a Cyrillic a) reads
as Apple's and is not, so the host is shown as DNS sees it (``xn--…``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from markdown_it.token import Token

from shell.core.textsafety import hidden_characters, sanitize_line

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
    if host and not host.isascii():
        reasons.append(f"Its host is not plain ASCII (it may imitate another): DNS sees {_dns_name(host)}.")
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


__all__ = ["SHOWN_WIDTH", "WEB_SCHEMES", "LinkTarget", "link_target", "unlink_asking"]
