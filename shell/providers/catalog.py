"""What is known of a model: its context window, its prices, whether it reads images.

Three sources, the later overriding the earlier field by field:

1. ``models.json`` beside this module: windows and list prices (US dollars per
   million tokens) of well-known models, as their providers published them;
2. the server, where it says (:func:`server_info`): OpenRouter's and vLLM's
   ``/models`` (``context_length``, ``max_model_len``, prices per token), LM
   Studio's ``max_context_length``, llama.cpp's ``/props`` (``n_ctx``, the window
   the server really runs with), Ollama's ``/api/show`` (the ``num_ctx`` it runs
   with, else the model's trained length, and its ``vision`` capability);
3. the user's config, ``[models.NAME]`` tables (``NAME`` as ``provider:model`` or
   just the model), which always win: a price list changes, a proxy re-prices.

Unknown stays unknown (``None``): the status line then shows no cost rather than
a guessed one. Nothing here runs at import time; the JSON file is read on first
use and the server is asked in the background, never on the way to the first frame.
A server's answer is outside input: only numbers in a sane range are taken.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from shell.core.messages import Usage

if TYPE_CHECKING:
    from .base import HTTPProvider

MAX_WINDOW = 100_000_000
MAX_PRICE = 10_000.0
"""Dollars per million tokens; anything above is not a price but a mistake."""
MAX_LISTING_BYTES = 16 << 20
"""Of a ``/models`` answer, what is read (OpenRouter's lists hundreds of models)."""
_DATE = re.compile(r"(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$")
_BOUNDARY = "-:@/"
FIELDS = {
    "context_window": "context_window",
    "input": "input_price",
    "output": "output_price",
    "cache_read": "cache_read_price",
    "cache_write": "cache_write_price",
    "vision": "vision",
}


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """What is known of one model; ``None`` where nothing is."""

    context_window: int | None = None
    input_price: float | None = None
    """US dollars per million input tokens (and so on for the others)."""
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None
    vision: bool | None = None
    window_source: str = ""
    """Where the window came from, for people (``the catalog``, ``the server's /props n_ctx``)."""
    price_source: str = ""

    def over(self, base: ModelInfo) -> ModelInfo:
        """``base`` with every field this one knows put over it."""
        changes = {f.name: getattr(self, f.name) for f in fields(self)}
        changes = {k: v for k, v in changes.items() if v is not None and v != ""}
        if self.context_window is None:
            changes.pop("window_source", None)
        if self.input_price is None and self.output_price is None:
            changes.pop("price_source", None)
        return replace(base, **changes)

    @property
    def priced(self) -> bool:
        return self.input_price is not None and self.output_price is not None

    def cost(self, usage: Usage) -> float | None:
        """What ``usage`` cost in US dollars, or None when the prices are unknown.
        Cached reads and writes without a price of their own cost what input does."""
        if self.input_price is None or self.output_price is None:
            return None
        read = self.cache_read_price if self.cache_read_price is not None else self.input_price
        write = self.cache_write_price if self.cache_write_price is not None else self.input_price
        return (
            usage.input_tokens * self.input_price
            + usage.output_tokens * self.output_price
            + usage.cache_read_tokens * read
            + usage.cache_write_tokens * write
        ) / 1_000_000


@lru_cache(maxsize=1)
def catalog() -> dict[str, ModelInfo]:
    """The known models of ``models.json`` (read once)."""
    text = resources.files(__package__).joinpath("models.json").read_text(encoding="utf-8")
    table = json.loads(text).get("models", {})
    return {name.lower(): _info(entry, "the catalog") for name, entry in table.items()}


def _info(entry: Mapping[str, Any], source: str) -> ModelInfo:
    values: dict[str, Any] = {}
    for key, attr in FIELDS.items():
        value = entry.get(key, entry.get(attr))
        if value is None:
            continue
        if attr == "vision":
            if not isinstance(value, bool):
                raise ValueError(f"vision must be true or false, not {value!r}")
            values[attr] = value
        elif attr == "context_window":
            window = _window(value)
            if window is None:
                raise ValueError(f"context_window must be a whole number of tokens, not {value!r}")
            values[attr] = window
        else:
            price = _price(value)
            if price is None:
                raise ValueError(f"{key} must be a price in dollars per million tokens, not {value!r}")
            values[attr] = price
    if "context_window" in values:
        values["window_source"] = source
    if "input_price" in values or "output_price" in values:
        values["price_source"] = source
    return ModelInfo(**values)


def _window(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        return None
    return int(value) if 0 < value <= MAX_WINDOW else None


def _price(value: Any) -> float | None:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return float(value) if 0 <= value <= MAX_PRICE else None


def candidates(name: str) -> list[str]:
    """The spellings of ``name`` to look up, most specific first."""
    base = name.strip().lower()
    out = [base]
    if "/" in base:  # openrouter's anthropic/claude-sonnet-4.5, a hub path
        out.append(base.rsplit("/", 1)[1])
    for n in list(out):
        out.append(n.replace(".", "-") if n.startswith("claude") else n)  # claude-sonnet-4.5
        stripped = _DATE.sub("", n)
        out.append(stripped)
        if ":" in n:  # ollama's llama3.1:8b
            out.append(n.split(":", 1)[0])
    seen: list[str] = []
    for n in out:
        if n and n not in seen:
            seen.append(n)
    return seen


def lookup(name: str, table: Mapping[str, ModelInfo] | None = None) -> ModelInfo:
    """The catalog's entry for ``name``: exact, then a variant spelling (see
    :func:`candidates`), then the longest known name it starts with followed by a
    separator (``gpt-4o-mini-2024-07-18`` is ``gpt-4o-mini``, never ``gpt-4o``)."""
    known = catalog() if table is None else table
    names = candidates(name)
    for n in names:
        if n in known:
            return known[n]
    best = ""
    for n in names:
        for k in known:
            if len(k) > len(best) and n.startswith(k) and len(n) > len(k) and n[len(k)] in _BOUNDARY:
                best = k
    return known[best] if best else ModelInfo()


def parse_overrides(table: Any) -> tuple[dict[str, ModelInfo], list[str]]:
    """``[models.NAME]`` tables of the config: name (lower case) -> info, and problems."""
    found: dict[str, ModelInfo] = {}
    problems: list[str] = []
    if table is None:
        return found, problems
    if not isinstance(table, Mapping):
        return found, ["[models] in the config must be tables: [models.\"gpt-4o\"] context_window = 128000"]
    for name, entry in table.items():
        if not isinstance(entry, Mapping):
            problems.append(f"[models.{name!r}] must be a table (context_window, input_price, ...).")
            continue
        unknown = [k for k in entry if k not in FIELDS and k not in FIELDS.values()]
        if unknown:
            problems.append(
                f"[models.{name!r}]: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
                f"(known: {', '.join(FIELDS.values())})."
            )
        try:
            found[str(name).lower()] = _info(entry, "your config")
        except ValueError as exc:
            problems.append(f"[models.{name!r}]: {exc}")
    return found, problems


def model_info(
    provider: str,
    name: str,
    *,
    overrides: Mapping[str, ModelInfo] | None = None,
    server: ModelInfo | None = None,
) -> ModelInfo:
    """Catalog, then what the server said, then the config (``provider:name`` before
    ``name``), each over the one before."""
    info = lookup(name)
    if server is not None:
        info = server.over(info)
    if overrides:
        for key in (name.lower(), f"{provider}:{name}".lower()):
            if key in overrides:
                info = overrides[key].over(info)
    return info


# -- what a server says ----------------------------------------------------------------


async def server_info(model: HTTPProvider, *, timeout: float = 3.0) -> ModelInfo:
    """Ask the model's server for its window (and prices, where it lists them).
    Never raises: a server that says nothing (or garbage) gives ``ModelInfo()``."""
    import httpx

    from .anthropic import AnthropicModel
    from .ollama import OllamaModel

    if isinstance(model, AnthropicModel):
        return ModelInfo()  # its /v1/models says no window: the catalog does
    headers = {**model.request_headers(), **model.headers}
    headers.pop("Accept", None)
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            if isinstance(model, OllamaModel):
                return await _ollama(client, model, headers)
            found = await _listing(client, f"{model.base_url}/models", model.name, headers)
            if found.context_window is None:
                root = re.sub(r"/v1/?$", "", model.base_url)
                found = (await _props(client, f"{root}/props", headers)).over(found)
            return found
    except (httpx.HTTPError, ValueError, OSError):
        return ModelInfo()


async def _get_json(client: Any, method: str, url: str, headers: Mapping[str, str], **kw: Any) -> Any:
    async with client.stream(method, url, headers=headers, **kw) as response:
        if response.status_code >= 400:
            return None
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_LISTING_BYTES:
                return None
    return json.loads(body)


async def _listing(client: Any, url: str, name: str, headers: Mapping[str, str]) -> ModelInfo:
    data = await _get_json(client, "GET", url, headers)
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return ModelInfo()
    item = next((i for i in items if isinstance(i, dict) and i.get("id") == name), None)
    if item is None:
        return ModelInfo()
    window, source = None, ""
    for key in ("context_length", "max_model_len", "max_context_length", "context_window"):
        window = _window(item.get(key))
        if window is not None:
            source = f"the server's /models {key}"
            break
    top = item.get("top_provider")
    if window is None and isinstance(top, dict):
        window, source = _window(top.get("context_length")), "the server's /models context_length"
    pricing = item.get("pricing")
    pricing = pricing if isinstance(pricing, dict) else {}

    def per_million(key: str) -> float | None:  # OpenRouter: dollars per token, as strings
        per_token = _price(pricing.get(key))
        return per_token * 1_000_000 if per_token is not None and per_token * 1e6 <= MAX_PRICE else None

    info = ModelInfo(
        context_window=window,
        input_price=per_million("prompt"),
        output_price=per_million("completion"),
        cache_read_price=per_million("input_cache_read"),
        cache_write_price=per_million("input_cache_write"),
        window_source=source if window else "",
    )
    return replace(info, price_source="the server's /models pricing") if info.priced else info


async def _props(client: Any, url: str, headers: Mapping[str, str]) -> ModelInfo:
    data = await _get_json(client, "GET", url, headers)
    if not isinstance(data, dict):
        return ModelInfo()
    settings = data.get("default_generation_settings")
    n_ctx = _window(settings.get("n_ctx")) if isinstance(settings, dict) else None
    n_ctx = n_ctx or _window(data.get("n_ctx"))
    if not n_ctx:
        return ModelInfo()
    return ModelInfo(context_window=n_ctx, window_source="the server's /props n_ctx")


async def _ollama(client: Any, model: HTTPProvider, headers: Mapping[str, str]) -> ModelInfo:
    configured = _window(model.options.get("num_ctx"))
    data = await _get_json(client, "POST", f"{model.base_url}/api/show", headers, json={"model": model.name})
    if not isinstance(data, dict):
        data = {}
    vision = None
    capabilities = data.get("capabilities")
    if isinstance(capabilities, list):
        vision = "vision" in capabilities
    if configured:
        return ModelInfo(context_window=configured, vision=vision, window_source="num_ctx in your config")
    params = data.get("parameters")
    match = re.search(r"^num_ctx\s+(\d{1,9})\s*$", params, re.MULTILINE) if isinstance(params, str) else None
    if match and _window(int(match.group(1))):
        return ModelInfo(context_window=int(match.group(1)), vision=vision,
                         window_source="the model's num_ctx (Ollama /api/show)")
    info = data.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            if isinstance(key, str) and key.endswith(".context_length") and _window(value):
                return ModelInfo(context_window=int(value), vision=vision,
                                 window_source="the model's trained length (Ollama /api/show; Ollama may run "
                                               "it shorter: set [providers.ollama] options.num_ctx)")
    return ModelInfo(vision=vision)
