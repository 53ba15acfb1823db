"""The conversation: replies recorded into the session, resuming, forking, compacting,
what a message carries."""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

import anyio

from ..core.events import ErrorEvent, Notice, ReplyEnd
from ..core.messages import AssistantMessage, Message

if TYPE_CHECKING:
    from shell.core.events import Event

    from ..agent.reply import Shown
    from ..context.attachments import Composed
    from ..context.files import FileIndex
    from ..sessions import LoadedSession, SessionRecorder
    from ..sessions.checkpoints import Checkpoints, Turn
    from ..sessions.search import SearchIndex

from .options import Compaction, ShellError
from .switches import SwitchesPart


class ConversationPart(SwitchesPart):
    """The conversation: replies recorded into the session, resuming, forking, compacting,
what a message carries."""

    def reply(self, text: str | Message | Sequence[Message]) -> AsyncGenerator[Event, None]:
        """The agent's reply, recorded into the session file as it happens (front
        ends iterate this rather than ``agent.reply`` so that nothing goes unsaved).
        ``text`` may be a ``UserMessage`` with attachments (files, images). Each
        reply begins a checkpoint turn (``/rewind`` goes back to before it)."""
        from ..core.messages import UserMessage
        from ..core.textsafety import encodable

        message = UserMessage(encodable(text)) if isinstance(text, str) else text  # as the session keeps it
        events: AsyncIterator[Event] = self._metered(self.agent.reply(message))
        if self.options.record:
            events = self.recorder().record(events)
        # All are async generators (declared as iterators); callers ``aclose`` them.
        return self._turn(cast("AsyncGenerator[Event, None]", events), message)

    async def _turn(
        self, events: AsyncGenerator[Event, None], sent: Message | Sequence[Message]
    ) -> AsyncGenerator[Event, None]:
        """Mark the turn before the first event (so the session file's length is where
        it stood before this message), then pass the events on."""
        first = not any(isinstance(m, AssistantMessage) for m in self.agent.messages)
        ended = False
        turn: int | None = None
        try:
            if self.checkpoint_hook is not None and not self.agent.busy:
                turn = self._begin_turn(sent)
            await self.await_window()  # Summarization's fractions need the real window
            async for event in events:
                if isinstance(event, ReplyEnd):
                    ended = event.stop_reason == "end_turn"
                    if event.withdrawn and turn is not None:  # cancelled before any answer
                        self._withdraw_turn(turn)
                elif isinstance(event, (ErrorEvent, Notice)):
                    if isinstance(event, ErrorEvent) and event.withdrawn and turn is not None:
                        self._withdraw_turn(turn)
                    event = self._redacted(event)
                yield event
        finally:
            await events.aclose()
        self._after_reply(first and ended)

    def _redacted(self, event: ErrorEvent | Notice) -> ErrorEvent | Notice:
        """An error or a notice with this environment's secrets redacted, once, here, for
        every front end (an error can quote a URL with a password or a key a server
        echoed back); showing it safely (controls, markup) stays each front end's part."""
        redact = self.secrets.text
        if isinstance(event, ErrorEvent):
            error = redact(event.error)
            return event if error == event.error else replace(event, error=error)
        text = redact(event.text)
        return event if text == event.text else replace(event, text=text)

    def _after_reply(self, first: bool) -> None:
        """In the background: the search index reads what this reply wrote; after the
        first answer, the model names the session (``[sessions] titles``)."""
        recorder = self.session_recorder
        if self._task_group is None or recorder is None or not recorder.started:
            return
        self._task_group.start_soon(self._index_session, recorder.session_id)
        if first and self.titles_wanted():
            self._task_group.start_soon(self.name_session)

    async def _index_session(self, session_id: str) -> None:
        """All of it in a worker thread, importing sqlite3 and the index included: after
        ``-p``'s reply the process exits while this runs, without waiting for it (the
        next search catches up with what was written)."""

        def refresh() -> None:
            import sqlite3

            try:
                self.search_index.refresh(session_id)
            except (OSError, sqlite3.Error):
                pass  # the next search catches up

        await anyio.to_thread.run_sync(refresh, abandon_on_cancel=True)

    @cached_property
    def search_index(self) -> SearchIndex:
        """The full-text index of every session (``/sessions QUERY``)."""
        from ..sessions.search import SearchIndex

        return SearchIndex(redactor=self.secrets)

    def titles_wanted(self) -> bool:
        """The model names each session after its first answer unless the config says
        ``[sessions] titles = false``; never the offline demo or scripted models (a
        title from them would be noise, and costs a call)."""
        section = self.settings.extra.get("sessions")
        if isinstance(section, dict) and section.get("titles") is False:
            return False
        provider = str(getattr(self.agent.model, "provider", ""))
        return provider not in ("demo", "scripted") and not self.is_demo

    async def name_session(self, timeout: float = 30.0) -> str:
        """Ask the model for a one-line title of this conversation (cheap: one short
        call, no tools, no middleware) and keep it unless the user named the session.
        Returns the title kept (empty: none)."""
        from ..core.messages import TextBlock, UserMessage
        from ..core.model import ModelRequest, TextDelta

        recorder = self.session_recorder
        if recorder is None or recorder.title_source == "user":
            return ""
        said = []
        for message in self.agent.messages[:4]:
            text = message.text if isinstance(message, (UserMessage, AssistantMessage)) else ""
            if text:
                said.append(f"{'User' if isinstance(message, UserMessage) else 'Assistant'}: {text[:1500]}")
        if not said:
            return ""
        prompt = ("Write a title for this conversation: at most eight words, no quotes, no punctuation "
                  "at the end. Answer with the title only.\n\n" + "\n\n".join(said))
        request = ModelRequest(self.agent.model, "You name conversations.",
                               (UserMessage((TextBlock(prompt),)),), (), None, {})
        parts: list[str] = []
        try:
            with anyio.move_on_after(timeout):
                async for chunk in self.agent.model.stream(request):
                    if isinstance(chunk, TextDelta):
                        parts.append(chunk.text)
                        if sum(map(len, parts)) > 400:
                            break
        except Exception:
            return ""  # a title is a nicety: a failure costs nothing
        lines = [line.strip(" \t#*`\"'") for line in "".join(parts).splitlines() if line.strip()]
        return recorder.set_title(lines[0], "model") if lines else ""

    def fork(self, messages: list[Message] | None = None, *, before: Turn | None = None,
             mark: dict[str, Any] | None = None) -> str:
        """``/fork``, ``--fork``: carry on in a new session holding this conversation
        (or ``messages``: the history before checkpoint turn ``before``, which
        :func:`shell.rewind.fork_before` works out); the original session is left
        exactly as it is. Its checkpoints come along (up to ``before``). Returns the
        new session's id; :class:`ShellError` when there is nothing to fork."""
        from ..sessions import SessionRecorder, SessionStore
        from ..sessions.store import fork_title

        if self.agent.busy:
            raise ShellError("wait for the reply to finish (or cancel it) before forking")
        if not self.options.record:
            raise ShellError("this conversation is not saved (--no-session): there is no session to fork")
        old = self.session_recorder
        cp = self.checkpoints
        messages = list(self.agent.messages) if messages is None else messages
        if not messages and before is None:
            raise ShellError("nothing to fork yet: send a message first")
        turn = before
        parent = old.session_id if old is not None else ""
        forked_cp = None
        self.session_recorder = None  # the checkpoints stay open until they are copied
        if old is not None:
            old.close()  # the original keeps exactly what it had
        self.agent.messages[:] = messages
        origin = {"forked_from": {"id": parent, **(mark or {})}}
        recorder = SessionRecorder(SessionStore(), self.agent, cwd=str(self.workspace.root),
                                   redactor=self.secrets, header=origin)
        if cp is not None:
            from ..sessions.checkpoints import checkpoints_root

            forked_cp = cp.copy_to(checkpoints_root() / recorder.session_id, before=turn)
            cp.close()
        if self.checkpoint_hook is not None:
            self.checkpoint_hook.target = forked_cp
        recorder.open()
        recorder.sync()
        recorder.settled("fork")  # what it copied had finished: a resume says nothing "did not finish"
        if old is not None:
            recorder.carry_calls(old)
            recorder.set_title(fork_title(old.title, messages), old.title_source or "model")
        self.session_recorder = recorder
        return recorder.session_id

    def _withdraw_turn(self, turn: int) -> None:
        """The message left the history (it did not fit the context, or its reply was
        cancelled before any answer): its turn leaves ``/rewind``'s list too (nothing
        ran in it)."""
        try:
            self.checkpoints_now().mark_rewind(turn, conversation=True, files=False)
        except OSError as exc:
            self.problems.append(f"checkpoints: {exc}")

    def _begin_turn(self, sent: Message | Sequence[Message]) -> int | None:
        from ..core.messages import TextBlock, UserMessage

        messages = list(sent) if isinstance(sent, (list, tuple)) else [sent]
        first = next((m for m in messages if isinstance(m, UserMessage)), None)
        content = first.content if first is not None else ""
        text = content if isinstance(content, str) else "".join(
            b.text for b in content if isinstance(b, TextBlock)
        )
        offset: int | None = None
        if self.options.record:
            offset = self.recorder().size()
        try:
            return self.checkpoints_now().begin_turn(
                text, offset=offset, history_len=len(self.agent.messages), message=first
            )
        except OSError as exc:
            self.problems.append(f"checkpoints: {exc}")
            return None

    @property
    def checkpoints(self) -> Checkpoints | None:
        """This conversation's file checkpoints (None before its first message)."""
        return self.checkpoint_hook.target if self.checkpoint_hook is not None else None

    def checkpoints_now(self) -> Checkpoints:
        """The checkpoints of the current session, opened on first use: in the data dir
        next to the session, or (``--no-session``) in a temporary dir gone at exit."""
        from ..sessions.checkpoints import CheckpointHook, Checkpoints

        if self.checkpoint_hook is None:
            self.checkpoint_hook = CheckpointHook()
        if self.checkpoint_hook.target is None:
            if self.options.record:
                found = Checkpoints.for_session(self.recorder().session_id, redactor=self.secrets)
            else:
                found = Checkpoints.temporary(redactor=self.secrets)
            self.checkpoint_hook.target = found
        return self.checkpoint_hook.target

    async def _metered(self, events: AsyncGenerator[Event, None]) -> AsyncGenerator[Event, None]:
        try:
            async for event in events:
                self.meter.see(event)
                yield event
        finally:
            await events.aclose()

    def recorder(self) -> SessionRecorder:
        """This conversation's recorder, created on first use (a new session whose
        file appears at the first event)."""
        if self.session_recorder is None:
            from ..sessions import SessionRecorder, SessionStore

            self.session_recorder = SessionRecorder(
                SessionStore(), self.agent, cwd=str(self.workspace.root),
                redactor=self.secrets,
            )
        return self.session_recorder

    def resume(self, id_or_prefix: str | None = None, *, latest: bool = False) -> LoadedSession:
        """``--continue`` (``latest=True``), ``--resume ID``, ``/resume ID``: load the
        session into the agent and carry on writing it (its lock is taken now). What
        the loader skipped or repaired joins ``problems``. Raises :class:`ShellError`
        (one line for the user) when there is no such session or it cannot be read."""
        from ..sessions import SessionError, SessionRecorder, SessionStore, load_session, resume

        store = SessionStore()
        cwd = str(self.workspace.root)
        try:
            if latest:
                info = store.latest(cwd)
                if info is None:
                    raise SessionError(f"no session to continue in {cwd}")
            elif id_or_prefix:
                info = store.find(id_or_prefix, cwd)
            else:
                raise SessionError("which session? give its ID (`agent-shell sessions` lists them)")
            loaded = load_session(info.path)
            resume(self.agent, loaded)
            # what the user saw before each compaction the file holds (/export, /compact show)
            self.compactions[:] = [Compaction(c.before, [*c.before[:c.head], c.summary], c.replaced, "", 0.0)
                                   for c in loaded.compactions]
            recorder = SessionRecorder.resume(
                store, self.agent, loaded, redactor=self.secrets
            )
        except (SessionError, OSError) as exc:
            raise ShellError(str(exc)) from None
        self._close_session()
        self.session_recorder = recorder
        if self.checkpoint_hook is not None:  # its checkpoints come back with it (/rewind)
            self.checkpoints_now()
        self._restore_usage()
        self.problems.extend(f"session {loaded.session_id}: {p}" for p in loaded.problems)
        self.problems.extend(n.text for n in recorder.take_notices())  # a full disk, said at start
        started = loaded.meta.get("cwd")
        if isinstance(started, str) and started and os.path.realpath(started) != os.path.realpath(cwd):
            from ..core.textsafety import path_text

            # its earlier replies read and changed the files there; its tools now work here
            self.problems.append(
                f"session {loaded.session_id} was started in {path_text(started)}; its tools now work in "
                f"{path_text(cwd)}. Its earlier replies were about the files there: to carry on with those, "
                f"run agent-shell from {path_text(started)}.")
        return loaded

    def _restore_usage(self) -> None:
        """A resumed session's usage (saved per reply) counts towards its cost; how
        full the context is stays unknown until the next request reports it."""
        from ..core.messages import AssistantMessage

        self.meter.reset()
        for message in self.agent.messages:
            if isinstance(message, AssistantMessage):
                self.meter.add(message.usage)
        self.meter.last_call, self.meter.reply_cost = None, None

    def resume_hint(self) -> str:
        """What to print when the shell exits: the session's id and how to come back
        (empty when nothing was saved)."""
        recorder = self.session_recorder
        session = recorder.session_id if recorder is not None and recorder.started else self.last_session
        if not session:
            return ""
        return f"Session {session} saved. Resume it with: agent-shell --resume {session}"

    @property
    def call_outcomes(self) -> dict[str, str]:
        """This session's calls stopped before they ran or finished, by id (``rejected``
        by the user, ``blocked`` by a gate, ``cancelled`` by Esc, ``interrupted`` when
        agent-shell stopped while they ran): the session file keeps them, so a resumed conversation
        shows each as it was shown live."""
        recorder = self.session_recorder
        return recorder.outcomes if recorder is not None else {}

    @property
    def call_notes(self) -> dict[str, dict[str, list[str]]]:
        """This session's sandboxed commands whose planted files (git hooks, .envrc …)
        were moved out, or that could not write them, by id: a resumed conversation
        shows their ⚠ again."""
        recorder = self.session_recorder
        return recorder.call_notes if recorder is not None else {}

    @property
    def call_edits(self) -> dict[str, dict[str, Any]]:
        """This session's calls the user edited before they ran: the arguments they ran
        with, by id (a redrawn conversation shows them, "modified by you")."""
        recorder = self.session_recorder
        return recorder.call_edits if recorder is not None else {}

    @property
    def call_editors(self) -> dict[str, str]:
        """Who changed those arguments where it was a middleware, not the user, by id."""
        recorder = self.session_recorder
        return recorder.call_editors if recorder is not None else {}

    def _close_session(self) -> None:
        if self.session_recorder is not None:
            if self.session_recorder.started:
                self.last_session = self.session_recorder.session_id
            self.session_recorder.close()
            self.session_recorder = None
        if self.checkpoint_hook is not None and self.checkpoint_hook.target is not None:
            self.checkpoint_hook.target.close()
            self.checkpoint_hook.target = None

    # -- what a message carries -------------------------------------------------------
    @property
    def file_index(self) -> FileIndex:
        """The workspace's files for the ``@`` picker, walked in a background thread
        the first time it is asked for (and again when it is stale)."""
        from ..context.files import FileIndex

        if self._file_index is None:
            self._file_index = FileIndex(self.workspace.root)
        self._file_index.start()
        return self._file_index

    def image_refusal(self) -> str | None:
        """Why the current model cannot be sent images, or None when it can (or may:
        a model the catalog does not know is given the benefit of the doubt)."""
        model = self.agent.model
        if self.is_demo:
            return "the demo model cannot see images; choose a vision model with /model"
        provider = getattr(model, "provider", "")
        from ..providers.base import HTTPProvider
        from ..providers.scripted import ScriptedModel

        if not isinstance(model, (HTTPProvider, ScriptedModel)):
            return f"{self.model_label} does not take images"
        if self.model_info().vision is False:
            return (f"{self.model_label} does not accept images (the model catalog says so; if it does, "
                    f'set vision = true under [models."{provider}:{getattr(model, "name", "")}"])')
        return None

    async def compose(self, text: str, *, typed: bool = True, piped: str = "") -> Composed:
        """The message for ``text``: its ``@`` files, pasted image paths and the staged
        images attached (see :mod:`shell.context.attachments`). With problems the
        front end must not send it; without, the staged images are used up. Each ``@``
        file's permission check runs off the loop (:mod:`.mentionchecks`): a slow one
        leaves the screen and Esc live (:meth:`cancel` stops it), and one past the limit
        or stopped is a problem, not a file sent unchecked.

        ``typed=False``: the text may not be the user's own words (``-p`` prompts are
        built from issue titles and PR bodies in scripts), so ``@.env`` there does
        not attach a file that usually holds secrets unless a rule allows reading it
        (``--allow 'read_file(.env)'``) or the mode is bypass. ``piped``: text read from
        stdin, added after ``text`` as words (its ``@`` mentions attach nothing)."""
        from ..context.attachments import compose, mentioned_files
        from .mentionchecks import STOPPED, judge_mentions

        mentioned = mentioned_files(text, self.workspace.root)
        judged: dict[str, str] = {}
        if mentioned:
            judge = self._refused_read if typed else self._refused_unless_allowed
            with anyio.CancelScope() as self._composing:
                await judge_mentions(mentioned, judge, judged)
            self._composing = None
        composed = compose(text, self.workspace.root, staged=self.staged, piped=piped,
                           refuse=lambda relative: judged.get(relative, STOPPED))
        images = [a for a in composed.attachments if a.kind == "image"]
        refusal = self.image_refusal() if images else None
        if refusal:  # the way out named too: each Enter repeated the refusal (finding T11)
            way_out = ("or /image clear drops the attached image to send the text alone" if self.staged
                       else "or take the image's path out of the message")
            said = f"Images not sent: {refusal}, {way_out}."
            composed = replace(composed, problems=(*composed.problems, said))
        if not composed.problems:
            self.staged.clear()
        return composed

    _composing: anyio.CancelScope | None = None
    """The ``@`` files' checks of a message being composed (what :meth:`cancel` stops)."""

    def cancel(self, shown: Shown | None = None) -> None:
        """End the reply in flight, or the checks of a message not yet sent (Esc, Ctrl+C)."""
        if self._composing is not None:
            self._composing.cancel()
        super().cancel(shown)

    def _read_action(self, relative: str) -> str | None:
        """The policy's action for ``read_file`` of ``relative`` (None: no such tool).
        Runs in a worker thread (:meth:`compose`)."""
        tool = next((t for t in self.builtin_tools if t.name == "read_file"), None)
        return None if tool is None else self.permissions.decide(tool, {"path": relative}).action

    def _refused_read(self, relative: str) -> str:
        """A permission rule that denies ``read_file`` on this path denies attaching it
        ("" when none does, or approvals are off)."""
        denied = self.approvals_on and self._read_action(relative) == "deny"
        return "a permission rule denies reading it (/permissions)" if denied else ""

    def _refused_unless_allowed(self, relative: str) -> str:
        """:meth:`_refused_read`, and a secret-looking file only when reading it is allowed."""
        from ..core.secretcontent import secret_content_why
        from ..core.secrets import is_secret_file

        why = self._refused_read(relative)
        if why or not (is_secret_file(relative) or secret_content_why(str(self.workspace.root / relative))):
            return why
        if self._read_action(relative) == "allow":
            return ""
        return (f"not attached: it usually holds secrets, and a -p prompt may come from other text; "
                f"to send it, add --allow 'read_file({relative})'")

    async def compact(self, focus: str | None = None) -> Compaction:
        """``/compact [focus]``: the ``Summarization`` middleware summarises the history
        now (its configured instance, switched on or not; a default one if there is
        none). The history before stays in :attr:`compactions`; the session file gets
        the new history. Raises :class:`ShellError` when nothing was compacted."""
        import time

        from middleware.summarization import Summarization

        if self.agent.busy:
            raise ShellError("wait for the reply to finish (or cancel it) before compacting")
        found = next((m for m in self.agent.middleware if isinstance(m, Summarization)), None)
        summarizer = found or Summarization()
        before = list(self.agent.messages)
        size = self.model_info().context_window or summarizer.context_size(None)
        try:
            after, replaced = await summarizer.compact(
                before, self.agent.model, focus=focus, context_size=size
            )
        except ValueError as exc:
            raise ShellError(f"Nothing was compacted: {exc}.") from None
        except Exception as exc:
            raise ShellError(f"Nothing was compacted; the summary failed: {self.shown(str(exc))}") from None
        self.meter.add(summarizer.last_usage)  # the summary is a model call: it counts towards the cost
        was, now = _history_tokens(before), _history_tokens(after)
        if now >= was:  # a "compaction" that grows the history is no compaction
            raise ShellError(
                f"Nothing was compacted: the summary (about {now:,} tokens of history) is not smaller "
                f"than the history it would replace (about {was:,}); the history is kept as it was. "
                "Compact again once the conversation is longer."
            )
        self.agent.messages[:] = after
        done = Compaction(before, after, replaced, focus or "", time.time())
        self.compactions.append(done)
        if self.session_recorder is not None and self.session_recorder.started:
            self.session_recorder.sync()
        self.meter.last_call = None  # the context shrank: unknown until the next request says
        return done

    def shown_history(self, marks: list[int] | None = None) -> list[Message]:
        """The conversation as the user saw it: the history, with each summary a
        ``/compact`` made (in this process, or read back from a resumed session's
        file) put back as the messages it stands for (``/export`` and ``/copy`` work
        from this; the model is sent the summary). A summary no longer in the history
        (rewound past) stays as it is. ``marks`` gets, for each summary put back, the
        index of the message its turns end before (the export says "compacted here")."""
        from ..core.messages import SystemMessage

        shown = list(self.agent.messages)
        found: list[int] = []
        for done in reversed(self.compactions):
            head = next((i for i, m in enumerate(done.after) if not isinstance(m, SystemMessage)), None)
            if head is None:
                continue
            summary = done.after[head]
            at = next((i for i, m in enumerate(shown) if m is summary), None)
            if at is not None:
                turns = done.before[head:head + done.replaced]
                shown[at:at + 1] = turns
                found = [i + len(turns) - 1 if i > at else i for i in found]  # later marks move on
                found.append(at + len(turns))
        if marks is not None:
            marks.extend(sorted(found))
        return shown

    def new_conversation(self) -> None:
        """Forget the history (the middleware's session state too: a new session)."""
        if self.agent.busy:
            self.agent.cancel()
        self.agent.messages.clear()
        self.agent.session_state.clear()
        self.meter.reset()
        self._close_session()  # the next reply starts a new session file


def _history_tokens(messages: Sequence[Message]) -> int:
    """About how many tokens ``messages`` take (the estimate ``/compact`` reports)."""
    from ..context.accounting import estimate, message_text

    return round(sum(estimate(message_text(m)) for m in messages))
