"""``/rewind``: back to just before a message you sent: the conversation, the files, or both.

The session's checkpoints (:mod:`shell.sessions.checkpoints`) say which files
the agent changed after that message and what they held before; the session
file says what the conversation was. :func:`plan_rewind` works out what a rewind
would do and :meth:`RewindPlan.describe` says it (shown before anything
changes); :func:`apply_rewind` does it. Front ends draw the choice their own way
(a dialog in the TUI, a numbered list in the line mode) on top of these.

What ``run_shell`` did is listed too: in the sandbox its writes to the workspace
were captured and are put back like the file tools' changes; outside it they
could not be, and the plan says that the command is not undoable.

A rewind never destroys a change it did not make: a file whose content is no
longer what the agent's tool left in it (the user edited it since) is left as it
is, and the preview and the result say so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from . import rewindgit, rewindtree
from .core.messages import AssistantMessage, Message, TextBlock, ToolResultMessage, UserMessage
from .core.textsafety import sanitize_line
from .rewindfiles import FileStep, describe_step, file_step, left_line, moved_step
from .tools.capture import CUT_NOTE, NOT_UNDONE

if TYPE_CHECKING:
    from .runtime import ShellRuntime
    from .sessions.checkpoints import Checkpoints, FileChange, ShellRun, Turn

What = Literal["both", "conversation", "files"]


class RewindError(Exception):
    """A rewind that cannot be done (busy, no such message); the message says why."""


@dataclass(frozen=True, slots=True)
class TurnRow:
    """One message in the ``/rewind`` list."""

    number: int
    text: str
    at: str
    files: int
    commands: int

    def line(self, width: int) -> str:
        """The message on one line, cut to ``width`` characters."""
        line = " ".join(self.text.split())
        return line if len(line) <= width else line[: width - 1] + "…"

    @property
    def did(self) -> str:
        """What the turn changed (``· 2 files, 1 command``), or nothing."""
        did = []
        if self.files:
            did.append(f"{self.files} file{'s' if self.files != 1 else ''}")
        if self.commands:
            did.append(f"{self.commands} command{'s' if self.commands != 1 else ''}")
        return f"  · {', '.join(did)}" if did else ""


@dataclass(slots=True)
class RewindPlan:
    turn: Turn
    messages: list[Message] | None
    """The conversation as it was before the message (None: it cannot be restored)."""
    conversation_note: str
    dropped: int
    """Messages the conversation would lose."""
    files: list[FileStep] = field(default_factory=list)
    commands: list[ShellRun] = field(default_factory=list)
    messages_after: list[Message] | None = None
    """What the conversation would lose."""
    brought_back: list[Message] = field(default_factory=list)
    """Messages a compaction summarised that the rewind puts back in full (the
    conversation goes back to how it was before the compaction, up to the message)."""
    summarised: bool = False
    """The message is no longer in the conversation: a compaction summarised it."""
    tree: list[rewindtree.TreeStep] = field(default_factory=list)
    """Folders commands renamed and symlinks they made: undone before the files."""
    git: rewindgit.GitStep | None = None

    @property
    def dropped_said(self) -> str:
        """What the conversation loses, in parts that add up to :attr:`dropped`
        ("1 message of yours, 2 model turns and 1 tool result"): the preview and the
        question before a rewind say these same numbers (they said "1 message of yours,
        2 model turns" and "(4 message(s) in all)" of one rewind)."""
        after = self.messages_after or []
        kinds = ((UserMessage, "message", " of yours"), (AssistantMessage, "model turn", ""),
                 (ToolResultMessage, "tool result", ""))
        counts = [(sum(isinstance(m, kind) for m in after), what, mine) for kind, what, mine in kinds]
        other = len(after) - sum(n for n, _, _ in counts)
        parts = [_count(n, what) + mine for n, what, mine in (*counts, (other, "other message", "")) if n]
        if not parts:
            return "nothing"
        return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]

    @property
    def file_changes(self) -> list[FileStep]:
        return [f for f in self.files if f.action in ("restore", "delete")]

    @property
    def lost(self) -> list[FileStep]:
        return [f for f in self.files if f.action == "lost"]

    @property
    def kept(self) -> list[FileStep]:
        """Files changed by someone else since the agent wrote them: left alone."""
        return [f for f in self.files if f.action == "kept"]

    def describe(self, position: int | None = None) -> str:
        """What the rewind would change, in Markdown (paths and texts made safe);
        ``position``: the message's number in the list (its count in the session
        differs once a rewind removed messages: finding Y6)."""
        lines = [f"**Rewind to before message {position or self.turn.number}**: {_quote(self.turn.text)}", ""]
        if self.messages is None:
            lines.append(f"- Conversation: cannot go back ({self.conversation_note}).")
        elif self.summarised:
            gone = f"the {self.dropped} message(s) there now are removed, the summary among them " \
                   f"({_replies(self.messages_after or [])})"
            if self.brought_back:
                what = (", so the conversation goes back to how it was before the compaction, up to this "
                        f"message: the {len(self.brought_back)} message(s) before it that the summary had "
                        f"replaced come back in full ({_replies(self.brought_back)}), and {gone}")
            else:
                what = f"; the conversation starts empty again: {gone}"
            lines.append(f"- Conversation: this message was summarised by a compaction{what}; "
                         "your message comes back to the prompt.")
        elif self.dropped:
            lines.append(f"- Conversation: this message and all after it are removed ({self.dropped_said}); "
                         "your message comes back to the prompt.")
        else:
            lines.append("- Conversation: nothing to remove.")
        lines += rewindtree.describe(self.tree) + rewindgit.describe(self.git)
        changes = self.file_changes
        if changes:
            lines.append(f"- Files: {len(changes)} go back:")
            for step in changes:
                lines.append(f"  - {describe_step(step)}")
        elif any(f.action in ("lost", "kept", "moved") for f in self.files):
            lines.append("- Files:")
        else:
            lines.append("- Files: none changed by the agent since (nothing to put back).")
        for step in self.lost:
            lines.append(f"  - `{step.shown}` cannot be put back: {step.note}")
        for step in (f for f in self.files if f.action in ("kept", "moved")):
            lines.append(left_line(step))
        same = [f for f in self.files if f.action == "unchanged"]
        if same:
            lines.append(f"  - {len(same)} file(s) the agent changed are already as they were.")
        for run in self.commands:
            command = _code(run.command)
            if run.captured:
                lines.append(f"- Command {command}: ran in the sandbox; what it changed in files is "
                             "included above.")
                if run.note.startswith(CUT_NOTE):  # the scan after it ran out of budget
                    lines.append(f"  - Not all of it: {sanitize_line(run.note.split('; ' + NOT_UNDONE)[0])}.")
                if NOT_UNDONE in run.note:  # renames and symlinks: put files back, not these
                    said = sanitize_line(run.note[run.note.index(NOT_UNDONE):])
                    lines.append(f"  - **Not undone**, {said}: check these yourself (a symlink set back "
                                 "with `ln -sfn`).")
            else:
                why = run.note or "it ran outside the sandbox"
                lines.append(f"- Command {command}: **not undoable** ({why}); what it changed stays.")
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class RewindOutcome:
    conversation: bool
    restored: list[str]
    deleted: list[str]
    failed: list[str]
    text: str
    """The message's text, for the prompt (empty when the conversation stayed)."""
    brought_back: int = 0
    """Messages a compaction had summarised that are back in full."""
    kept: tuple[str, ...] = ()
    """Files left as they are: changed since the agent wrote them."""
    tree: tuple[str, ...] = ()
    """Renames and symlinks undone, said (``renamed `sub_old` back to `sub```)."""

    def describe(self) -> str:
        parts = [f"Undone: {', '.join(self.tree)}."] if self.tree else []
        if self.conversation and self.brought_back:
            parts.append(f"The conversation is back to before that message, as it was before the compaction "
                         f"that summarised it ({self.brought_back} message(s) before it back in full).")
        elif self.conversation:
            parts.append("The conversation is back to before that message.")
        if self.restored or self.deleted:
            done = []
            if self.restored:
                done.append(f"{len(self.restored)} file(s) restored")
            if self.deleted:
                done.append(f"{len(self.deleted)} file(s) the agent created removed")
            parts.append(", ".join(done).capitalize() + ".")
        for failure in self.failed:
            parts.append(f"Not put back: {failure}")
        if self.kept:
            names = ", ".join(f"`{name}`" for name in self.kept)
            parts.append(f"Left as they are, because they changed since the agent wrote them: {names}.")
        return " ".join(parts) or "Nothing to change."


