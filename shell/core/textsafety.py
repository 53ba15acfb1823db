"""The one sanitiser between outside strings and anything that leaves the process.

Text from a model, a tool, an MCP server, a provider, a file or a session file is
hostile: printed raw, an escape sequence moves the cursor, rewrites what the user
already read, sets the window title or (OSC 52) writes the clipboard; a C1 byte
does the same on terminals that honour 8-bit controls; a bidi override makes
``rm -rf /`` read as something else (Trojan Source); a lone surrogate cannot even
be encoded, so writing it raises. Every front end passes such text through
:func:`sanitize` (or a :class:`StreamSanitizer` for streamed deltas) before any
terminal write, and every JSON it prints or stores goes through :func:`json_text`.

Neutralised, never silently dropped, so the user sees that something was there:
C0 controls become their Control Pictures (ESC is ``␛``, BEL ``␇``; ``\\n`` and
``\\t`` are kept, ``\\r\\n`` becomes ``\\n``), DEL is ``␡``, C1 controls are
written ``\\x9b``, bidi overrides and isolates ``\\u202e``, lone surrogates
``\\ud800``. What follows an ESC (``[31m``) is then plain, harmless text.

Invisible characters are shown the same way (Python's notation: ``\\u200b``, and
``\\U000e0049`` beyond the BMP), because what a user reads and approves must be
what is there: a file holding "Use tabs." plus an instruction spelled in Unicode
*tag* characters (U+E0000..U+E007F, which models read as ASCII and terminals draw
as nothing) would otherwise show as "Use tabs." alone. :data:`INVISIBLE` lists
them: tags and the variation selectors supplement (U+E0000..U+E0FFF), zero-width
space, LRM/RLM/ALM, word joiner and invisible operators (U+2060..U+206F), BOM,
soft hyphen, line/paragraph separators, Hangul fillers, interlinear annotation,
the Mongolian vowel separator and the other invisible format controls.
Deliberately kept: ZWNJ/ZWJ (U+200C/U+200D) and the variation selectors
U+FE00..U+FE0F, which emoji and Persian or Indic text need (and which cannot spell
ASCII). :func:`hidden_characters` counts them, for a warning next to what is shown.

JSON can recurse without bound: a tool's arguments nested 5,000 deep make
``json.dumps`` raise ``RecursionError``. :func:`json_text` falls back to an
iterative encoder, and :func:`map_strings` (the walk the redactor uses) is
iterative too and turns whatever lies deeper than ``MAX_DEPTH`` into its JSON
text, so what it returns can always be encoded *and* read back.

This module imports nothing of the project (but :mod:`.deepjson`, which imports nothing)
and no terminal library, so the
core, the middleware, the sessions and every front end share it, and the TUI's
first frame can import it without the engine.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable
from typing import Any

from .deepjson import dumps_iteratively

MAX_DEPTH = 64
"""Nesting kept as it is by :func:`map_strings`; deeper values become JSON text."""

INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200e\u200f\u2028\u2029"
    "\u2060-\u2065\u206a-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
"""Invisible characters shown as escapes (a regex character-class body): see above.
The bidi controls (U+202A..U+202E, U+2066..U+2069) are neutralised too, as before."""
_BIDI = "\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}{INVISIBLE}\ud800-\udfff]")
_UNSAFE_ASCII = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
"""What :data:`_UNSAFE` can find in ASCII text, three times faster to scan for."""
_HIDDEN = re.compile(f"[{_BIDI}{INVISIBLE}]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a surrogate. ASCII text (most of what models write) is
    answered without a scan: ``str.isascii`` reads a flag CPython keeps; the regex
    took 0.8 s over a 20 s flood's text when Ctrl+C made the partial message."""
    return not text.isascii() and _SURROGATE.search(text) is not None
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f{_BIDI}{INVISIBLE}\ud800-\udfff]")


def _visible(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # Control Pictures: ␀ … ␟ (ESC is ␛)
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0x9F:
        return f"\\x{code:02x}"
    if code > 0xFFFF:
        return f"\\U{code:08x}"
    return f"\\u{code:04x}"


_TABLE = {c: _visible(chr(c)) for c in [*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F),
                                        *range(0x2066, 0x206A)] if chr(c) not in "\n\t"}


def _replace(match: re.Match[str]) -> str:
    char = match.group()
    return _TABLE.get(ord(char)) or _visible(char)


