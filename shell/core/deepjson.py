"""JSON at any depth, without recursion: an encoder for values too deep for ``json.dumps``
and a reader for text too deep for ``json.loads`` (a tool call's arguments nested 5,000
deep would otherwise raise ``RecursionError`` and lose the whole reply).

Kept apart from the sanitiser (:mod:`.textsafety`), whose :func:`~.textsafety.json_text`
falls back to :func:`dumps_iteratively`. Imports nothing of the project.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C scanner; typeshed omits it
from typing import Any


def dumps_iteratively(value: Any, compact: bool = False) -> str:
    """JSON of ``value`` on one line, with an explicit stack instead of recursion."""
    comma, colon = (",", ":") if compact else (", ", ": ")
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Token):
            out.append(item.text)
        elif isinstance(item, dict):
            stack.append(_Token("}"))
            entries = list(item.items())
            for n, (key, val) in enumerate(reversed(entries)):
                stack.append(val)
                sep = "" if n == len(entries) - 1 else comma
                stack.append(_Token(sep + json.dumps(str(key), ensure_ascii=False) + colon))
            stack.append(_Token("{"))
        elif isinstance(item, (list, tuple)):
            stack.append(_Token("]"))
            for n, val in enumerate(reversed(item)):
                stack.append(val)
                if n != len(item) - 1:
                    stack.append(_Token(comma))
            stack.append(_Token("["))
        else:
            out.append(json.dumps(item, ensure_ascii=False, default=repr))
    return "".join(out)


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}


def loads_any_depth(text: str) -> Any:
    """``json.loads`` of ``text`` with an explicit stack instead of recursion.

    Only for the one place where a value nested deeper than Python's recursion
    limit is still something to read: a streamed line that *embeds* a tool
    call's arguments as an object (Ollama's NDJSON), so one hostile call would
    otherwise lose the whole reply. What it returns may be that deep: walk it
    with :func:`json_text` or :func:`map_strings`, never recursively. Strings go
    through the C scanner; raises ``ValueError`` on anything ``json.loads``
    would reject (except that ``NaN``/``Infinity`` are rejected too)."""
    return _DeepReader(text).read()


class _DeepReader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.stack: list[tuple[Any, str]] = []  # open containers, with the key being filled

    def skip(self, pos: int) -> int:
        match = _WS.match(self.text, pos)
        return match.end() if match else pos

    def key_at(self, pos: int) -> tuple[str, int]:
        if self.text[pos : pos + 1] != '"':
            raise ValueError(f"expected a key at {pos}")
        key, pos = _scan_string(self.text, pos + 1)
        pos = self.skip(pos)
        if self.text[pos : pos + 1] != ":":
            raise ValueError(f"expected ':' at {pos}")
        return key, pos + 1

    def read(self) -> Any:
        pos = 0
        while True:
            done, value, pos = self.open(self.skip(pos))
            if done:
                finished, value, pos = self.close(value, pos)
                if finished:
                    return value

    def open(self, pos: int) -> tuple[bool, Any, int]:
        """The value starting at ``pos`` if it is whole (a scalar, ``{}``, ``[]``), or
        the container it opens pushed on the stack."""
        char = self.text[pos : pos + 1]
        if char not in ("{", "["):
            value, pos = _scalar(self.text, pos)
            return True, value, pos
        closing = "}" if char == "{" else "]"
        pos = self.skip(pos + 1)
        if self.text[pos : pos + 1] == closing:
            return True, ({} if char == "{" else []), pos + 1
        if char == "{":
            key, pos = self.key_at(pos)
            self.stack.append(({}, key))
        else:
            self.stack.append(([], ""))
        return False, None, pos

    def close(self, value: Any, pos: int) -> tuple[bool, Any, int]:
        """Put a whole value in its container and close every container that ends
        here; True when the outermost value is complete."""
        while self.stack:
            container, key = self.stack[-1]
            is_dict = isinstance(container, dict)
            if is_dict:
                container[key] = value
            else:
                container.append(value)
            pos = self.skip(pos)
            char = self.text[pos : pos + 1]
            if char == ",":
                if is_dict:
                    key, pos = self.key_at(self.skip(pos + 1))
                    self.stack[-1] = (container, key)
                    return False, None, pos
                return False, None, pos + 1
            if char != ("}" if is_dict else "]"):
                raise ValueError(f"expected ',' or a closing bracket at {pos}")
            self.stack.pop()
            value, pos = container, pos + 1
        if self.skip(pos) != len(self.text):
            raise ValueError(f"extra data at {self.skip(pos)}")
        return True, value, pos


def _scan_string(text: str, pos: int) -> tuple[str, int]:
    """The JSON string whose body starts at ``pos`` (after its quote), and where it ends."""
    value, end = scanstring(text, pos)
    return str(value), int(end)


def _scalar(text: str, pos: int) -> tuple[Any, int]:
    """The string, number, ``true``, ``false`` or ``null`` at ``pos``, and where it ends."""
    char = text[pos : pos + 1]
    if char == '"':
        return _scan_string(text, pos + 1)
    for word, value in _LITERALS.items():
        if text.startswith(word, pos):
            return value, pos + len(word)
    number = _NUMBER.match(text, pos)
    if number is None or not char:
        raise ValueError(f"expected a value at {pos}")
    whole, fraction, exponent = number.groups()
    return (float(number.group()) if fraction or exponent else int(whole)), number.end()


class _Token:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text