def turns(runtime: ShellRuntime) -> list[TurnRow]:
    """The messages of this conversation that a rewind can go back to, oldest first."""
    from .sessions.checkpoints import FileChange, ShellRun

    cp = runtime.checkpoints
    if cp is None:
        return []
    counts: dict[int, list[int]] = {}
    for record in cp.records:
        if isinstance(record, (FileChange, ShellRun)):
            row = counts.setdefault(record.turn, [0, 0])
            row[0 if isinstance(record, FileChange) else 1] += 1
    return [
        TurnRow(t.number, t.text, t.at, *counts.get(t.number, [0, 0]))
        for t in cp.turns()
    ]


def plan_rewind(runtime: ShellRuntime, number: int) -> RewindPlan:
    """What going back to before message ``number`` would change (nothing changes yet)."""
    cp = runtime.checkpoints
    turn = cp.find_turn(number) if cp is not None else None
    if cp is None or turn is None:
        known = [t.number for t in (cp.turns() if cp is not None else [])]
        where = f"1 to {known[-1]}" if known else "none yet"
        raise RewindError(f"There is no message {number} to rewind to (messages: {where}).")
    messages, note = _conversation_before(runtime, cp, turn)
    from .sessions.checkpoints import FileChange, ShellRun

    history = runtime.agent.messages
    dropped = 0
    after: list[Message] | None = None
    back: list[Message] = []
    if messages is not None:
        # What stays is what both share from the start; after a compaction that summarised
        # the message, that is less than ``messages``: the rest comes back in full.
        kept = _shared_start(history, messages)
        dropped = len(history) - kept
        after = history[kept:]
        back = messages[kept:]
    sent = cp.inputs.get(turn.number)
    gone = sent is not None and not any(m is sent for m in history)
    plan = RewindPlan(turn, messages, note, dropped, messages_after=after, brought_back=back,
                      summarised=messages is not None and bool(back or gone))
    firsts: dict[str, FileChange] = {}
    for record in cp.since(turn):
        if isinstance(record, FileChange):
            firsts.setdefault(record.path, record)
        elif isinstance(record, ShellRun):
            plan.commands.append(record)
    root = runtime.workspace.root
    for change in firsts.values():
        plan.files.append(file_step(cp, change, root))
    plan.files = [moved_step(cp, step, firsts, root) for step in plan.files]
    plan.files.sort(key=lambda s: s.shown)
    plan.tree, plan.git = rewindtree.plan(plan.commands, root), rewindgit.plan(cp, plan.commands)
    return plan


