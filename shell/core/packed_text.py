"""Large tool results kept as UTF-8 bytes, read back as the very same text.

Why: a tool result is held for the whole session (the history sends it to the model
every round; the front end shows it when a span is opened). CPython stores a string
at the width of its widest character, so a 100,000-character file with one ``≤`` or
``—`` in it takes 200 KB; its UTF-8 bytes take ~100 KB. With 1,000 ``read_file``
results in one turn that was 200 MB of the TUI's 282 (BENCHMARKS.md, round 8/9).

What the rest of the program sees does not change: a packed field is read through a
descriptor that decodes on access, so ``message.content`` / ``result.content`` is
always an equal ``str`` (hooks, providers, ``dataclasses.replace``, ``==``, pickling
all go through it). The text round-trips exactly: ``surrogatepass`` keeps even lone
surrogates. A string is packed only when it is large (``PACK_MIN_CHARS``) and its
bytes are clearly smaller than the string (mostly-ASCII text stored 2 or 4 bytes a
character); ASCII and CJK text stay strings, where packing would save nothing.

Why not zlib: compressing 100 KB costs ~2 ms here (2 s for 1,000 results) against
~0.15 ms to encode UTF-8; decoding is as cheap (~0.1 ms per 100 KB, a fraction of
what a provider spends turning the same text into JSON each round).
"""

from __future__ import annotations

import sys
from typing import Any

PACK_MIN_CHARS = 8192
"""Strings shorter than this are kept as they are (byte-identical, no decode cost)."""


class PackedText:
    """A text held as its UTF-8 bytes (``surrogatepass``: any ``str`` round-trips),
    and its length in characters (token estimates need no decoding)."""

    __slots__ = ("data", "length")

    def __init__(self, data: bytes, length: int) -> None:
        self.data = data
        self.length = length

    def text(self) -> str:
        return self.data.decode("utf-8", "surrogatepass")

    def __repr__(self) -> str:
        return f"PackedText({len(self.data)} bytes)"


def pack(value: Any) -> Any:
    """``value`` as it is best held: a ``PackedText`` for a large string whose UTF-8
    bytes take at most 3/4 of its memory, else ``value`` itself."""
    if type(value) is not str or len(value) < PACK_MIN_CHARS or value.isascii():
        return value
    data = value.encode("utf-8", "surrogatepass")
    if len(data) * 4 > sys.getsizeof(value) * 3:
        return value  # Latin-1 or mostly non-ASCII text: the string is as small
    return PackedText(data, len(value))


def unpack(value: Any) -> Any:
    """The value a packed field stands for (``PackedText`` decoded, anything else as is)."""
    return value.text() if type(value) is PackedText else value


class PackedField:
    """A data descriptor wrapping a slot: stores what it is given (packing strings
    when ``auto``), returns the unpacked value. Installed by :func:`packed_field`."""

    __slots__ = ("auto", "slot")

    def __init__(self, slot: Any, auto: bool) -> None:
        self.slot = slot
        self.auto = auto

    # Inlined (no call to pack/unpack): every read of a message's content comes here.
    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = self.slot.__get__(obj, owner)
        return value.text() if type(value) is PackedText else value

    def __set__(self, obj: object, value: Any) -> None:
        if self.auto and type(value) is str and len(value) >= PACK_MIN_CHARS:
            value = pack(value)
        elif self.auto and type(value) is tuple:
            _pack_items(value)
        self.slot.__set__(obj, value)


def packed_field(cls: type, name: str, *, auto: bool) -> None:
    """Make the slotted dataclass field ``cls.name`` a packed field. ``auto``: every
    string stored is packed when large; otherwise only :func:`compact` packs it (for
    values that hooks still read many times before they settle)."""
    slot = cls.__dict__[name]
    if isinstance(slot, PackedField):
        return
    setattr(cls, name, PackedField(slot, auto))


_VARIANTS: dict[type, tuple[type, str, PackedField]] = {}
"""A class whose items are packed by turning into a subclass (:func:`packed_variant`)."""


def packed_variant(cls: type, variant: type, name: str) -> None:
    """Items of ``cls`` (a slotted dataclass) packed in a result's tuple become
    ``variant`` (a subclass with ``__slots__ = ()``, the same layout), whose ``name`` is
    the packed field: ``cls`` keeps a plain slot, so the many items never packed (every
    text block of every reply) are read at a slot's speed, not a descriptor's."""
    field = PackedField(cls.__dict__[name], auto=False)
    setattr(variant, name, field)
    _VARIANTS[cls] = (variant, name, field)


def _field(obj: object, name: str) -> PackedField | None:
    """The packed field ``name`` of ``obj``'s class or a base (a user's subclass of
    ``ToolResult`` inherits it); None when a subclass put something else there."""
    for klass in type(obj).__mro__:
        descriptor = klass.__dict__.get(name)
        if descriptor is not None:
            return descriptor if isinstance(descriptor, PackedField) else None
    return None


def stored(obj: object, name: str) -> Any:
    """What the packed field ``obj.name`` holds (a ``PackedText`` stays packed), to
    hand to another packed field without decoding and encoding again."""
    field = _field(obj, name)
    return getattr(obj, name) if field is None else field.slot.__get__(obj, type(obj))


def store(obj: object, name: str, value: Any) -> None:
    """Set the packed field ``obj.name`` to ``value`` (a ``PackedText`` is kept as it
    is, shared, not copied), frozen dataclasses included. Only for values equal to
    what the field stands for, or on an object nobody else has seen yet."""
    field = _field(obj, name)
    if field is None:  # not packed here: a plain attribute takes the text itself
        object.__setattr__(obj, name, unpack(value))
    else:
        field.slot.__set__(obj, value if type(value) is PackedText else pack(value) if field.auto else value)


def compact(obj: object, name: str) -> None:
    """Pack the string ``obj.name`` holds, in place. The value read stays equal, so
    this is invisible to anyone who holds ``obj``, frozen or not. A tuple of blocks (an
    MCP result: text next to an image) has the ``text`` of each block packed instead."""
    field = _field(obj, name)
    if field is not None:
        value = field.slot.__get__(obj, type(obj))
        if type(value) is tuple:
            _pack_items(value)
        else:
            field.slot.__set__(obj, pack(value))


def _pack_items(items: tuple[Any, ...]) -> None:
    """Pack the ``text`` of each item whose class has it as a packed field, or a packed
    variant (a text block; an image's bytes are bytes already)."""
    for item in items:
        variant = _VARIANTS.get(type(item))
        if variant is not None:
            kind, name, slot_field = variant
            value = pack(getattr(item, name))
            if type(value) is PackedText:  # only then: a small block keeps its fast class
                object.__setattr__(item, "__class__", kind)  # same slots: the block stays the same object
                slot_field.slot.__set__(item, value)
            continue
        field = _field(item, "text")
        if field is not None:
            field.slot.__set__(item, pack(field.slot.__get__(item, type(item))))
