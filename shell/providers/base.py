"""What every HTTP provider shares: the client, retries, errors as data, cancellation.

A provider subclass says how to build the request body (``build_body``) and how
to turn the response bytes into chunks (``parse``); this class does the rest:

* **Retries.** 429 and 5xx (and Anthropic's 529) are retried here, by the provider,
  with exponential backoff that honours ``Retry-After`` / ``retry-after-ms``;
  at most ``max_retries`` times (default 3) and never more than ``max_wait``
  seconds in total (default 60). A server that asks for a longer wait gets an
  error at once instead of a frozen shell. Only the opening of a stream is
  retried: once a chunk has reached the caller, retrying would duplicate text.
* **Notices.** Each retry is reported as one line of text through a hook, so the
  user sees why nothing is happening. The hook is looked up per call:
  ``request.options["on_notice"]`` (a ``Callable[[str], None]``; a middleware
  can point it at ``ctx.emit``) wins over the ``on_notice`` given to the
  constructor (or assigned later as the ``on_notice`` attribute).
* **Errors as data.** Every failure is a :class:`~shell.core.model.ModelError`
  with ``status``, ``retryable``, ``provider`` and a message that says what to do
  (which environment variable the key came from, which URL was asked, ...).
* **Cancellation.** The response is opened inside the generator and closed in a
  ``finally`` shielded from cancellation, so a cancelled task or a consumer that
  closes the generator (``aclosing``) drops the HTTP stream at once.
* **A stream that dies** mid-reply raises ``ModelError`` *after* the chunks already
  yielded, so the loop keeps the text so far. A stream that ends having sent
  *nothing* is a different failure ("200, then no body": llama-cpp-python does it
  for a prompt longer than its context) and is named as such; so is a reply that
  ends cleanly with no text and no tool call (LiteLLM turns upstream failures into
  those): an error, never a silent empty answer.
* **Bounds.** A reply may not exceed ``max_reply_bytes`` on the wire, a line
  ``max_line_bytes``, an error body ``max_error_bytes`` (the rest is not read); a
  stream that sends only keep-alives for ``idle_timeout`` seconds is ended. Each
  says which bound and what to do. Between network chunks the stream checks for
  cancellation, so ``agent.cancel()`` ends even a provider that floods at once.
* **Hostile servers.** A 200 answer that is a web page is called one (the base
  URL is wrong), not "connection dropped"; ``Retry-After: nan`` or garbage falls
  back to our own backoff instead of retrying at once; credentials in the base
  URL (``user:password@``, ``?api-key=``) never appear in a message.
"""

from __future__ import annotations

import abc
import asyncio
import logging
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import anyio
import anyio.lowlevel
import httpx

from shell.core.messages import ToolResultMessage, UserMessage
from shell.core.model import (
    ModelChunk,
    ModelError,
    ModelRequest,
    StopChunk,
    report_notice,
)
from shell.core.secrets import redact
from shell.core.textsafety import utf8_json
from shell.core.tools import Tool

from .connections import drop_connection
from .errors import (
    describe_html,
    describe_transport_error,
    error_message_from_body,
    request_problem,
)
from .failure_messages import FailureMessages
from .retry_after import retry_delay
from .sse import MAX_LINE, MalformedField, MalformedLine, StreamIdle, StreamLimit
from .tool_cap import capped, left_out_notice
from .wire import MAX_REPLY_BYTES, Wire, says_something

NoticeHook = Callable[[str], None]

DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_READ_TIMEOUT = 120.0
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
MAX_ERROR_BYTES = 64 * 1024
"""Bytes of an error body read: messages are short; a 300 MB error page is not read."""


class EmptyReply(Exception):
    """The stream ended cleanly with neither text nor a tool call."""


log = logging.getLogger("agent_shell.providers")