def fork_before(runtime: ShellRuntime, position: int) -> tuple[str, str]:
    """``/fork N``: a new session holding the conversation as it was just before the
    Nth message of the ``/rewind`` list; returns its id and that message's text
    (for the prompt). :class:`RewindError` when there is no such point."""
    rows = turns(runtime)
    if not 1 <= position <= len(rows):
        where = f"1 to {len(rows)}" if rows else "none yet"
        raise RewindError(f"there is no message {position} to fork from (messages: {where})")
    plan = plan_rewind(runtime, rows[position - 1].number)
    if plan.messages is None:
        raise RewindError(f"cannot fork from message {position}: {plan.conversation_note}")
    cp = runtime.checkpoints
    assert cp is not None
    text = input_text(cp, plan.turn)
    new = runtime.fork(plan.messages, before=plan.turn, mark={"before_message": position})
    return new, text


def apply_rewind(runtime: ShellRuntime, plan: RewindPlan, what: What = "both") -> RewindOutcome:
    """Do it: the files first (each on its own: one that fails does not stop the
    rest), then the conversation. Raises :class:`RewindError` while a reply runs."""
    from .tools.nofollow import FileToolError, remove_file, restore_file

    if runtime.agent.busy:
        raise RewindError("Wait for the reply to finish (or cancel it with Esc) before rewinding.")
    cp = runtime.checkpoints
    assert cp is not None
    restored: list[str] = []
    deleted: list[str] = []
    failed: list[str] = []
    kept: list[str] = []
    tree: list[str] = []
    if what in ("both", "files"):
        files = plan.files
        if plan.tree:
            tree, failed = rewindtree.apply(plan.tree, runtime.workspace.root)
            if tree:  # the files as they are on the tree put back
                files = plan_rewind(runtime, plan.turn.number).files
        tree.extend(rewindgit.apply(cp, plan.git))
        for step in files:
            try:
                if step.action == "restore":
                    assert step.before is not None
                    restore_file(step.path, step.before, step.mode, step.shown)
                    restored.append(step.shown)
                elif step.action == "delete" and remove_file(step.path, step.shown):
                    deleted.append(step.shown)
                elif step.action == "lost":
                    failed.append(f"`{step.shown}` ({step.note})")
                elif step.action in ("kept", "moved"):
                    kept.append(step.shown)
            except (OSError, FileToolError) as exc:
                why = str(exc) if isinstance(exc, FileToolError) else (exc.strerror or str(exc))
                failed.append(f"`{step.shown}` ({why})")
    conversation = what in ("both", "conversation") and plan.messages is not None
    text = ""
    if conversation:
        assert plan.messages is not None
        runtime.agent.messages[:] = plan.messages
        recorder = runtime.session_recorder
        if recorder is not None and recorder.started:
            recorder.rewind(plan.turn.offset)  # a "rewind" record: what came after leaves the search
        text = input_text(cp, plan.turn)
    if what in ("both", "files") or conversation:
        cp.mark_rewind(plan.turn.number, conversation=conversation, files=what in ("both", "files"))
    back = len(plan.brought_back) if conversation else 0
    return RewindOutcome(conversation, restored, deleted, failed, text, back, tuple(kept), tuple(tree))


