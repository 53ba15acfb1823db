"""Your own slash commands: Markdown files whose text becomes a message.

``<config dir>/commands/NAME.md`` (yours, everywhere) and a project's
``.agent-shell/commands/NAME.md`` (only in a workspace you trusted: it is
someone else's text, and the trust check hashed exactly these bytes) each make
``/NAME``. Typing ``/NAME some words`` sends the file's text with
``$ARGUMENTS`` replaced by ``some words`` (appended at the end when the file
does not say where). An optional front matter gives the summary shown in
``/help``::

    ---
    description: Review the staged diff
    ---
    Review the output of `git diff --staged` for bugs. Focus on: $ARGUMENTS

A built-in command keeps its name (a file cannot shadow ``/rewind``); a
project's command of the same name as yours wins in its workspace. Names are
letters, digits, ``-`` and ``_``. Files are read when the command list is
refreshed (at start, and before each command runs), so an edit, a new file or
a change of trust takes effect at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .permissions.trust import TrustCheck

MAX_BYTES = 64 * 1024
MAX_COMMANDS = 200
PROJECT_PREFIX = ".agent-shell/commands/"
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")


@dataclass(frozen=True, slots=True)
class CustomCommand:
    name: str
    description: str
    body: str
    source: str
    """``user`` or ``project``."""
    origin: str
    """Where it was read (for ``/help``)."""

    def expand(self, arguments: str) -> str:
        """The message to send: ``$ARGUMENTS`` replaced (or the arguments appended)."""
        if "$ARGUMENTS" in self.body:
            return self.body.replace("$ARGUMENTS", arguments)
        return f"{self.body}\n\n{arguments}" if arguments.strip() else self.body


def parse(name: str, data: bytes, source: str, origin: str) -> CustomCommand | str:
    """One file as a command, or why it is not one (for the user)."""
    if not _NAME.match(name):
        return f"{origin}: {name!r} is not a command name (letters, digits, - and _)"
    if len(data) > MAX_BYTES:
        return f"{origin} is larger than {MAX_BYTES // 1024} KB; skipped"
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    description = ""
    if text.startswith("---\n"):
        head, sep, rest = text[4:].partition("\n---")
        if sep:
            text = rest.split("\n", 1)[1] if "\n" in rest else ""
            for line in head.splitlines():
                key, _, value = line.partition(":")
                if key.strip().lower() == "description":
                    description = value.strip().strip("\"'")
    body = text.strip()
    if not body:
        return f"{origin} is empty; skipped"
    if not description:
        description = next((line.strip("# ").strip() for line in body.splitlines() if line.strip()), "")
    from .core.textsafety import sanitize_line

    summary = sanitize_line(" ".join(description.split()))[:80]
    return CustomCommand(name.lower(), summary, body, source, origin)


def discover(config_dir: Path, check: TrustCheck | None) -> tuple[list[CustomCommand], list[str]]:
    """The user's commands, then a trusted project's (which win a shared name);
    and what was skipped, one line each."""
    found: dict[str, CustomCommand] = {}
    problems: list[str] = []
    folder = config_dir / "commands"
    files = sorted(folder.glob("*.md"))[:MAX_COMMANDS] if folder.is_dir() else []
    for path in files:
        try:
            data = path.read_bytes()
        except OSError as exc:
            problems.append(f"{path}: {exc.strerror or exc}")
            continue
        _keep(parse(path.stem, data, "user", str(path)), found, problems)
    if check is not None and check.trusted:
        for relative in check.config.files:
            if relative.startswith(PROJECT_PREFIX) and relative.endswith(".md") and "/" not in relative[
                    len(PROJECT_PREFIX):]:
                data = check.config.read(relative) or b""
                name = relative[len(PROJECT_PREFIX):-3]
                _keep(parse(name, data, "project", relative), found, problems)
    return list(found.values()), problems


def _keep(parsed: CustomCommand | str, found: dict[str, CustomCommand], problems: list[str]) -> None:
    if isinstance(parsed, str):
        problems.append(parsed)
    else:
        found[parsed.name] = parsed


def untrusted_count(check: TrustCheck | None) -> int:
    """How many project commands wait for the workspace to be trusted."""
    if check is None or check.trusted:
        return 0
    return sum(1 for f in check.config.files if f.startswith(PROJECT_PREFIX) and f.endswith(".md"))


Loader = Callable[[], tuple[list[CustomCommand], list[str]]]
