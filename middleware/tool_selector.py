"""``LLMToolSelector``: a (cheaper) model picks the tools worth offering
(LangChain's LLMToolSelectorMiddleware).

With dozens of tools, every call pays for all their schemas and the model
chooses worse. Before the main call this middleware shows the selector model the
tool names and descriptions and the user's latest request, reads back a JSON list
of names, and offers only those (plus ``always_include``) by assigning
``ctx.tools`` in ``transform_context``.

The choice is made once per reply (``reply_state``), for the user's request that
started it; the model keeps the same tools over the reply's rounds unless the set
of available tools changes (a toggle, say). The selector answers in free text; it
is read tolerantly (a fenced or bare JSON array, an object with a list, or failing
that the tool names the text mentions). If the selector fails, all tools are
offered and a warning is shown: a broken helper must not break the reply. Names
that are no tool are said in a warning; if none of its names is a tool, that is a
failed selection too (all tools). An empty list stays the way to say "none needed".
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from shell.core.events import Notice
from shell.core.messages import Message, UserMessage
from shell.core.model import ChatModel, ModelRequest, TextDelta, as_model
from shell.core.tools import Tool

from .base import Middleware
from .context import HookContext
from .tool_names import ToolNameCheck

DEFAULT_SYSTEM_PROMPT = """\
You choose which tools an assistant needs for the user's request. You get the \
list of available tools and the request. Answer with a JSON array of the names \
of the tools that are relevant, most relevant first, and nothing else, e.g. \
["read_file", "search"]. Answer [] if none is needed."""


async def complete_text(model: ChatModel, request: ModelRequest) -> str:
    """The text of one model call, streamed to the end (for helper calls made by
    middleware, outside the agent's ``on_model_call`` onion)."""
    parts: list[str] = []
    async for chunk in model.stream(request):
        if isinstance(chunk, TextDelta):
            parts.append(chunk.text)
    return "".join(parts)


def last_user_text(messages: Iterable[Message]) -> str:
    """The text of the newest user message (the request being answered)."""
    text = ""
    for message in messages:
        if isinstance(message, UserMessage):
            text = message.text
    return text


def parse_tool_names(text: str, known: Sequence[str]) -> list[str]:
    """Known tool names from a selector's answer, in its order, without repeats.

    Tries each JSON array or object in the text (code fences and prose around it
    are fine); an object's first list value counts (``{"tools": [...]}``). With no
    usable JSON, the known names the text mentions as words are taken.
    """
    names: list[str] = []
    lookup = {n.lower(): n for n in known}
    for raw in answered_names(text, known):
        name = lookup.get(raw.strip().lower())
        if name is not None and name not in names:
            names.append(name)
    return names


def answered_names(text: str, known: Sequence[str]) -> list[str]:
    """Every name the selector's answer gives, known or not (see :func:`parse_tool_names`)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            value = next((v for v in value.values() if isinstance(v, list)), None)
        if isinstance(value, list):
            return [_item_name(v) for v in value]
    spots = {n: m.start() for n in known if (m := re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text))}
    return sorted(spots, key=spots.__getitem__)


class LLMToolSelector(Middleware):
    """A cheaper model picks the tools relevant to the request; only those are offered."""

    builtin: ClassVar[bool] = True
    name = "LLMToolSelector"
    description = "Asks a (cheaper) model which tools fit the request and offers only those."

    def __init__(
        self,
        *,
        model: ChatModel | str | None = None,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
        max_tools: int | None = None,
        always_include: Sequence[str] = (),
    ) -> None:
        """``model`` defaults to the agent's own; ``max_tools`` caps the selection
        (``always_include`` tools come on top and do not count against it)."""
        if max_tools is not None and max_tools < 0:
            raise ValueError("max_tools must be None or >= 0")
        self.model = model
        self.system_prompt = system_prompt
        self.max_tools = max_tools
        self.always_include = tuple(always_include)
        self._names = ToolNameCheck("always_include", self.always_include, "it is never offered")

    async def transform_context(self, ctx: HookContext, messages: list[Message]) -> list[Message]:
        self._names.missing(ctx, self.name)
        tools = ctx.tools
        candidates = [t for t in tools if t.name not in self.always_include]
        if not candidates:
            return messages
        query = last_user_text(messages)
        key = [t.name for t in tools]
        cached = ctx.reply_state.get("selection")
        if cached is not None and cached["available"] == key:
            chosen: list[str] = cached["chosen"]
        else:
            chosen = await self._select(ctx, candidates, query)
            ctx.reply_state["selection"] = {"available": key, "chosen": chosen}
        keep = set(chosen) | set(self.always_include)
        ctx.tools = [t for t in tools if t.name in keep]
        return messages

    async def _select(self, ctx: HookContext, candidates: list[Tool], query: str) -> list[str]:
        """The names the selector chose, capped at ``max_tools``; every candidate
        when the selector cannot be asked or fails."""
        names = [t.name for t in candidates]
        if self.max_tools == 0:
            return []
        model = as_model(self.model) if self.model is not None else ctx.agent.model
        request = ModelRequest(model, self.system_prompt, (UserMessage(self.prompt(candidates, query)),))
        try:
            answer = await complete_text(model, request)
        except Exception as exc:
            ctx.emit(Notice("warning", f"Tool selection failed ({exc}); offering all tools.", self.name))
            return names
        chosen = parse_tool_names(answer, names)
        lookup = {n.lower() for n in names}
        unknown = [n.strip() for n in answered_names(answer, names) if n.strip().lower() not in lookup]
        if unknown:
            # a cheap model's "read" for read_file: dropped silently, and when nothing it
            # named was a tool the main model got no tools at all (finding V17)
            shown = ", ".join(repr(n[:60]) for n in unknown[:8]) + (" …" if len(unknown) > 8 else "")
            offered = ", ".join(names[:12]) + (" …" if len(names) > 12 else "")
            then = "offering all tools" if not chosen else "offering the ones it chose that are"
            ctx.emit(Notice("warning", f"The tool selector named tools that are not there ({shown}; "
                            f"tools: {offered}); {then}.", self.name))
            if not chosen:
                return names
        if self.max_tools is not None:
            chosen = chosen[: self.max_tools]
        return chosen

    def prompt(self, candidates: Sequence[Tool], query: str) -> str:
        """What the selector reads: the tools, one a line, then the request."""
        lines = [f"- {t.name}: {_first_line(t.description)}" for t in candidates]
        limit = f"\nChoose at most {self.max_tools} tools." if self.max_tools is not None else ""
        return f"Available tools:\n{chr(10).join(lines)}\n\nUser request:\n{query}{limit}"


def _item_name(item: Any) -> str:
    """A list item as a name: a string, or an object's ``name`` (``{"name": ...}``)."""
    if isinstance(item, dict):
        item = item.get("name", "")
    return item if isinstance(item, str) else ""


def _first_line(text: str) -> str:
    first = text.strip().split("\n\n")[0].replace("\n", " ")
    return first[:300] or "(no description)"