class HTTPProvider(FailureMessages, abc.ABC):
    """Base of the OpenAI, Anthropic and Ollama providers (not used on its own); what
    it says when a call fails is :class:`FailureMessages`'."""

    default_base_url = ""
    max_tools: int | None = None
    """The most tools the API takes in one request (None: no limit); see
    :meth:`offered_tools`."""
    _told_left_out: frozenset[str] = frozenset()
    _told_unoffered_choice: str | None = None

    def __init__(
        self,
        name: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
        headers: Mapping[str, str] | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        max_retries: int = 3,
        max_wait: float = 60.0,
        backoff: float = 0.5,
        on_notice: NoticeHook | None = None,
        client: httpx.AsyncClient | None = None,
        options: Mapping[str, Any] | None = None,
        idle_timeout: float | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
        max_line_bytes: int = MAX_LINE,
        max_error_bytes: int = MAX_ERROR_BYTES,
    ) -> None:
        """``api_key_env`` names where the key was read from (for error messages);
        ``client`` lets tests inject an ``httpx.AsyncClient`` (e.g. on a MockTransport);
        ``options`` are defaults merged under each request's own ``options``;
        ``idle_timeout`` (default: the read timeout) bounds a stream of keep-alives."""
        self.name = name
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self.api_key = api_key
        self.api_key_env = api_key_env
        self.headers = dict(headers or {})
        self.timeout = httpx.Timeout(connect_timeout, read=read_timeout, write=30.0, pool=connect_timeout)
        self.read_timeout = read_timeout
        self.max_retries = max_retries
        self.max_wait = max_wait
        self.backoff = backoff
        self.on_notice = on_notice
        self.options = dict(options or {})
        self.idle_timeout = read_timeout if idle_timeout is None else idle_timeout
        self.max_reply_bytes = max_reply_bytes
        self.max_line_bytes = max_line_bytes
        self.max_error_bytes = max_error_bytes
        self._client = client
        self._owned: tuple[object, httpx.AsyncClient] | None = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.provider}:{self.name} at {self.shown_url}>"

    # -- what subclasses provide ---------------------------------------------------

    def request_headers(self) -> dict[str, str]:
        return {}

    @abc.abstractmethod
    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body of one streaming call in this provider's wire format."""

    @abc.abstractmethod
    def parse(self, wire: Wire) -> AsyncIterator[ModelChunk]:
        """The chunks of one streamed response (an async generator in subclasses),
        read from ``wire`` (its bytes, bounded and cancellable). At a premature
        end, subclasses raise :meth:`ended_early`."""

    def offered_tools(self, request: ModelRequest) -> list[Tool]:
        """The request's tools within :attr:`max_tools` (see :mod:`.tool_cap`); which
        were left out is said once, and again only when that changes."""
        if self.max_tools is None:
            return list(request.tools)
        offered, left_out = capped(request.tools, self.max_tools, self.tool_choice(request))
        names = frozenset(t.name for t in left_out)
        if names and names != self._told_left_out:
            self.notify(request, left_out_notice(self.label, self.max_tools, len(offered), left_out))
        self._told_left_out = names
        return offered

    def tool_choice(self, request: ModelRequest) -> str | None:
        """The request's tool choice, else the provider option ``tool_choice``.

        The option (``[providers.NAME] options = { tool_choice = "get_time" }``) is
        for servers that call tools only when forced (llama-cpp-python with a model
        whose template has no tools): ``auto`` and ``none`` apply to every call; a
        forcing choice (``required`` or a tool name) only to a call that answers the
        user, so after the tool's result the model can answer in words instead of
        calling it again forever."""
        if request.tool_choice is not None:
            return self.offered_choice(request, request.tool_choice)
        forced = {**self.options, **request.options}.get("tool_choice")
        if not isinstance(forced, str) or not forced:
            return None
        if forced in ("auto", "none"):
            return forced
        last = request.messages[-1] if request.messages else None
        return self.offered_choice(request, forced) if isinstance(last, UserMessage) else None

    def offered_choice(self, request: ModelRequest, choice: str) -> str | None:
        """``choice``, or none (the API's default: the model chooses) when it names a
        tool the request does not carry.

        Why: a layer that narrows the tools (LLMToolSelector, a ``transform_context``
        that filters ``ctx.tools``) can remove the very tool the option forces; sent
        as is, llama-cpp-python raised "Tool choice not found in tools" and ended the
        stream empty (finding B7), and other APIs refuse the request. Not ``required``:
        llama-cpp-python's chatml-function-calling fails on it as it does on ``auto``,
        and its other handlers ignore it. Said once per name."""
        if choice in ("auto", "none", "required") or any(t.name == choice for t in request.tools):
            return choice
        if not request.tools:  # no tools, no choice sent (LLMToolSelector's own call): nothing to say
            return None
        if choice != self._told_unoffered_choice:
            self._told_unoffered_choice = choice
            self.notify(
                request,
                f"tool_choice names {choice!r}, which is not among this request's tools "
                f"({len(request.tools)} offered; a middleware such as LLMToolSelector may have left it "
                "out): the request goes without a tool choice, so the model chooses.",
            )
        return None

    def error_detail(self, body: bytes) -> str:
        """The provider's own error message from an error body (a server that echoes
        the URL does not echo its key to the user)."""
        return redact(error_message_from_body(body))

    # -- the shared machinery ------------------------------------------------------

    def client(self) -> httpx.AsyncClient:
        """The injected client, or one owned by this model for the running event loop."""
        if self._client is not None:
            return self._client
        key = _loop_key()
        if self._owned is None or self._owned[0] is not key:
            self._owned = (key, httpx.AsyncClient(timeout=self.timeout))
        return self._owned[1]

    async def aclose(self) -> None:
        if self._owned is not None:
            await self._owned[1].aclose()
            self._owned = None

    def notify(self, request: ModelRequest | None, text: str) -> None:
        hook = request.options.get("on_notice") if request is not None else None
        hook = hook if callable(hook) else self.on_notice
        if hook is not None:
            hook(text)
        elif not report_notice(text):  # inside a reply this becomes a Notice event
            log.warning("%s", text)

    def missing_key(self) -> str | None:
        """The variable to set when this model goes to its provider's own service with
        no key at all: the request went anyway and failed on the connection or a 401
        (finding V12). A gateway, a local server (another base URL) or a key in the
        configured headers is left to answer for itself."""
        if self.api_key or not self.api_key_env or self.base_url != self.default_base_url.rstrip("/"):
            return None
        if any(h.lower() in ("authorization", "x-api-key", "api-key") for h in self.headers):
            return None
        return self.api_key_env

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        unset = self.missing_key()
        if unset is not None:
            raise ModelError(
                f"{unset} is not set, so {self.label} cannot be asked: set it (or api_key_env in "
                "[providers]) and try again, or choose another model with /model.",
                provider=self.provider,
            )
        body = self.build_body(request)
        response = await self.open(request, "POST", self.url, json=body)
        wire = Wire(response, self.max_reply_bytes)
        said = False  # text, thinking or a tool call reached the caller
        after_tools = bool(request.messages) and isinstance(request.messages[-1], ToolResultMessage)
        try:
            async for chunk in self.parse(wire):
                if isinstance(chunk, StopChunk) and not said and chunk.reason == "end_turn":
                    if not after_tools:
                        raise EmptyReply
                    # Models do end a turn silently after tool results (Anthropic documents
                    # it); the calls ran and are shown, so it is an end, said, not an error.
                    self.notify(request, self.silent_after_tools())
                if not said and says_something(chunk):
                    said = True
                yield chunk
        except EmptyReply:
            raise self.empty_reply() from None
        except MalformedLine as exc:
            raise self.malformed(exc) from None
        except MalformedField as exc:
            raise self.misshapen(exc.what, exc.value) from None
        except StreamLimit as exc:
            raise ModelError(
                f"{self.label} sent {exc}; the reply was stopped there (the text so far is kept). "
                f"Is {self.shown_url} a streaming chat API?",
                provider=self.provider,
            ) from None
        except StreamIdle as exc:
            raise ModelError(
                f"{self.label} kept the stream open for {exc.seconds:g}s with keep-alives only "
                "and sent no reply; stopped waiting (the text so far is kept). The server may be "
                "stuck or overloaded; try again, or raise idle_timeout in the config "
                f"([providers.{self.provider}]).",
                provider=self.provider,
                retryable=True,
            ) from None
        except httpx.TimeoutException:
            raise ModelError(
                f"{self.label} stopped sending for {self.read_timeout:g}s in the middle of the reply "
                "(read timeout); the text so far is kept. Try again, or raise the read timeout "
                f"in the config ([providers.{self.provider}] read_timeout).",
                provider=self.provider,
                retryable=True,
            ) from None
        except (httpx.TransportError, httpx.StreamError):
            raise self.ended_early(wire) from None
        except (TypeError, AttributeError, KeyError) as exc:
            # A shape the parser did not foresee: still the server's doing, still said
            # as such (never a bare exception name that ends the reply unexplained).
            raise self.misshapen("an event of a shape it cannot be read in", str(exc)) from None
        finally:
            with anyio.CancelScope(shield=True):
                if sys.exc_info()[0] is not None:  # a reply that went wrong: its connection is not reused
                    await drop_connection(response)
                await response.aclose()

    async def open(
        self, request: ModelRequest | None, method: str, url: str, **kwargs: Any
    ) -> httpx.Response:
        """Send and return the streaming response once it is a 2xx, retrying 429/5xx."""
        client = self.client()
        headers = {**self.request_headers(), **self.headers}
        if "json" in kwargs:  # encoded here: httpx's strict UTF-8 raised on one lone surrogate
            kwargs["content"] = utf8_json(kwargs.pop("json"))
            headers.setdefault("Content-Type", "application/json")
        waited = 0.0
        attempt = 0
        while True:
            req = client.build_request(method, url, headers=headers, timeout=self.timeout, **kwargs)
            try:
                response = await client.send(req, stream=True)
            except httpx.ConnectTimeout:
                raise ModelError(
                    f"Could not connect to {self.label} at {self.shown_url} within "
                    f"{self.timeout.connect:g}s (connect timeout). {self.where_hint()}",
                    provider=self.provider,
                    retryable=True,
                ) from None
            except httpx.TimeoutException:
                raise ModelError(
                    f"{self.label} at {self.shown_url} did not start answering within "
                    f"{self.read_timeout:g}s (read timeout). Try again, or raise read_timeout "
                    f"in the config ([providers.{self.provider}]).",
                    provider=self.provider,
                    retryable=True,
                ) from None
            except httpx.ConnectError as exc:
                raise ModelError(
                    f"Could not connect to {self.label} at {self.shown_url} "
                    f"({describe_transport_error(exc)}). {self.where_hint()}",
                    provider=self.provider,
                    retryable=True,
                ) from None
            except httpx.TransportError as exc:
                raise ModelError(
                    f"{self.label} at {self.shown_url} did not answer: {describe_transport_error(exc)}. "
                    f"Is that address really the {self.label} server, and is it healthy?",
                    provider=self.provider,
                    retryable=True,
                ) from None
            if response.status_code < 400:
                await self.check_content_type(response)
                return response
            body = await self.read_error_body(response)
            status = response.status_code
            detail = self.error_detail(body)
            problem = request_problem(detail) if status >= 500 else None
            if status in RETRY_STATUSES and attempt < self.max_retries and problem is None:
                delay = retry_delay(response.headers, attempt, self.backoff)
                if delay is not None and waited + delay <= self.max_wait:
                    attempt += 1
                    waited += delay
                    what = "rate limited" if status == 429 else "server error"
                    self.notify(
                        request,
                        f"{self.label}: HTTP {status} ({what}); retrying in {delay:.1f}s "
                        f"(attempt {attempt} of {self.max_retries})",
                    )
                    await anyio.sleep(delay)
                    continue
            raise self.http_error(status, detail, attempt, response.headers)

    async def read_error_body(self, response: httpx.Response) -> bytes:
        """At most ``max_error_bytes`` of an error body; the connection is closed after."""
        parts: list[bytes] = []
        size = 0
        try:
            async for chunk in response.aiter_bytes():
                parts.append(chunk)
                size += len(chunk)
                if size >= self.max_error_bytes:
                    break
        except httpx.HTTPError:
            pass
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()
        return b"".join(parts)[: self.max_error_bytes]

    async def check_content_type(self, response: httpx.Response) -> None:
        """A 2xx that is a web page (a login portal, a wrong base URL) is said to be one."""
        if "text/html" not in response.headers.get("content-type", "").lower():
            return
        head = await self.read_error_body(response)
        raise ModelError(
            f"{self.label} at {self.shown_url} answered HTTP {response.status_code} with "
            f"{describe_html(head)}, not a stream of chat events. Check the base URL "
            "(OpenAI-compatible servers usually end in /v1) and that nothing (a proxy, a captive "
            "portal) stands in between.",
            status=response.status_code,
            provider=self.provider,
        )




def _loop_key() -> object:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        pass
    try:
        import trio

        return trio.lowlevel.current_trio_token()
    except Exception:
        return None
