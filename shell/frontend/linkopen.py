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


_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)")
"""An autolink's start (its ``>`` need not have come: ``&lt;`` draws as ``<`` either way)."""
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


def defuse_links(text: str, before: str = "") -> str:
    """``text`` (Markdown an editor renders, outside fenced code) with each link that
    :func:`link_target` would ask about made text, for where no question can be put
    before the renderer opens it (an ACP editor opens a clicked link of any scheme
    through the OS: finding X10). ``](`` becomes ``]\\(``, an autolink's ``<`` is
    ``&lt;``, a definition's ``]:`` is ``]\\:``, and a web address whose host reads as
    non-ASCII has its ``:`` escaped, which no renderer links. Backslashes, not code
    spans: the text may sit in a code span (it then shows the backslash) whose
    backticks must stay paired. Plain web links to ordinary hosts stay links.

    A link whose text reads as another web address than its target
    (``[https://bank.example](https://evil.example/)``) is made text too: the TUI and
    the line mode show the target after such a text, an editor shows only the text.
    ``before``: what came just before ``text`` in the same message (a link's text may
    have been sent in an earlier piece than its target: :class:`LinkDefuser`)."""
    if "]" in text:
        text = _BRACKET_END.sub(lambda m: _bracket_end(m, before), text)
    if "<" in text:
        text = _AUTOLINK.sub(_autolink, text)
    if "://" in text:
        text = _BARE_WEB.sub(_bare_web, text)
    return text


class LinkDefuser:
    """:func:`defuse_links` over the pieces of one message, each judged with the text
    that came before it: a link's text and its target may come in different pieces,
    and a whole message must come out as it does cut anywhere."""

    __slots__ = ("_before",)

    def __init__(self) -> None:
        self._before = ""

    def __call__(self, piece: str) -> str:
        out = defuse_links(piece, self._before)
        self._before = (self._before + piece)[-TEXT_LOOKBACK:]
        return out


TEXT_LOOKBACK = 1000
"""Characters before a link's ``]`` searched for its text's ``[`` (a longer text is
judged by these last characters alone)."""
_BRACKET_END = re.compile(
    r"\](?:\((?P<inline><[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
    r"|:(?P<gap>[ \t]*\n?[ \t]*)(?P<defined><[^<>\n]*>|\S+)"
    r"|(?P<reference>\[))"
)
"""Where a link's text ends and says where it goes: ``](target`` (an inline link, or
an image whose ``!`` the image defuser escaped), ``]: target`` (a definition, the
target maybe on the next line) or ``][`` (a full reference ``[text][label]``, its
target defined elsewhere). One pass, so each is judged on the text as written."""
_WEB_IN_TEXT = re.compile(r"(?<![\w.@-])(?:https?://|www\.)[^\s/?#<>()\[\]`*~\\|\"']*", re.IGNORECASE)
"""A web address in a link's text, as a reader takes it (GFM links ``www.`` too): up to its host's end."""


def _bracket_end(m: re.Match[str], before: str) -> str:
    """``m`` made text (its ``(``, ``:`` or ``[`` escaped) when the target is one
    :func:`link_target` asks about or the link's text reads as another web address;
    a full reference's text reading as any web address is enough (its target is
    defined elsewhere, maybe in a later piece)."""
    start = m.start()
    text = _link_text((before + m.string[max(0, start - TEXT_LOOKBACK) : start])[-TEXT_LOOKBACK:])
    if m.group("reference") is not None:
        return "]\\[" if text is None or web_hosts_in(text) else m.group(0)
    written = m.group("inline") if m.group("inline") is not None else m.group("defined")
    if text is not None and not _asks(written) and text_misleads(text, _unescaped(written)) is None:
        return m.group(0)
    if m.group("inline") is not None:
        return "]\\(" + written
    return f"]\\:{m.group('gap')}{written}"


def _autolink(m: re.Match[str]) -> str:
    return "&lt;" + m.group(0)[1:] if _asks(m.group(1)) else m.group(0)


def text_misleads(text: str, href: str) -> str | None:
    """The host a link's shown ``text`` reads as when it names a web address whose
    host is not ``href``'s (``[https://bank.example](https://evil.example/)``);
    None when it names none or only the target's own host. ``www.`` and case aside."""
    target = _same_host(_scheme_and_host(href)[1])
    for host in web_hosts_in(text):
        if _same_host(host) != target or not target:
            return sanitize_line(host)
    return None


def web_hosts_in(text: str) -> list[str]:
    """The hosts of the web addresses ``text`` reads as naming (``https://…``, ``www.…``)."""
    hosts = []
    for m in _WEB_IN_TEXT.finditer(text):
        address = m.group(0)
        _, host = _scheme_and_host(address if "://" in address else "http://" + address)
        hosts.append(host.strip("_") or address)  # (``__https://x__`` is emphasis)
    return hosts


def _same_host(host: str) -> str:
    """``host`` as two spellings of one host compare: lower case, no final dot or
    ``www.``, as DNS sees it."""
    host = host.lower().rstrip(".").removeprefix("www.")
    return _dns_name(host) if host else ""


def _link_text(before: str) -> str | None:
    """The text of the link whose ``]`` ends ``before`` (its last :data:`TEXT_LOOKBACK`
    characters), as it reads: from its ``[`` (brackets inside it balanced, never across
    a blank line), with Markdown escapes and entities undone and emphasis and code
    marks dropped. With no ``[`` in reach, all of ``before`` after its last blank line;
    None when that is all :data:`TEXT_LOOKBACK` characters (a longer text, as spaces
    after ``[https://bank.example`` make it, cannot be judged: not a link)."""
    from markdown_it.common.utils import unescapeAll

    blank = before.rfind("\n\n")
    reach = before[blank + 1 :]
    depth = 0
    start = 0 if blank >= 0 or len(before) < TEXT_LOOKBACK else -1
    for i in range(len(reach) - 1, -1, -1):
        ch = reach[i]
        if ch not in "[]" or _escaped(reach, i):
            continue
        if ch == "]":
            depth += 1
        elif depth:
            depth -= 1
        else:
            start = i + 1
            break
    if start < 0:
        return None
    return unescapeAll(reach[start:]).replace("*", "").replace("`", "").replace("~", "")


def _escaped(text: str, i: int) -> bool:
    """Whether the character at ``i`` is escaped (an odd run of backslashes before it)."""
    j = i
    while j > 0 and text[j - 1] == "\\":
        j -= 1
    return (i - j) % 2 == 1


def _unescaped(written: str) -> str:
    from markdown_it.common.utils import unescapeAll

    if written.startswith("<") and written.endswith(">"):
        written = written[1:-1]
    return unescapeAll(written)


def _bare_web(m: re.Match[str]) -> str:
    return f"{m.group(1)}\\:{m.group(3)}" if lookalike_host(m.group(0)) is not None else m.group(0)


def _asks(written: str) -> bool:
    """Whether the target as written in Markdown (angle brackets, backslash escapes,
    entities: ``&#x66;ile:`` is ``file:``) is one :func:`link_target` asks about."""
    return link_target(_unescaped(written)).asks


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
    "LINK_HOLD", "SHOWN_WIDTH", "TEXT_LOOKBACK", "WEB_SCHEMES", "LinkDefuser", "LinkTarget", "defuse_links",
    "link_target", "lookalike_host", "text_misleads", "unlink_asking", "web_hosts_in",
]
