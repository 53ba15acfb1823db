"""What a message carries besides its words: ``@`` files and folders, and images.

``@src/app.py`` in a message attaches that file's text (``@src/`` a listing of the
folder, ``@"a name with spaces.md"`` a quoted path); ``/image PATH``, a pasted path
to an image, or the clipboard add a picture. :func:`compose` turns the typed text
into the :class:`~shell.core.messages.UserMessage` the model gets: the words
first, then each attachment as its own block, and the list of chips a front end
shows.

Attachments are outside text, so:

* only files inside the workspace are attached by ``@`` (resolved through
  symlinks: a link out is refused, as the file tools refuse it), and only what the
  permission rules let ``read_file`` read (a ``deny read_file(**/.env)`` holds
  here too); an image named by ``/image`` may live anywhere, since it is checked
  to be an image (its first bytes), never text;
* only regular files are opened (a FIFO would block), each cut at
  ``MAX_FILE_BYTES`` (the cut is said, to the model and on the chip), all of them
  at ``MAX_TOTAL_BYTES``, binary files refused, a listing cut at ``MAX_LISTING``
  entries;
* a file cannot close the tag it sits in; chips and problems are single safe
  lines; the session stores what was sent through the one secrets policy (the
  recorder's redactor), like every message.

A mention that names nothing stays words (``@alice``, ``@app.route``,
``@types/node``), with a note when it looks like a path. A mention of something
that exists but cannot be attached (outside the workspace, denied, binary, a
FIFO) is a *problem*: the front end says so and does not send, so nothing is sent
without what the user meant to attach.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from shell.core.attached import DIR_TAG, FILE_TAG
from shell.core.messages import Block, DataBlock, TextBlock, UserMessage
from shell.core.textsafety import path_from_text, sanitize_line

MAX_FILE_BYTES = 256 * 1024
MAX_TOTAL_BYTES = 1024 * 1024
MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Anthropic's limit for one image; OpenAI's is higher, Ollama's unstated."""
MAX_LISTING = 500
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp"}

MENTION = re.compile(r'(?<![\w@/.])@(?:"([^"\n]{1,1000})"|([^\s"]{1,1000}))')
"""``@path`` or ``@"quoted path"``, not inside a word (``me@example.org`` is an address)."""
MENTION_AT_CURSOR = re.compile(r'(?:^|(?<=\s))@([^\s"]*)$')
"""An ``@`` mention being typed at the cursor (the text after it, for the pickers and Tab to complete)."""
_TRAILING = ".,;:!?)]}'"
_OPENING = re.compile(rf'^<({FILE_TAG}|{DIR_TAG}) path="([^"]*)"([^>]*)>')
_CLOSING = re.compile(rf"</({FILE_TAG}|{DIR_TAG})", re.IGNORECASE)

Kind = Literal["file", "directory", "image"]


@dataclass(frozen=True, slots=True)
class Attachment:
    """One thing attached: what it is, how to name it, and the block the model gets."""

    kind: Kind
    path: str
    """As shown: relative to the workspace inside it, else as given."""
    block: TextBlock | DataBlock
    size: int
    """Bytes attached (after any cut)."""
    lines: int = 0
    """Lines of a file, entries of a listing."""
    truncated: bool = False
    detail: str = ""
    """An image's pixel size, for its chip."""

    @property
    def chip(self) -> str:
        """One safe line: ``@src/app.py · 120 lines``, ``image shot.png · 800x600 · 45 KB``."""
        name = sanitize_line(self.path)
        cut = " (cut)" if self.truncated else ""
        if self.kind == "image":
            detail = f" · {self.detail}" if self.detail else ""
            return f"image {name}{detail} · {human_size(self.size)}"
        if self.kind == "directory":
            return f"@{name} · {plural(self.lines, 'entry', 'entries')}{cut}"
        return f"@{name} · {plural(self.lines, 'line', 'lines')}{cut}"


@dataclass(frozen=True, slots=True)
class Composed:
    """What :func:`compose` made: the message (plain text when nothing is attached),
    the attachments, the problems that stop the send, and notes that do not."""

    message: UserMessage
    attachments: tuple[Attachment, ...] = ()
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def chips(self) -> list[str]:
        return [a.chip for a in self.attachments]


def plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / 1024 / 1024:.1f} MB"


def image_type(data: bytes) -> str | None:
    """The media type of an image by its first bytes (the name may lie)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def mentions(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, path)`` of each ``@`` mention, in order."""
    return [(m.start(), m.end(), m.group(1) or m.group(2)) for m in MENTION.finditer(text)]


def path_mentions(text: str) -> list[str]:
    """The ``@`` mentions in ``text`` that look like paths (``@src/app.py``, not ``@alice``)."""
    return [raw for _, _, raw in mentions(text) if _looks_like_path(raw)]


def mentioned_files(text: str, root: Path) -> list[str]:
    """The files and folders the ``@`` mentions in ``text`` name inside ``root``, each
    once, as :func:`compose` asks its ``refuse`` about them (relative, POSIX): what a
    front end has judged, off its event loop, before it composes the message."""
    root = root.resolve()
    found: dict[str, None] = {}
    for _, _, raw in mentions(text):
        path, _ = _resolve_mention(raw, root)
        if path is not None:
            found.setdefault(path.relative_to(root).as_posix() or ".")
    return list(found)


def secret_mentions(text: str, root: Path) -> list[str]:
    """The ``@`` mentions in ``text`` of files that usually hold secrets (by the name
    written or where it leads): what someone else's text (a project's command) may
    not attach on the user's behalf."""
    from shell.core.secretcontent import secret_content_why
    from shell.core.secrets import is_secret_file

    found = []
    for _, _, raw in mentions(text):
        path, shown = _resolve_mention(raw, root.resolve())
        held = path is not None and (is_secret_file(str(path)) or bool(secret_content_why(str(path))))
        if is_secret_file(raw) or held:
            found.append(shown if path is not None else raw)
    return found


def _looks_like_path(raw: str) -> bool:
    return "/" in raw or "." in raw.strip(_TRAILING)


def _within(path: Path, base: Path) -> bool:
    return path == base or base in path.parents


