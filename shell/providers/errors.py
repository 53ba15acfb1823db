"""What a server's failure says, in words a user can act on.

One place reads error answers for every HTTP provider, because the same servers
sit behind all of them (llama.cpp, vLLM, LiteLLM, Ollama, the hosted APIs):

* :func:`error_message_from_body`: the server's own message from an error body
  (``error.message``, ``error`` as a string, ``detail``, ``message``, or the text),
  shortened around its *key sentence* rather than cut blindly: a validation error
  is boiled down to the field and the complaint (llama-cpp-python's 500 lists ten
  union branches before the one that matters; LiteLLM wraps it twice more).
* :func:`request_problem`: whether an error body says the *request* is wrong (a
  validation error, a context overflow, an unsupported option). Servers answer
  these with a 500 as often as a 400; retrying them only makes the user wait.
* :func:`describe_transport_error`: an ``httpx`` transport failure in words
  (``ReadError()`` has no text of its own: "Could not connect … ()" said nothing).
* :func:`describe_html`: a web page where an API answer was expected.

Every string here comes from a server and is hostile: the callers sanitise it
before any terminal sees it, and the lengths are bounded here.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

import httpx

MAX_DETAIL = 600
"""Characters of a server's message kept in an error (the key sentence is kept whole)."""

_VALIDATION_LINE = re.compile(r"^\s*(\{'type': .*\})\s*$")
_CONTEXT = re.compile(
    r"context (length|window|size)|maximum context|exceeds? (the )?(context|max)|too many tokens"
    r"|prompt is too long|n_ctx|requested tokens \(\d+\) exceed",
    re.IGNORECASE,
)
_INVALID = re.compile(
    r"validation errors?|invalid|input should be|must be|is required|field required|not supported"
    r"|unsupported|unknown (parameter|field|argument)|cannot be|bad request",
    re.IGNORECASE,
)
_KEY = re.compile(
    r"error|should|must|invalid|exceed|required|not supported|unsupported|failed", re.IGNORECASE
)


def error_message_from_body(body: bytes) -> str:
    """The server's message from an error body, shortened around its key sentence."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return key_sentence(_strip_html(text))
    return key_sentence(_message_of(data) or text)


def _message_of(data: Any) -> str:
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            for key in ("message", "detail", "type"):
                if err.get(key):
                    return _message_of(err[key]) if not isinstance(err[key], str) else err[key]
            return str(err)
        if isinstance(err, str):
            return err
        for key in ("message", "detail"):
            if data.get(key):
                value = data[key]
                return value if isinstance(value, str) else json.dumps(value)[:2000]
    if isinstance(data, list) and data:
        return "; ".join(_message_of(d) for d in data[:3])
    return str(data)[:2000]


def key_sentence(text: str, limit: int = MAX_DETAIL) -> str:
    """``text`` made short without losing what it says is wrong.

    Pydantic validation dumps become ``messages[1].content: Input should be a valid
    string (got None)``; other long texts keep their first line plus the lines that
    name a problem, cut at ``limit`` characters."""
    validation = summarize_validation(text)
    if validation:
        return validation if len(validation) <= limit else validation[: limit - 1] + "…"
    text = text.strip()
    if len(text) <= limit:
        return text
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return text[: limit - 1] + "…"
    kept = [lines[0]] + [ln for ln in lines[1:] if _KEY.search(ln)]
    out = " … ".join(dict.fromkeys(kept))
    return out if len(out) <= limit else out[: limit - 1] + "…"


def summarize_validation(text: str) -> str:
    """The errors that matter in a pydantic validation dump, or ``""``.

    A message that failed a union of message types is reported once per branch;
    the branches whose ``role`` did not match are noise. What is left is the
    branch the message meant, with its field and complaint."""
    if "validation error" not in text:
        return ""
    found: list[dict[str, Any]] = []
    for line in text.splitlines()[:200]:
        m = _VALIDATION_LINE.match(line)
        if not m or len(m.group(1)) > 20_000:
            continue
        try:
            item = ast.literal_eval(m.group(1))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(item, dict) and isinstance(item.get("loc"), tuple):
            found.append(item)
    if not found:
        return ""
    wrong_branch = {
        _branch(e["loc"]) for e in found if e.get("type") == "literal_error" and e["loc"][-1:] == ("role",)
    }
    relevant = [e for e in found if _branch(e["loc"]) not in wrong_branch] or found
    parts = []
    for e in relevant[:4]:
        where = _where(e["loc"])
        got = e.get("input")
        shown = "" if isinstance(got, (dict, list)) else f" (got {got!r})"[:80]
        parts.append(f"{where}: {e.get('msg', e.get('type'))}{shown}")
    more = f" (and {len(relevant) - 4} more)" if len(relevant) > 4 else ""
    return "invalid request: " + "; ".join(dict.fromkeys(parts)) + more


def _branch(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """The union branch of a location: ('body', 'messages', 1, 'ChatCompletionRequestUserMessage')."""
    for i, part in enumerate(loc):
        if isinstance(part, str) and part[:1].isupper():
            return loc[: i + 1]
    return loc


def _where(loc: tuple[Any, ...]) -> str:
    """``messages[1].content`` from ``('body', 'messages', 1, 'Branch', 'content')``."""
    out = ""
    for part in loc:
        if part == "body" and not out:
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part[:1].isupper():
            continue  # the union branch's class name
        else:
            out += ("." if out else "") + str(part)
    return out or "request"


def request_problem(detail: str) -> str | None:
    """``"context"`` or ``"invalid"`` when the server says the request itself is the
    problem (so retrying the same request cannot help), else ``None``."""
    if _CONTEXT.search(detail):
        return "context"
    if _INVALID.search(detail):
        return "invalid"
    return None


def describe_transport_error(exc: BaseException) -> str:
    """A transport failure in words, never an empty ``()``."""
    said = str(exc).strip()
    if isinstance(exc, httpx.ConnectError):
        lower = said.lower()
        if "refused" in lower or "all connection attempts failed" in lower:
            return "nothing accepted the connection there"
        if "name or service" in lower or "nodename" in lower or "getaddrinfo" in lower:
            return f"the host name does not resolve ({said})"
        return said or "the connection could not be made"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "the server accepted the connection and closed it without answering" + (
            f" ({said})" if said and "without sending" not in said else ""
        )
    if isinstance(exc, (httpx.ReadError, httpx.WriteError)):
        return "the server accepted the connection and then reset it" + (f" ({said})" if said else "")
    return f"{type(exc).__name__}: {said}" if said else type(exc).__name__


_TITLE = re.compile(rb"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def describe_html(head: bytes) -> str:
    """``a web page ("Title")`` from the first bytes of an HTML answer."""
    m = _TITLE.search(head)
    if m:
        title = " ".join(m.group(1).decode("utf-8", "replace").split())[:80]
        if title:
            return f'a web page ("{title}")'
    return "a web page (HTML)"


def looks_like_html(head: bytes) -> bool:
    start = head.lstrip()[:15].lower()
    return start.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))


def _strip_html(text: str) -> str:
    if not looks_like_html(text.encode("utf-8", "replace")[:64]):
        return text
    title = describe_html(text.encode("utf-8", "replace")[:4096])
    return f"(an HTML page: {title})"