def join_surrogates(text: str) -> str:
    """Pairs of surrogates (a delta cut inside an emoji, a JSON ``\\ud83d\\ude00``)
    joined into the character they encode; lone ones are left as they are."""
    if not _has_surrogate(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def encodable(text: str) -> str:
    """``text`` that UTF-8 can encode: surrogate pairs joined, every lone surrogate
    (a hostile server's ``\\udc00``, a proxy that cut a pair, a file name that is
    not UTF-8 read with ``surrogateescape``) replaced by U+FFFD. For text that is
    *kept and sent again* (history, request bodies, session files): one lone
    surrogate there made every later request raise ``UnicodeEncodeError``, so the
    conversation and its saved session were dead for good."""
    if not _has_surrogate(text):
        return text
    return _SURROGATE.sub("\ufffd", join_surrogates(text))


def encodable_value(value: Any) -> Any:
    """A JSON value with :func:`encodable` applied to every string and key (iterative,
    any depth), as a copy (tuples become lists, see :func:`map_strings`)."""
    return map_strings(value, encodable, max_depth=1 << 30)


def is_encodable(value: Any) -> bool:
    """Whether a JSON value holds no surrogate anywhere (so UTF-8 can encode it)."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except RecursionError:
        text = dumps_iteratively(value)
    return not _has_surrogate(text)


def utf8_json(value: Any) -> bytes:
    """``value`` as compact JSON in UTF-8 for a request body; never raises for a lone
    surrogate (it becomes U+FFFD) nor for depth (see :func:`json_text`)."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except RecursionError:
        text = dumps_iteratively(value, compact=True)
    return encodable(text).encode("utf-8")


_NAME_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}{INVISIBLE}\ud800-\udfff]")
_NAME_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[ntr])")
_NAME_CONTROLS = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _name_escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _NAME_CONTROLS:
        return _NAME_CONTROLS[char]
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, as ``os`` gives it (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\U{code:08x}" if code > 0xFFFF else f"\\u{code:04x}"


def path_text(name: str) -> str:
    """A file name or path as a tool result shows it to the model: one line, and
    sendable. A byte that is not UTF-8 (``os`` gives ``\\udcff`` for it) is written
    ``\\xff``, a newline ``\\n``, other controls ``\\x1b``, bidi and invisible
    characters ``\\u202e``. Before, a legacy Latin-1 name ended every real
    provider's conversation (the request could not be encoded), and a name holding a
    newline forged entries of its own in ``list_dir``/``glob``. The model can pass
    the name back as shown: :func:`path_from_text` reverses it, and the one path
    resolver tries that when the name as written does not exist."""
    if name.isascii() and _UNSAFE_ASCII.search(name) is None and "\n" not in name and "\t" not in name:
        return name
    return _NAME_UNSAFE.sub(_name_escape, name)


def _name_unescape(match: re.Match[str]) -> str:
    body = match.group(1)
    if body in ("n", "t", "r"):
        return {"n": "\n", "t": "\t", "r": "\r"}[body]
    code = int(body[1:], 16)
    if body[0] == "x":
        if 0 < code < 0x20 or code == 0x7F:
            return chr(code)
        return chr(0xDC00 + code) if code >= 0x80 else match.group()
    char = chr(code) if code <= 0x10FFFF else ""
    if char and not 0xD800 <= code <= 0xDFFF and _NAME_UNSAFE.fullmatch(char):
        return char
    return match.group()  # never a "/", a NUL or printable text: the path keeps its shape


def path_from_text(text: str) -> str:
    """The name :func:`path_text` showed as ``text`` (escapes read back; others kept)."""
    return _NAME_ESCAPE.sub(_name_unescape, text) if "\\" in text else text


_PLAIN_ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


def plain_id(value: str) -> str:
    """An id chosen by a model or a server, as it may reach another program (an
    editor's ``toolCallId``): kept when it is plain (letters, digits, ``_.:-``, at
    most 128), else an id of our own derived from it (``call_`` and 24 hex digits),
    the same every time, so a replayed session names the same call. An editor that
    logs or shows ids printed escape sequences, CR and BS raw before."""
    if _PLAIN_ID.fullmatch(value):
        return value
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return f"call_{digest}"


def as_text(value: Any) -> str:
    """``value`` when it is a string, else its JSON text (a name that arrived as an
    object, a number): the sanitiser is the last line of defence, so a value of the
    wrong type is shown, never a crash."""
    if isinstance(value, str):
        return value
    try:
        return json_text(value)
    except Exception:  # anything at all still gets shown as something
        return object.__repr__(value)


def sanitize(text: str) -> str:
    """``text`` safe for a terminal: every control, bidi override and lone
    surrogate replaced by a visible stand-in (``\\n`` and ``\\t`` kept).
    Anything that is not a string is shown as its JSON text (:func:`as_text`)."""
    text = as_text(text)
    if is_safe(text):
        return text
    text = join_surrogates(text).replace("\r\n", "\n")
    return _UNSAFE.sub(_replace, text)


def sanitize_line(text: str) -> str:
    """:func:`sanitize` for one line of a list or a status (a name, a title): the
    line breaks of a hostile value must not start lines of their own either."""
    return sanitize(text).replace("\n", "\u23ce").replace("\t", " ")


BLANK_RUN = re.compile(r"[ \t]{8,}")


def show_blank_runs(text: str) -> str:
    """Runs of eight or more blanks shown as ``⟨400 blanks⟩``: a command padded with
    spaces hides its tail past the screen's edge, or pushes it lines away from its
    harmless head (finding J12). For text a user approves or trusts, never for text
    that is run: the marker is not what the command holds."""
    return BLANK_RUN.sub(lambda m: f" \u27e8{len(m.group(0))} blanks\u27e9 ", text)


def hidden_characters(text: str) -> int:
    """How many invisible or direction-changing characters ``text`` holds (what
    :func:`sanitize` shows as ``\\u…``/``\\U…`` escapes besides controls): a
    front end or a middleware says so next to the text, e.g. "holds 52 hidden
    characters", since a row of escapes is easy to scroll past."""
    text = as_text(text)
    return 0 if text.isascii() else len(_HIDDEN.findall(text))


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


def control_characters(text: str) -> tuple[int, str]:
    """How many controls ``text`` holds besides line ends and tabs (the CR of a CRLF
    is a line end; a lone one is not), and each kind once as :func:`sanitize` shows it
    (``"␍ ␛"``): a CR or an ESC in what a file gets makes ``cat`` show other text than
    it holds (finding P17), and a ``␍`` in a long diff is as easy to miss as ``\\u…``."""
    found = _CONTROL.findall(as_text(text))
    return len(found), " ".join(dict.fromkeys(_TABLE[ord(c)] for c in found))


HIDDEN_PATTERN = f"[{_BIDI}{INVISIBLE}\u200c\u200d\ufe00-\ufe0f]+"
"""What :func:`without_hidden` takes away (the secrets policy looks for it with RE2)."""
_MATCHED_AWAY = re.compile(HIDDEN_PATTERN)


def without_hidden(text: str) -> str:
    """``text`` with every invisible, joining or direction-changing character taken
    out (ZWJ and the variation selectors too), for matching, never for showing: a key
    with U+200B or a soft hyphen between its letters is still the key when a
    recipient drops them, and no real key holds one."""
    return text if text.isascii() else _MATCHED_AWAY.sub("", text)


def without_hidden_where(text: str) -> tuple[str, list[int]]:
    """:func:`without_hidden` and, for each character it keeps, its index in ``text``:
    so a key found in the stripped text can be cut out of ``text`` whole, invisible
    characters included."""
    where: list[int] = []
    kept: list[str] = []
    pos = 0
    for match in _MATCHED_AWAY.finditer(text):
        where.extend(range(pos, match.start()))
        kept.append(text[pos : match.start()])
        pos = match.end()
    where.extend(range(pos, len(text)))
    kept.append(text[pos:])
    return "".join(kept), where


_TAG_RUN = re.compile("[\U000e0020-\U000e007e]+")


def tag_text(text: str, limit: int = 200) -> str:
    """What the Unicode tag characters in ``text`` spell (each is an ASCII character
    moved to U+E00xx), runs joined by `` … ``, at most ``limit`` characters: a
    warning can then say what a model would read, e.g. "Ignore previous
    instructions", instead of a row of ``\\U000e00xx`` escapes. ``""`` when none."""
    text = as_text(text)
    runs = ["".join(chr(ord(c) - 0xE0000) for c in run) for run in _TAG_RUN.findall(text)]
    spelled = " … ".join(runs)
    return spelled if len(spelled) <= limit else spelled[: limit - 1] + "…"


def is_safe(text: object) -> bool:
    """True when :func:`sanitize` would leave ``text`` as it is (never for a value
    that is not a string: it must be made one first)."""
    if not isinstance(text, str):
        return False
    if text.isascii():  # most text: a fast scan (the ranges beyond ASCII cost 3x)
        return _UNSAFE_ASCII.search(text) is None
    return _UNSAFE.search(text) is None


class SafeLogFormatter(logging.Formatter):
    """A log line that is safe to write to a terminal or a log file an editor shows.

    ``agent-shell acp`` logs to stderr, which editors show in a log pane (or the user
    tails in a terminal): the ACP SDK logs a client's method name as it came, and our
    warnings quote errors holding a client's or a server's text, so an escape
    sequence, a bidi override or a lone surrogate in a frame reached that log raw.
    The message (with its arguments) becomes one line (:func:`sanitize_line`: a
    newline in a hostile value cannot forge a log line of its own); the traceback
    keeps its lines, neutralised by :func:`sanitize`."""

    def format(self, record: logging.LogRecord) -> str:
        try:
            message = record.getMessage()
        except Exception as exc:  # a bad format string in a library's call: say so, keep the rest
            message = f"{record.msg!r} (could not be formatted: {exc!r})"
        safe = logging.makeLogRecord(record.__dict__)  # other handlers see the record as it was
        safe.msg, safe.args = sanitize_line(message), None
        return sanitize(super().format(safe))


class StreamSanitizer:
    """:func:`sanitize` for text that arrives in pieces.

    Each character is neutralised on its own, so a sequence cut across two
    deltas cannot leak; only a trailing ``\\r`` (maybe half of ``\\r\\n``) and a
    trailing high surrogate (maybe half of a pair) wait for the next piece.
    A lone surrogate is shown as U+FFFD, not ``\\ud800``: streamed text is a
    model's reply, which the history and the session file keep :func:`encodable`,
    so the reply reads the same live and resumed.
    """

    def __init__(self) -> None:
        self._held = ""

    def feed(self, chunk: str) -> str:
        chunk = as_text(chunk)
        text = self._held + chunk if self._held else chunk
        self._held = ""
        if text and (text[-1] == "\r" or "\ud800" <= text[-1] <= "\udbff"):
            self._held, text = text[-1], text[:-1]
        return sanitize(encodable(text))

    def flush(self) -> str:
        held, self._held = self._held, ""
        return sanitize(encodable(held))


# -- JSON ---------------------------------------------------------------------------


def _escape_json(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # JSON spells it as a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_text(
    value: Any, *, indent: int | None = None, sort_keys: bool = False, compact: bool = False
) -> str:
    """``value`` as JSON that any terminal, pipe or UTF-8 file can take.

    Non-ASCII text stays readable, but C0 and C1 controls, DEL, bidi overrides,
    invisible characters (:data:`INVISIBLE`, line/paragraph separators among
    them) and surrogates are ``\\u`` escapes (JSON-equivalent,
    so a reader gets the same string back, lone surrogates included). Never
    raises ``RecursionError``: a value too deep for ``json.dumps`` is encoded
    iteratively. Values must be JSON-ready (see :func:`map_strings`). ``compact``:
    no spaces after ``,`` and ``:`` (session files)."""
    separators = (",", ":") if compact else None
    try:
        text = json.dumps(
            value, ensure_ascii=False, indent=indent, sort_keys=sort_keys, separators=separators
        )
    except RecursionError:
        text = dumps_iteratively(value, compact)
    if text.isascii():  # the common case, scanned in C: json.dumps escaped C0, DEL is all that is left
        return text.replace("\x7f", "\\u007f") if "\x7f" in text else text
    return _JSON_UNSAFE.sub(_escape_json, text)


def map_strings(value: Any, fn: Callable[[str], str], *, max_depth: int = MAX_DEPTH) -> Any:
    """A copy of a JSON value with ``fn`` applied to every string and dict key.

    Iterative, so no nesting can exhaust the stack. Tuples become lists, other
    non-JSON leaves become their ``repr``; a container deeper than ``max_depth``
    becomes its JSON text (``fn`` applied to it too), so the result always
    encodes and decodes again and nothing is dropped."""
    root: list[Any] = [None]
    # (container to fill, key or index, value, depth)
    work: list[tuple[Any, Any, Any, int]] = [(root, 0, value, 0)]
    while work:
        parent, slot, item, depth = work.pop()
        if isinstance(item, str):
            parent[slot] = fn(item)
        elif item is None or isinstance(item, (bool, int, float)):
            parent[slot] = item
        elif isinstance(item, (dict, list, tuple)):
            if depth >= max_depth:
                parent[slot] = fn(json_text(_plain(item)))
            elif isinstance(item, dict):
                copy: dict[str, Any] = {}
                parent[slot] = copy
                keyed = [(fn(str(k)), v) for k, v in item.items()]
                for k, _ in keyed:
                    copy[k] = None  # keep the order of the keys
                work.extend((copy, k, v, depth + 1) for k, v in reversed(keyed))
            else:
                items: list[Any] = [None] * len(item)
                parent[slot] = items
                work.extend((items, i, v, depth + 1) for i, v in reversed(list(enumerate(item))))
        else:
            parent[slot] = fn(repr(item))
    return root[0]


def _plain(value: Any) -> Any:
    """``value`` with non-JSON leaves as ``repr`` (iteratively), for :func:`json_text`."""
    return map_strings(value, lambda s: s, max_depth=1 << 30)
