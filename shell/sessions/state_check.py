"""What a middleware's ``session_state`` loses on the way to the session file, said to
its author.

``ctx.session_state`` is saved as JSON, redacted like everything else in the file.
A value that is not JSON (a set, a tuple, an object) was saved as its ``repr`` or a
list and came back on ``--continue`` as another type; a value that looks like a
secret came back as ``[REDACTED]``: both silently (finding V8). The file keeps what
it kept (a secret is never written); this says so, once per middleware and key, as
a warning from that middleware.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from shell.core.events import Notice

JSON_LEAVES = (str, int, float, bool, type(None))


def not_json(value: Any) -> str | None:
    """The type name of the first value in ``value`` that JSON does not keep as it is
    (iterative: any depth), or None."""
    work = [value]
    while work:
        item = work.pop()
        if isinstance(item, dict):
            if not all(isinstance(k, str) for k in item):
                return "dict with keys that are not text"
            work.extend(item.values())
        elif isinstance(item, list):
            work.extend(item)
        elif not isinstance(item, JSON_LEAVES):
            return type(item).__name__
    return None


class StateCheck:
    """Remembers what was said, so each middleware key is warned about once a session."""

    def __init__(self) -> None:
        self.told: set[tuple[str, str]] = set()

    def problems(self, state: Mapping[str, Any], redact: Callable[[Any], Any]) -> list[Notice]:
        """A warning for each new key of ``state`` (by middleware) that will not come
        back as it is."""
        out: list[Notice] = []
        for owner, values in state.items():
            if not isinstance(values, dict):
                continue
            for key, value in values.items():
                said = (str(owner), str(key))
                if said in self.told:
                    continue
                text = self._problem(str(key), value, redact)
                if text is not None:
                    self.told.add(said)
                    where = f"{owner}: ctx.session_state[{str(key)[:80]!r}]"
                    out.append(Notice("warning", f"{where} {text}", str(owner)))
        return out

    @staticmethod
    def _problem(key: str, value: Any, redact: Callable[[Any], Any]) -> str | None:
        kind = not_json(value)
        if kind is not None:
            return (f"holds a {kind}, which is not JSON: it is saved as text or a list and comes back "
                    "as that on --continue; keep JSON values there (str, number, bool, None, list, dict).")
        if redact(value) != value:
            return ("holds something that looks like a secret: a secret is never saved, so it comes "
                    "back as [REDACTED] on --continue; keep keys in the environment or a keyring instead.")
        return None
