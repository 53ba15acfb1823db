"""What an HTTP provider says when a call fails: one :class:`~shell.core.model.ModelError`
per kind of failure, each saying what happened and what to do.

Kept apart from the machinery that finds the failure (:mod:`shell.providers.base`) so
the wording of every message is in one place, and a provider that words one
otherwise (Ollama's "is the server running?", its 404 for a model not pulled)
overrides that method alone. No message shows a credential: the base URL is shown
as :attr:`FailureMessages.shown_url` (masked).
"""

from __future__ import annotations

from collections.abc import Mapping

from shell.config import join_url
from shell.core.model import ModelError
from shell.core.secrets import redact

from .errors import describe_html, looks_like_html, request_problem
from .retry_after import retry_after_seconds
from .sse import MalformedLine
from .wire import Wire


class FailureMessages:
    """The failure messages of :class:`~shell.providers.base.HTTPProvider`, from what
    a provider is (its label, URL, where its key comes from)."""

    provider = "http"
    label = "HTTP"
    """The provider's name for people, as it appears in messages."""
    base_url_env = ""
    path = ""
    name: str
    base_url: str
    api_key: str | None
    api_key_env: str | None
    max_wait: float

    @property
    def shown_url(self) -> str:
        """The base URL as messages show it: credentials and key parameters masked."""
        return redact(self.base_url)

    @property
    def url(self) -> str:
        """The endpoint one call goes to (the base URL and the provider's path)."""
        return join_url(self.base_url, self.path)

    def malformed(self, exc: MalformedLine) -> ModelError:
        """A line that is not a chat event: a web page (a wrong base URL) is called one."""
        line = exc.line.lstrip()
        if line.startswith("<"):
            what = describe_html(line[:4096].encode("utf-8", "replace"))
            return ModelError(
                f"{self.label} at {self.shown_url} answered with {what}, not a stream of chat events. "
                "Check the base URL (OpenAI-compatible servers usually end in /v1).",
                provider=self.provider,
            )
        return ModelError(
            f"{self.label} sent a line that {exc.problem}: {exc.line[:120]!r}. "
            f"Is {self.shown_url} really an {self.label}-compatible endpoint?",
            provider=self.provider,
        )

    def misshapen(self, what: str, value: str) -> ModelError:
        """A stream event that is JSON but not of the shape the API sends."""
        return ModelError(
            f"{self.label} sent {what} ({value}), which its API never does; the reply was stopped "
            f"there (the text so far is kept). Is {self.shown_url} really an {self.label}-compatible "
            "endpoint? Try again; if it keeps happening, the server (or the proxy before it) is broken.",
            provider=self.provider,
        )

    def ended_early(self, wire: Wire, *, sse: bool = False) -> ModelError:
        """The stream ended before the reply did: with nothing at all, or midway.
        ``sse``: the API streams server-sent events, so a body with no event line in
        its first bytes was never a stream (a proxy's or a broken server's JSON); it was
        called a dropped connection, sending the user to retry what cannot work (T7)."""
        if looks_like_html(wire.head):
            return ModelError(
                f"{self.label} at {self.shown_url} answered with {describe_html(wire.head)}, not a stream "
                "of chat events. Check the base URL (OpenAI-compatible servers usually end in /v1).",
                provider=self.provider,
            )
        if wire.received == 0:
            # Not called a context overflow: the server did not say so, and a three-word
            # message got the overflow's advice to shorten it (finding B7).
            return ModelError(
                f"{self.label} accepted the request (HTTP 200) but ended the stream without sending "
                "anything. It did not say why; servers do this when they cannot handle what was asked: "
                "a conversation longer than the model's context window, or a tool choice they "
                "cannot stream (llama-cpp-python's chatml-function-calling cannot stream tool_choice "
                "\"auto\"); the server's log says which. If the conversation is long: /compact or "
                "/clear, or raise the server's context size (llama.cpp: --n_ctx / -c).",
                provider=self.provider,
            )
        if sse and not _has_event_line(wire.head):
            kind = wire.response.headers.get("content-type", "no content type")
            start = redact(wire.head[:120].decode("utf-8", "replace"))
            return ModelError(
                f"{self.label} at {self.shown_url} answered "
                f"(HTTP {wire.response.status_code}, {kind[:60]!r}) "
                f"with something that is not a stream of chat events: {start!r}. Is {self.shown_url} "
                f"really an {self.label}-compatible endpoint? (Retrying will not help.)",
                provider=self.provider,
            )
        return self.dropped()

    def dropped(self) -> ModelError:
        """The connection went midway: retryable, and the text so far stays."""
        return ModelError(
            f"The connection to {self.label} dropped in the middle of the reply; "
            "the text so far is kept. Try again.",
            provider=self.provider,
            retryable=True,
        )

    def silent_after_tools(self) -> str:
        """A notice, not an error: models do end a turn silently after tool results."""
        return (
            f"{self.label} ended its turn without a word after the tool results (the calls above ran). "
            "If you expected more, ask it to go on. Behind a proxy such as LiteLLM this can also be a "
            "failure of the server behind it: its log says."
        )

    def empty_reply(self) -> ModelError:
        """A clean end with nothing said: an error (proxies answer failures this way),
        never a silent empty answer."""
        return ModelError(
            f"{self.label} ended its reply without any text or tool call. Proxies such as LiteLLM "
            "answer this way when the model server behind them failed: often a conversation longer "
            "than the model's context window, or a request that server could not handle. Check the "
            "proxy's and the server's logs; /compact or /clear makes the conversation shorter.",
            provider=self.provider,
            context_overflow=True,
        )

    def where_hint(self) -> str:
        """Where to look when the server cannot be reached."""
        if self.base_url_env:
            return f"Is the server running? The address comes from {self.base_url_env} or the config."
        return "Is the server running and the base URL right?"

    def key_hint(self) -> str:
        """Where the API key came from, when the server refuses it."""
        if self.api_key_env:
            state = "" if self.api_key else " (it is not set)"
            return f"Check the API key in {self.api_key_env}{state}."
        return "Check the API key in the config ([providers] api_key_env)."

    def http_error(
        self, status: int, detail: str, retries: int, headers: Mapping[str, str] | None = None
    ) -> ModelError:
        """An HTTP error answer (after the retries, if any): what the status means for
        the user (the key, the model name, the context window, a server fault) and
        whether trying again can help."""
        said = f": {detail}" if detail else ""
        label, p = self.label, self.provider
        if status in (401, 403):
            msg = f"{label} refused the request (HTTP {status}{said}). {self.key_hint()}"
            return ModelError(msg, status=status, provider=p)
        if status == 404:
            msg = (
                f"{label} answered 404 Not Found for model '{self.name}' at {redact(self.url)}{said}. "
                f"Check the model name (agent-shell models) and the base URL"
                f"{' (' + self.base_url_env + ')' if self.base_url_env else ''}."
            )
            return ModelError(msg, status=status, provider=p)
        after = f" after {retries} retries" if retries else ""
        if status == 429:
            wait = retry_after_seconds(headers or {})
            asks = f" (it asks to wait {wait:.0f}s)" if wait and wait > self.max_wait else ""
            msg = f"{label} is rate limiting (HTTP 429{said}){after}{asks}. Wait a moment and try again."
            return ModelError(msg, status=status, provider=p, retryable=True)
        problem = request_problem(detail)
        if problem == "context":
            msg = (
                f"{label} says the conversation does not fit the model's context window "
                f"(HTTP {status}{said}). /compact, /clear, turn on Summarization, or raise the server's "
                "context size."
            )
            return ModelError(msg, status=status, provider=p, context_overflow=True)
        if status >= 500 and problem == "invalid":
            msg = (
                f"{label} could not handle the request (HTTP {status}{said}). This is not a temporary "
                "fault, so it was not retried; the server's log may say more. If the request looks "
                "right, report it with this message."
            )
            return ModelError(msg, status=status, provider=p)
        if status >= 500:
            msg = f"{label} had a server error (HTTP {status}{said}){after}. Try again later."
            return ModelError(msg, status=status, provider=p, retryable=True)
        return ModelError(f"{label} rejected the request (HTTP {status}{said}).", status=status, provider=p)


_SSE_FIELDS = (b"data:", b"event:", b"id:", b"retry:", b":", b"data", b"event")


def _has_event_line(head: bytes) -> bool:
    """Whether the first bytes hold a server-sent-events line (a field or a comment)."""
    return any(line.lstrip(b"\xef\xbb\xbf").startswith(_SSE_FIELDS) for line in head.splitlines())
