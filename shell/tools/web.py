"""``fetch_url``: a web page as readable text, within a size budget.

HTML is turned into text with the standard library's ``html.parser`` (no extra
dependency): scripts, styles and other invisible parts are dropped, block elements
become line breaks, headings and list items keep a Markdown-like marker, links keep
their target. The download stops at a byte cap and the text at a character cap,
and the result says when either cut.

Every connection, the first and each redirect's, goes through a
:class:`~shell.permissions.network.NetworkGuard`: loopback, private, link-local
and metadata addresses are refused after DNS resolution unless a rule names the
host, and the checked address is the one connected to.

Redirects are followed only within the host the call named (``http`` to ``https``, a
new path or port): the permission rules and the user's approval judged that host, and
an open redirect on it must not carry the request (query string and all) to another
one. A redirect elsewhere ends the call with the target named, so the model can ask
for it as a new ``fetch_url`` call, which the rules judge (or the user is asked) anew.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlparse

from shell.core.messages import ToolResult
from shell.permissions.network import BlockedAddress, NetworkGuard

if TYPE_CHECKING:
    import httpx

MAX_DOWNLOAD_BYTES = 5 * 1024 * 1024
MAX_TEXT_CHARS = 100_000
TIMEOUT = 30.0
MAX_REDIRECTS = 10
USER_AGENT = "agent-shell (fetch_url)"

class FetchError(Exception):
    """The URL could not be fetched; the message says why and what to try."""


def html_to_text(html: str, base_url: str = "") -> str:
    """The readable text of an HTML document (:mod:`.htmltext`, imported when a page
    is first fetched: ``html.parser`` and its regular expressions are not on the way
    to the shell's first screen)."""
    from .htmltext import TextExtractor

    parser = TextExtractor(base_url)
    parser.feed(html)
    parser.close()
    return parser.text()


async def fetch(url: str, *, guard: NetworkGuard | None = None) -> ToolResult:
    """Download ``url`` (http or https) and return its text; ``guard`` decides which
    addresses may be reached (default: public ones only)."""
    import httpx  # here, not at the top: ~80 ms of start-up the shell need not pay

    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise FetchError(f"{url!r} is not an http(s) URL; give a full URL such as https://example.com/page.")
    guard = guard if guard is not None else NetworkGuard()
    http = httpx.AsyncClient(
        transport=guard.async_transport(),
        follow_redirects=False,
        timeout=TIMEOUT,
        headers={"User-Agent": USER_AGENT},
        trust_env=False,
    )
    try:
        request = http.build_request("GET", url)
        for _ in range(MAX_REDIRECTS + 1):
            response = await http.send(request, stream=True)
            target = response.next_request if response.is_redirect else None
            if target is None:
                break
            await response.aclose()
            if not same_host(url, str(target.url)):
                return _elsewhere(url, str(request.url), str(target.url), response.status_code)
            request = target
        else:
            raise httpx.TooManyRedirects("too many redirects", request=request)
        try:
            body, cut = await _read(response)
        finally:
            await response.aclose()
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        encoding = response.encoding or "utf-8"
        status = response.status_code
        final_url = str(response.url)
    except BlockedAddress as exc:
        raise FetchError(f"Could not fetch {url}: {exc}") from None
    except httpx.TooManyRedirects:
        raise FetchError(f"Could not fetch {url}: more than {MAX_REDIRECTS} redirects.") from None
    except (httpx.HTTPError, OSError) as exc:
        raise FetchError(f"Could not fetch {url}: {type(exc).__name__}: {exc or 'no detail'}.") from None
    finally:
        await http.aclose()
    return _as_result(body, media, encoding, status, final_url, cut)


async def _read(response: httpx.Response) -> tuple[bytes, bool]:
    """The body up to :data:`MAX_DOWNLOAD_BYTES`, and whether it was cut there."""
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body.extend(chunk)
        if len(body) > MAX_DOWNLOAD_BYTES:
            del body[MAX_DOWNLOAD_BYTES:]
            return bytes(body), True
    return bytes(body), False


def same_host(first: str, then: str) -> bool:
    """Whether a redirect to ``then`` stays on the host the call named in ``first``
    (scheme and port may change; ``www.`` or a subdomain is another host)."""
    def host(url: str) -> str:
        return (urlparse(url).hostname or "").rstrip(".").lower()

    return host(first) == host(then)


def _elsewhere(url: str, at: str, target: str, status: int) -> ToolResult:
    text = (
        f"{at} redirected ({status}) to another host: {target}\n\n"
        "fetch_url follows redirects only within the host asked for "
        f"({urlparse(url).hostname}). To read the target, call fetch_url with that URL; "
        "the permission rules judge it (or the user is asked) like any other."
    )
    details = {"url": at, "status": status, "redirect_to": target, "bytes": 0}
    return ToolResult(text, details=details)


def _as_result(body: bytes, media: str, encoding: str, status: int, url: str, cut: bool) -> ToolResult:
    textual = (
        media.startswith("text/")
        or media in ("", "application/json", "application/xml")
        or (media.endswith(("+json", "+xml")) or media == "application/javascript")
    )
    details = {"url": url, "status": status, "content_type": media, "bytes": len(body)}
    if not textual:
        return ToolResult(
            f"{url} returned {media} content ({len(body)} bytes), which fetch_url does not show as text.",
            is_error=status >= 400,
            details=details,
        )
    try:
        text = body.decode(encoding, errors="replace")
    except LookupError:
        text = body.decode("utf-8", errors="replace")
    if media in ("text/html", "application/xhtml+xml") or (not media and "<html" in text[:2048].lower()):
        text = html_to_text(text, url)
    notes = []
    if cut:
        notes.append(f"download stopped at {MAX_DOWNLOAD_BYTES} bytes")
    if len(text) > MAX_TEXT_CHARS:
        notes.append(f"text cut at {MAX_TEXT_CHARS} of {len(text)} characters")
        text = text[:MAX_TEXT_CHARS]
    header = f"{url} ({status}, {media or 'unknown type'})"
    if status >= 400:
        header = f"HTTP {status} from {url}: the request failed"
    body_text = f"{header}\n\n{text}"
    if notes:
        body_text += f"\n\n[{'; '.join(notes)}]"
    return ToolResult(body_text, is_error=status >= 400, details=details)