def _read_regular(path: Path, limit: int) -> tuple[bytes, bool]:
    """Up to ``limit`` bytes of a regular file and whether there was more; raises
    ``OSError`` (or ``IsADirectoryError``) otherwise. Never blocks on a FIFO."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(f.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(f"{path.name} is not a regular file")
        data = f.read(limit + 1)
    return data[:limit], len(data) > limit


def _fence(text: str) -> str:
    return _CLOSING.sub(r"<\\/\1", text)


def _attr(text: str) -> str:
    return sanitize_line(text).replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def image_attachment(path: Path, shown: str) -> Attachment:
    """An image file as an attachment; raises ``ValueError`` with the reason when it
    is not one (or too large), ``OSError`` when it cannot be read."""
    from .accounting import image_size

    data, more = _read_regular(path, MAX_IMAGE_BYTES)
    media = image_type(data)
    if media is None:
        raise ValueError(f"{shown} is not a PNG, JPEG, GIF or WebP image")
    if more:
        raise ValueError(f"{shown} is larger than {human_size(MAX_IMAGE_BYTES)}, the most a provider takes")
    size = image_size(data)
    detail = f"{size[0]}x{size[1]}" if size else ""
    return Attachment("image", shown, DataBlock(media, data), len(data), detail=detail)


def image_from_bytes(data: bytes, name: str = "clipboard") -> Attachment:
    """Image bytes (from the clipboard) as an attachment; ``ValueError`` if they are not."""
    from .accounting import image_size

    media = image_type(data)
    if media is None:
        raise ValueError("the clipboard holds no PNG, JPEG, GIF or WebP image")
    if len(data) > MAX_IMAGE_BYTES:
        raise ValueError(f"the image is larger than {human_size(MAX_IMAGE_BYTES)}, the most a provider takes")
    size = image_size(data)
    detail = f"{size[0]}x{size[1]}" if size else ""
    return Attachment("image", name, DataBlock(media, data), len(data), detail=detail)


def file_attachment(path: Path, shown: str, budget: int) -> Attachment:
    """A text file (or a folder's listing) as an attachment; ``ValueError`` with the
    reason when it cannot be one."""
    if path.is_dir():
        return _listing(path, shown)
    data, more = _read_regular(path, min(MAX_FILE_BYTES, budget))
    if image_type(data[:16]) is not None:
        return image_attachment(path, shown)
    if b"\x00" in data[:8192]:
        raise ValueError(f"{shown} is a binary file; only text files and images can be attached")
    text = data.decode("utf-8", errors="replace")
    if more:  # do not end in the middle of a line
        cut = text.rfind("\n")
        text = text[: cut + 1] if cut > 0 else text
    lines = text.count("\n") + (bool(text) and not text.endswith("\n"))
    note = f' lines="{lines}"' + (' truncated="true"' if more else "")
    tail = f"\n[… cut at {human_size(len(data))}: the file is longer]" if more else ""
    block = TextBlock(fenced_file(shown, text.rstrip("\n"), note, tail))
    return Attachment("file", shown, block, len(text.encode()), lines, truncated=more)


def fenced_file(shown: str, text: str, note: str = "", tail: str = "") -> str:
    """A file's text as the model reads an attachment: in a tag its content cannot
    close (a ``</attached-file>`` inside is escaped), the path an attribute that
    cannot end early. Every front end attaches files this way (the ACP editor's
    embedded resources too)."""
    return f'<{FILE_TAG} path="{_attr(shown)}"{note}>\n{_fence(text)}{tail}\n</{FILE_TAG}>'


def _listing(path: Path, shown: str) -> Attachment:
    from shell.tools.ignore import ignore_root_for, walk_entries

    entries: list[str] = []
    more = False
    base = len(str(path)) + 1
    for found in walk_entries(path, ignore_root_for(path, path)):
        if len(entries) >= MAX_LISTING:
            more = True
            break
        entries.append(str(found.path)[base:])
    shown_dir = shown.rstrip("/") + "/"
    note = f' entries="{len(entries)}"' + (' truncated="true"' if more else "")
    tail = f"\n[… more than {MAX_LISTING} files]" if more else ""
    body = _fence("\n".join(sanitize_line(e) for e in entries))
    block = TextBlock(f'<{DIR_TAG} path="{_attr(shown_dir)}"{note}>\n{body}{tail}\n</{DIR_TAG}>')
    return Attachment("directory", shown_dir, block, len(body.encode()), len(entries), truncated=more)


def _resolve_mention(raw: str, root: Path) -> tuple[Path | None, str]:
    """The path a mention names inside ``root`` (trailing punctuation dropped when
    the path without it exists), or None with why. A mention no file can have (a
    NUL byte, as in a log or binary piped into ``-p``) is words, never a crash."""
    if "\0" in raw:
        return None, f"@{raw}: no such file or folder in the workspace"
    candidate = raw
    while True:
        path = Path(os.path.expanduser(candidate))
        path = path if path.is_absolute() else root / path
        if os.path.lexists(path):
            break
        plain = path_from_text(candidate)  # a name the picker or a tool showed escaped (nl\nx)
        if plain != candidate:
            unescaped = Path(os.path.expanduser(plain))
            unescaped = unescaped if unescaped.is_absolute() else root / unescaped
            if os.path.lexists(unescaped):
                path = unescaped
                break
        if candidate and candidate[-1] in _TRAILING:
            candidate = candidate[:-1]
            continue
        return None, f"@{raw}: no such file or folder in the workspace"
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return None, f"@{candidate}: cannot be read (a broken or looping link)"
    if not _within(resolved, root):
        return None, f"@{candidate}: outside the workspace ({root}); only files inside it can be attached"
    return resolved, candidate


def compose(
    text: str,
    root: Path,
    *,
    staged: Sequence[Attachment] = (),
    refuse: Callable[[str], str | None] | None = None,
    piped: str = "",
) -> Composed:
    """The message for ``text`` with its ``@`` files, pasted image paths and the
    ``staged`` attachments (``/image``). ``refuse(relative_path)`` returns why a
    file may not be attached (a permission rule), or None. ``piped`` (what ``-p`` read
    from stdin) follows ``text`` as words only: its ``@`` mentions and image paths are
    data from a file or another program, not the user's, and attach nothing."""
    root = root.resolve()
    attachments: list[Attachment] = list(staged)
    problems: list[str] = []
    notes: list[str] = []
    seen: set[Path] = set()
    budget = MAX_TOTAL_BYTES
    for _, _, raw in mentions(text):
        path, shown = _resolve_mention(raw, root)
        if path is None:
            if shown.startswith(f"@{raw}: no such file"):
                if _looks_like_path(raw):
                    notes.append(sanitize_line(f"@{raw}: no such file in the workspace; sent as words"))
            else:
                problems.append(sanitize_line(shown))
            continue
        if path in seen:
            continue
        seen.add(path)
        rel = path.relative_to(root).as_posix() or "."
        why = refuse(rel) if refuse is not None else None
        if why:
            problems.append(sanitize_line(f"@{rel}: {why}"))
            continue
        if budget <= 0 and not path.is_dir():
            problems.append(sanitize_line(f"@{rel}: not attached, the message already carries "
                                          f"{human_size(MAX_TOTAL_BYTES)} of files"))
            continue
        try:
            found = file_attachment(path, rel, budget)
        except (ValueError, OSError) as exc:
            problems.append(sanitize_line(f"@{rel}: {exc}"))
            continue
        budget -= found.size
        if found.truncated:
            notes.append(f"{found.chip}: only the start is attached")
        attachments.append(found)
    for pasted in pasted_images(text, seen):
        attachments.append(pasted)
    if piped:
        text = f"{text}\n\n{piped}" if text else piped
    if not attachments:
        return Composed(UserMessage(text), (), tuple(problems), tuple(notes))
    blocks: list[Block] = [TextBlock(text)] if text else []
    blocks += [a.block for a in attachments]
    return Composed(UserMessage(tuple(blocks)), tuple(attachments), tuple(problems), tuple(notes))


_PASTED = re.compile(r"""(?:'([^'\n]+)'|"([^"\n]+)"|((?:~|/)(?:\\ |[^\s'"])+))""")


def pasted_images(text: str, seen: set[Path] | None = None) -> list[Attachment]:
    """Images whose paths were pasted (or dropped) into the message: an absolute
    or ``~`` path, quoted or with ``\\ `` escapes, ending in an image extension, that
    exists and holds an image. Anything else in the text stays words."""
    found: list[Attachment] = []
    seen = seen if seen is not None else set()
    for m in _PASTED.finditer(text):
        raw = (m.group(1) or m.group(2) or m.group(3) or "").replace("\\ ", " ")
        if Path(raw).suffix.lower() not in IMAGE_TYPES or not raw.startswith(("/", "~")):
            continue
        path = Path(os.path.expanduser(raw))
        try:
            resolved = path.resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if resolved in seen:
            continue
        try:
            found.append(image_attachment(resolved, path.name))
        except (ValueError, OSError):
            continue
        seen.add(resolved)
    return found


def split_message(message: UserMessage) -> tuple[str, list[str]]:
    """A user message as a front end shows it: the words, and a chip for each
    attachment (also for a message read back from a session)."""
    if isinstance(message.content, str):
        return message.content, []
    words: list[str] = []
    chips: list[str] = []
    for block in message.content:
        if isinstance(block, DataBlock):
            if block.media_type.startswith("image/"):
                from .accounting import image_size

                size = image_size(block.data)
                detail = f" · {size[0]}x{size[1]}" if size else ""
                chips.append(f"image{detail} · {human_size(len(block.data))}")
            continue
        if not isinstance(block, TextBlock):
            continue
        opening = _OPENING.match(block.text)
        if opening is None:
            words.append(block.text)
            continue
        tag, path, rest = opening.groups()
        cut = " (cut)" if "truncated" in rest else ""
        one, many = ("entry", "entries") if tag == DIR_TAG else ("line", "lines")
        count = re.search(rf'{many}="(\d+)"', rest)
        shown = path.replace("&quot;", '"').replace("&lt;", "<").replace("&amp;", "&")
        amount = plural(int(count.group(1)), one, many) if count else f"? {many}"
        chips.append(sanitize_line(f"@{shown} · {amount}{cut}"))
    return "\n".join(words), chips
