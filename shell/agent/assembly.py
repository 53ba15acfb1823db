"""Moved to :mod:`shell.core.assembly` (the bottom layer, where middleware can use it
too); these names stay importable from here."""

from shell.core.assembly import ChunkAssembler, ChunkCollector, MessageBuilder, message_chunks, parse_args

__all__ = ["ChunkAssembler", "ChunkCollector", "MessageBuilder", "message_chunks", "parse_args"]
