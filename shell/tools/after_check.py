"""The check after a sandboxed command (:meth:`Sandbox.after`), bounded in wall time,
and what it found when it finished too late for the command's own result.

The check moves out what the command planted that runs later, puts back renamed
folders and replace refs, and walks the workspace (its secret search may go ten
times further than the one before the command). The user waits for it: after a
command that ends it has :data:`AFTER_LIMIT` seconds, and after Esc (a cancel) only
:data:`CANCEL_LIMIT`, since Esc must stop at once (it waited ~7 s in a big workspace).

Past the limit nothing is skipped: the check goes on in its thread to the end (the
sandbox prepares the next command only after it: :func:`prepare`), and what it found
is said with the next sandboxed command's result (:func:`take_late_notes`), not
dropped: the result of a cancelled call is never shown, and one over the limit said
only that the check went on. So is what the check of a cancelled command found in
time (:func:`leave_unsaid`): that result is never given either.

The model hears of it only with its next command; the user hears of it when the
check ends: a front end that can say it then (the TUI, line mode) calls :func:`listen`,
and only what no listener said is printed at exit (:func:`finish`). Said once each.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from shell.permissions.sandbox import Sandbox
from shell.permissions.secretfiles import SecretFiles

if TYPE_CHECKING:  # what a command's check uses, imported at the first command (not while starting:
    from shell.permissions.runslater import Guard, Planted  # the workspace waits on settled() here)

AFTER_LIMIT = 3.0
"""Seconds the check after a sandboxed command may take before the result is given
without it (the check itself finishes in its thread; :func:`take_late_notes`)."""
CANCEL_LIMIT = 0.2
"""The same after a cancel (Esc): the shell must be idle again within half a second."""
LATE_NOTE = "[agent-shell: the check after an earlier command"
"""How a note about a check that finished late starts."""


class _Late:
    """Per sandbox: the lock that runs one check at a time, and what late checks found."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.notes: list[str] = []
        """For the model, with the next command's result."""
        self.untold: list[str] = []
        """For the user at exit: what no listener said and no result took."""


_LATE: weakref.WeakKeyDictionary[Sandbox, _Late] = weakref.WeakKeyDictionary()
_LATE_LOCK = threading.Lock()
_AT_EXIT: list[str] = []
"""What a listener took but its front end closed before showing (under ``_LATE_LOCK``)."""


def _late(sandbox: Sandbox) -> _Late:
    with _LATE_LOCK:
        late = _LATE.get(sandbox)
        if late is None:
            late = _LATE[sandbox] = _Late()
        return late


def checking(sandbox: Sandbox) -> threading.RLock:
    """Held while a check after a command runs in ``sandbox`` (also one that ends late)."""
    return _late(sandbox).lock


def prepare(sandbox: Sandbox) -> tuple[SecretFiles, Guard]:
    """:meth:`Sandbox.prepare`, once the check after the last command ended: the two
    share the sandbox's state (refs, flags and folders as they were before a command)."""
    with checking(sandbox):
        return sandbox.prepare()


