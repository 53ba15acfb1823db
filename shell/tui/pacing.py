"""How fast a streamed reply is drawn: the sizes and paces the assistant message's
renderer (:mod:`.widgets.assistant_message`) works by, each with the measurement
behind it. Kept apart so the widget's module reads as behaviour."""

from __future__ import annotations

CHUNK_LIMIT = 150
"""Characters per Markdown document before the next cut. Finished documents become
the lines they rendered to (``rendered_chunk``), so only the last one is laid out
and drawn at each frame: the smaller it is, the shorter the frame, but each cut
costs a mount and a capture. Measured (tui_stream, 50 KB, CPU per frame): 600
gave a median frame of 16-20 ms, 150 gave 12-13, 1 (a cut at every safe place)
12-15 with 15 % more CPU in all. (Before finished documents were kept as lines,
600 was best: more documents meant more widgets in every frame.)"""
SHOWN_LIMIT = 600
"""Characters per document for a reply shown whole (a resumed session, a finished
entry brought back): no frame is spent growing it, so fewer, larger documents (fewer
widgets to mount) are better; 600 as before the chunks were kept as lines."""
FRAME_S = 1 / 60
FRAME_BUDGET = 200
"""Characters rendered per frame when little waits, so a burst of deltas (a fast
model, a replayed session) never stalls the event loop; the rest waits."""
BACKLOG_FRAMES = 12
"""A larger backlog is drawn in this many frames (a fifth of a second)..."""
MAX_FRAME_BUDGET = 12_000
"""...but never more than this many characters in one frame (a frame stays short
enough for Esc to be handled at once)."""
HIDDEN_BUDGET = 1_000_000
"""Characters of a block too long (past the cap of ``mdcap``: counted, not drawn) gone
through in one frame on top of the budget: sanitised and scanned, ~35 ms a megabyte."""
PIECE_LIMIT = 4 * CHUNK_LIMIT
"""Most characters written to a document at once (a frame is drawn in pieces of a
line or so: a line that never ends in pieces of this size)."""
VIEW_MARGIN = 0.5
"""Chunks within this many screen heights of the viewport stay live."""
SETTLE_S = 0.2
"""After a block ends, how long the layout gets to catch up before parking again."""
SETTLE_TRIES = 10
"""How many more passes (``SETTLE_S`` apart) wait for a layout that lets a finished
chunk's lines be kept."""
