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
  yielded, so the loop keeps the text so far.
"""

from __future__ import annotations

import abc
import asyncio
import email.utils
import logging
import random
import time
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import anyio
import httpx

from shell.core.model import ModelChunk, ModelError, ModelRequest, report_notice

from .sse import MalformedLine

NoticeHook = Callable[[str], None]

DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_READ_TIMEOUT = 120.0
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


log = logging.getLogger("agent_shell.providers")

class HTTPProvider(abc.ABC):
    """Base of the OpenAI, Anthropic and Ollama providers (not used on its own)."""

    provider = "http"
    label = "HTTP"
    """The provider's name for people, as it appears in messages."""
    default_base_url = ""
    base_url_env = ""
    path = ""

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
    ) -> None:
        """``api_key_env`` names where the key was read from (for error messages);
        ``client`` lets tests inject an ``httpx.AsyncClient`` (e.g. on a MockTransport);
        ``options`` are defaults merged under each request's own ``options``."""
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
        self._client = client
        self._owned: tuple[object, httpx.AsyncClient] | None = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.provider}:{self.name} at {self.base_url}>"

    # -- what subclasses provide ---------------------------------------------------

    def request_headers(self) -> dict[str, str]:
        return {}

    @abc.abstractmethod
    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body of one streaming call in this provider's wire format."""

    @abc.abstractmethod
    def parse(self, response: httpx.Response) -> AsyncIterator[ModelChunk]:
        """The chunks of one streamed response (an async generator in subclasses)."""

    def error_detail(self, body: bytes) -> str:
        """The provider's own error message from an error response body."""
        return error_message_from_body(body)

    # -- the shared machinery ------------------------------------------------------

    @property
    def url(self) -> str:
        return self.base_url + self.path

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

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        body = self.build_body(request)
        response = await self.open(request, "POST", self.url, json=body)
        try:
            async for chunk in self.parse(response):
                yield chunk
        except MalformedLine as exc:
            raise ModelError(
                f"{self.label} sent a line that is not valid JSON: {exc.line[:120]!r}. "
                f"Is {self.base_url} really an {self.label}-compatible endpoint?",
                provider=self.provider,
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
            raise self.dropped() from None
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()

    def dropped(self) -> ModelError:
        return ModelError(
            f"The connection to {self.label} dropped in the middle of the reply; "
            "the text so far is kept. Try again.",
            provider=self.provider,
            retryable=True,
        )

    async def open(
        self, request: ModelRequest | None, method: str, url: str, **kwargs: Any
    ) -> httpx.Response:
        """Send and return the streaming response once it is a 2xx, retrying 429/5xx."""
        client = self.client()
        headers = {**self.request_headers(), **self.headers}
        waited = 0.0
        attempt = 0
        while True:
            req = client.build_request(method, url, headers=headers, timeout=self.timeout, **kwargs)
            try:
                response = await client.send(req, stream=True)
            except httpx.ConnectTimeout:
                raise ModelError(
                    f"Could not connect to {self.label} at {self.base_url} within "
                    f"{self.timeout.connect:g}s (connect timeout). {self.where_hint()}",
                    provider=self.provider,
                    retryable=True,
                ) from None
            except httpx.TimeoutException:
                raise ModelError(
                    f"{self.label} at {self.base_url} did not start answering within "
                    f"{self.read_timeout:g}s (read timeout). Try again, or raise read_timeout "
                    f"in the config ([providers.{self.provider}]).",
                    provider=self.provider,
                    retryable=True,
                ) from None
            except httpx.TransportError as exc:
                raise ModelError(
                    f"Could not connect to {self.label} at {self.base_url} ({exc or type(exc).__name__}). "
                    f"{self.where_hint()}",
                    provider=self.provider,
                    retryable=True,
                ) from None
            if response.status_code < 400:
                return response
            try:
                body = await response.aread()
            except httpx.HTTPError:
                body = b""
            finally:
                with anyio.CancelScope(shield=True):
                    await response.aclose()
            status = response.status_code
            detail = self.error_detail(body)
            if status in RETRY_STATUSES and attempt < self.max_retries:
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

    def where_hint(self) -> str:
        if self.base_url_env:
            return f"Is the server running? The address comes from {self.base_url_env} or the config."
        return "Is the server running and the base URL right?"

    def key_hint(self) -> str:
        if self.api_key_env:
            state = "" if self.api_key else " (it is not set)"
            return f"Check the API key in {self.api_key_env}{state}."
        return "Check the API key in the config ([providers] api_key_env)."

    def http_error(
        self, status: int, detail: str, retries: int, headers: Mapping[str, str] | None = None
    ) -> ModelError:
        said = f": {detail}" if detail else ""
        label, p = self.label, self.provider
        if status in (401, 403):
            msg = f"{label} refused the request (HTTP {status}{said}). {self.key_hint()}"
            return ModelError(msg, status=status, provider=p)
        if status == 404:
            msg = (
                f"{label} answered 404 Not Found for model '{self.name}' at {self.url}{said}. "
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
        if status >= 500:
            msg = f"{label} had a server error (HTTP {status}{said}){after}. Try again later."
            return ModelError(msg, status=status, provider=p, retryable=True)
        return ModelError(f"{label} rejected the request (HTTP {status}{said}).", status=status, provider=p)


def error_message_from_body(body: bytes) -> str:
    """``error.message`` (OpenAI, Anthropic), ``error`` as a string (Ollama) or the text."""
    import json

    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:300]
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            return str(err.get("message") or err.get("type") or err)[:500]
        if isinstance(err, str):
            return err[:500]
        if "message" in data:
            return str(data["message"])[:500]
    return text[:300]


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Seconds asked for by ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def retry_delay(headers: Mapping[str, str], attempt: int, backoff: float) -> float | None:
    """The wait before retry ``attempt`` (0-based): the server's ask, else exponential with jitter."""
    asked = retry_after_seconds(headers)
    if asked is not None:
        return asked
    return float(backoff * 2.0**attempt * (0.75 + random.random() / 2))


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