class _Handoff:
    """Where the check's thread leaves its result: for the caller while it still waits,
    else for the next command's result (the lock decides which, once)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.result: tuple[list[Planted], str] | None = None
        self.error: BaseException | None = None
        self.gave_up = ""


async def check_after(sandbox: Sandbox, guard: Guard, started_ns: int, *,
                      cancelled: bool = False) -> tuple[list[Planted], str]:
    """What the check after a command found (moved out, put back, said) and what it
    could not reach; given up to :data:`AFTER_LIMIT` seconds (:data:`CANCEL_LIMIT`
    after a cancel), past which it goes on in its thread and its findings come with
    the next command (see the module)."""
    handoff = _Handoff()
    limit = CANCEL_LIMIT if cancelled else AFTER_LIMIT

    def run() -> None:
        with _running:
            _running.count += 1
        try:
            with checking(sandbox):  # what it found is left before the next command is prepared
                _run()
        finally:
            with _running:
                _running.count -= 1
                _running.notify_all()

    def _run() -> None:
        try:
            result = sandbox.after(guard, started_ns)
        except Exception as exc:
            with handoff.lock:
                if not handoff.gave_up:
                    handoff.error = exc
                    return
            failed = (f"it failed ({type(exc).__name__}: {exc}), so what the command planted may still be in "
                      "place: tell the user.]")
            _leave(sandbox, _late_head(handoff.gave_up, failed), [])
            return
        with handoff.lock:
            if not handoff.gave_up:
                handoff.result = result
                return
        found = after_notes(*result, sandbox.roots())
        said = "it found what follows.]" if found else "it found nothing.]"
        _leave(sandbox, _late_head(handoff.gave_up, said), found, tell=bool(found))

    with anyio.move_on_after(limit):
        await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
    with handoff.lock:
        if handoff.error is not None:
            raise handoff.error
        if handoff.result is not None:
            if cancelled:  # the caller raises: no result of its own says what it found
                leave_unsaid(sandbox, *handoff.result)
            return handoff.result
        handoff.gave_up = "was cancelled" if cancelled else f"took over {limit:g} s"
    return [], (f"the check took over {limit:g} s; it goes on, and what it finds is said with the next "
                "command's result")


def _late_head(why: str, said: str) -> str:
    return (f"{LATE_NOTE} (it {why} before the check ended) finished after that command's result was "
            f"given: {said}")


def leave_unsaid(sandbox: Sandbox, planted: list[Planted], unchecked: str) -> None:
    """What the check after a cancelled command found in time: its result is never
    shown, so it is said like a late check's (dropped before: Esc during ``sleep``
    left a planted ``.envrc`` moved out and nobody told)."""
    found = after_notes(planted, unchecked, sandbox.roots())
    if found:
        _leave(sandbox, "[agent-shell: the check after a command that was cancelled (so its result was never "
                        "given) found what follows.]", found)


Listener = Callable[[list[str]], bool]
"""Told, from the check's thread, what a check found after its command's result was
given; True when it will say it to the user. It must not block (it runs while the
sandbox waits for the check) and must not raise."""
_listeners: list[Listener] = []


def listen(listener: Listener) -> Callable[[], None]:
    """Tell ``listener`` what each late check finds, as it ends; returns how to stop."""
    _listeners.append(listener)

    def stop() -> None:
        if listener in _listeners:
            _listeners.remove(listener)
    return stop


def _leave(sandbox: Sandbox, head: str, found: list[str], *, tell: bool = True) -> None:
    """Keep ``head`` and ``found`` for the next result, and tell the user now (or at
    exit). A check that found nothing is the model's to know (its last result said the
    check went on), not news for the user."""
    notes = [head, *found]
    late = _late(sandbox)
    late.notes.extend(notes)
    if not tell:
        return
    told = False
    for listener in list(_listeners):
        try:
            told = listener(list(notes)) or told
        except Exception:  # a front end that is gone: the exit says it instead
            pass
    if not told:
        late.untold.extend(notes)


def tell_at_exit(notes: list[str]) -> None:
    """A listener that said True but whose front end closed before the user saw ``notes``
    (the TUI quitting) hands them back: :func:`finish` returns them for the exit to print."""
    with _LATE_LOCK:
        _AT_EXIT.extend(notes)


def for_user(note: str) -> str:
    """A note as the user reads it (not bracketed as for the model); not yet sanitised."""
    return note.replace("[agent-shell: ", "agent-shell: ").removesuffix("]")


class _Running(threading.Condition):
    count = 0


_running = _Running()
"""How many checks run now (their threads outlive the call that gave up on them)."""


def running() -> int:
    """How many checks after a command are running now."""
    with _running:
        return _running.count


async def settled() -> None:
    """Return once no check after a command is running: the file tools wait here, as
    the next command does (:func:`prepare`). A check that ended late may still be
    putting back a folder a read rule hides, which the command moved where no rule
    names it; read_file there, in the same reply, read the secret (finding M1)."""
    if running() != 0:
        await anyio.to_thread.run_sync(_idle, abandon_on_cancel=True)  # Esc still ends the wait


def _idle(timeout: float | None = None) -> None:
    """Block until no check runs (at most ``timeout`` seconds)."""
    with _running:
        _running.wait_for(lambda: _running.count == 0, timeout)


def finish(timeout: float | None = None) -> list[str]:
    """Wait for every running check to end (at most ``timeout`` seconds), then what
    checks that ended late found and neither a later result nor a listener said (once). The process must
    not end under a check: it ends with ``os._exit``, which would stop the thread
    half-way (what the command planted kept, and nothing said: finding L9)."""
    _idle(timeout)
    with _LATE_LOCK:
        lates = list(_LATE.values())
        notes = list(_AT_EXIT)
        _AT_EXIT.clear()
    for late in lates:
        notes += late.untold
        late.untold.clear()
        late.notes.clear()
    return notes


def take_late_notes(sandbox: Sandbox | None) -> list[str]:
    """What checks that finished late found (once; oldest first): for the next result
    (and no longer for the exit: the result says it)."""
    if sandbox is None:
        return []
    left, sandbox.unmarked[:] = list(sandbox.unmarked), []  # a crashed session's marks (.gitmarks)
    late = _late(sandbox)
    taken = list(late.notes)
    del late.notes[: len(taken)]
    late.untold[:] = [n for n in late.untold if not any(n is t for t in taken)]
    return [*(f"[agent-shell: {said}.]" for said in left), *taken]


def after_notes(planted: list[Planted], unchecked: str, roots: Sequence[Path]) -> list[str]:
    """What the check after a sandboxed command found, and where it could not look."""
    from shell.permissions import gclog, gitrefs, pathswaps, runslater, writewalls

    ruled = [p for p in planted if writewalls.is_rule_entry(p)]
    swapped = [p for p in planted if pathswaps.is_swap(p)]
    refs = [p for p in planted if gitrefs.is_changed_entry(p)]
    logs = [p for p in planted if gclog.is_entry(p)]
    sorted_out = {id(p) for p in (*ruled, *swapped, *refs, *logs)}  # not `in` a list: 150,000 tags hung it
    later = [p for p in planted if id(p) not in sorted_out]
    notes = [pathswaps.report(swapped, roots)] if swapped else []
    notes += [gitrefs.report(refs)] if refs else []
    notes += [runslater.report(later, roots)] if later else []
    notes += [writewalls.report(ruled, roots)] if ruled else []
    notes += [gclog.report(logs, roots)] if logs else []
    if unchecked:
        notes.append(f"[agent-shell could not check the whole workspace after this command ({unchecked}): "
                     "if it created git hooks, .envrc, .vscode or the like deeper in, they were not caught. "
                     "Tell the user.]")
    return notes