# -- the parts -----------------------------------------------------------------------------


def _conversation_before(
    runtime: ShellRuntime, cp: Checkpoints, turn: Turn
) -> tuple[list[Message] | None, str]:
    """The history as it was before ``turn``: cut where its message still is (this
    process sent it), else read back from the session file as it stood then."""
    history = runtime.agent.messages
    sent = cp.inputs.get(turn.number)
    if sent is not None:
        for i, message in enumerate(history):
            if message is sent:
                return list(history[:i]), ""
        for compaction in reversed(runtime.compactions):  # summarised by /compact in this process
            for i, message in enumerate(compaction.before):
                if message is sent:
                    return list(compaction.before[:i]), ""
    recorder = runtime.session_recorder
    if turn.offset is not None and recorder is not None:
        if turn.offset == 0:
            return [], ""
        from .sessions import load_session

        try:
            return list(load_session(recorder.path, upto=turn.offset).messages), ""
        except OSError as exc:
            return None, f"the session file could not be read: {exc.strerror or exc}"
    n = turn.history_len
    if n <= len(history) and (n == len(history) or isinstance(history[n], UserMessage)):
        return list(history[:n]), ""
    return None, "the conversation was rewritten since (compacted); only the files can go back"


def _shared_start(history: list[Message], messages: list[Message]) -> int:
    """How many messages ``history`` and ``messages`` share from the start."""
    n = 0
    for now, then in zip(history, messages, strict=False):
        if now is not then and now != then:
            break
        n += 1
    return n


def _replies(messages: list[Message]) -> str:
    n = sum(1 for m in messages if isinstance(m, AssistantMessage))
    return f"{n} repl{'y' if n == 1 else 'ies'}"


def input_text(cp: Checkpoints, turn: Turn) -> str:
    """The message of ``turn`` as it was sent (as logged, redacted, after a restart)."""
    sent = cp.inputs.get(turn.number)
    if isinstance(sent, UserMessage):
        if isinstance(sent.content, str):
            return sent.content
        return "".join(b.text for b in sent.content if isinstance(b, TextBlock))
    return turn.text


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _quote(text: str) -> str:
    line = sanitize_line(" ".join(text.split()))
    line = line if len(line) <= 80 else line[:79] + "…"
    return f"“{line}”"


def _code(text: str) -> str:
    line = sanitize_line(" ".join(text.split()))
    line = line if len(line) <= 80 else line[:79] + "…"
    return f"`{line.replace('`', chr(0x2BC))}`"  # a backtick would end the code span


def when(at: str) -> str:
    """A turn's ISO time as the local ``HH:MM`` (``Mon DD HH:MM`` on another day)."""
    try:
        moment = datetime.fromisoformat(at).astimezone()
    except ValueError:
        return ""
    today = time.localtime()
    if (moment.year, moment.timetuple().tm_yday) == (today.tm_year, today.tm_yday):
        return moment.strftime("%H:%M")
    return moment.strftime("%b %d %H:%M")


WHAT = {"both": "the conversation and the files", "conversation": "the conversation only",
        "files": "the files only"}


def ask_text(plan: RewindPlan, what: str, mine: list[TurnRow], position: int) -> str:
    """The one question before a rewind (the TUI's dialog, line mode): what it drops,
    in one line, with the preview's numbers. ``mine``: your messages from the chosen
    one on (they leave the conversation, by their text)."""
    parts = []
    if what in ("both", "conversation"):
        if plan.messages is None:
            parts.append(f"the conversation cannot go back ({plan.conversation_note})")
        elif plan.dropped:
            quoted = ", ".join(f"“{row.line(30)}”" for row in mine[:3])
            more = f" and {len(mine) - 3} more" if len(mine) > 3 else ""
            yours = f"your message{'s' if len(mine) != 1 else ''} {quoted}{more} and what came after" \
                if mine else "what came after it"
            parts.append(f"removes from the conversation {yours} ({plan.dropped_said})")
    if what in ("both", "files"):
        if plan.file_changes:
            parts.append(f"puts back {len(plan.file_changes)} file(s)")
        if plan.tree:
            parts.append(f"undoes {len(plan.tree)} rename(s) or symlink(s)")
    done = "; ".join(parts) if parts else "changes nothing"
    return sanitize_line(f"Rewind {WHAT.get(what, what)} to before message {position}? It {done}. "
                         "There is no undo.")
