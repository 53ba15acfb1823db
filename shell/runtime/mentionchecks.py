"""The permission checks of a message's ``@`` files, off the event loop.

Whether ``@src/app.py`` may be attached is ``policy.decide`` for ``read_file`` on it
(and, for a ``-p`` prompt, a look at whether it holds secrets): the same checks a tool
call's gate runs, which read files, run git and match patterns. On the loop a slow one
froze the screen, the keys and Esc before the message was even sent (the gate's checks
had moved to a worker thread for finding T5; these had not). So each runs the way the
gate's does (:func:`middleware.human_in_the_loop.bounded`): in a worker thread, under
the same time limit, failing closed. A mention whose check timed out or was stopped is
a *problem* of the message: the front end says why and does not send it, so nothing is
sent without the file the user meant to attach, and nothing the check did not clear.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from functools import partial

import anyio

STOPPED = "not attached: its permission check was stopped before it ended; send the message again"
"""A mention whose check Esc (or Ctrl+C) stopped, or that named no file when it was checked."""


def too_long(seconds: float) -> str:
    """What the user reads for a mention whose check passed the time limit."""
    return (f"not attached: the permission check took too long (over {seconds:g} s); send the message "
            "again, or without this file")


async def judge_mentions(
    paths: Sequence[str], judge: Callable[[str], str], found: MutableMapping[str, str]
) -> None:
    """``found[path]`` = ``judge(path)`` ("" when it may be attached, else why not) for
    each path, in worker threads side by side, each bounded by the gate's limit. A path
    left out of ``found`` (the caller cancelled) must count as refused: :data:`STOPPED`."""
    from middleware import human_in_the_loop

    async def one(path: str) -> None:
        why = await human_in_the_loop.bounded(partial(judge, path))
        found[path] = too_long(human_in_the_loop.CHECK_SECONDS) if why is None else why

    async with anyio.create_task_group() as group:
        for path in paths:
            group.start_soon(one, path)
