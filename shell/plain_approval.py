"""The line mode's approval questions: a tool call shown, then answered with one key.

:func:`show_request` prints what a call would do (its arguments, a preview; a diff
in colour); :class:`PlainPrompts` asks the questions of
:func:`shell.frontend.approval.decide` on the line mode's own prompts: the key
(approve, edit, reject with a reason, always), the edited arguments (in
``$EDITOR`` when set), the rule(s) to remember and where to keep them.
"""

from __future__ import annotations

from typing import Any, Protocol

import anyio.to_thread
from prompt_toolkit import PromptSession
from prompt_toolkit.key_binding import KeyBindings
from rich.console import Console
from rich.text import Text

from shell.core.approvals import ApprovalRequest, RuleScope

from .core.textsafety import json_text, sanitize, sanitize_line
from .frontend.approval import WARNING_MARK, Choice, approval_lines, argument_lines, is_diff, rest_lines
from .frontend.editor import edit_in_editor
from .plain_start import PROMPT
from .runtime import editor_command


class PromptHost(Protocol):
    """What the questions need of the shell (:class:`shell.plain.PlainShell`)."""

    console: Console

    @property
    def choice(self) -> PromptSession[Any]: ...

    @property
    def approval(self) -> PromptSession[Any]: ...


def show_request(console: Console, request: ApprovalRequest) -> None:
    """The question: what the call would do, its arguments, a preview (a diff in colour)."""
    head, *body = approval_lines(request, rest=False)
    console.print(Text.assemble(("? ", "bold yellow"), (sanitize(head), "bold")))
    words = len(body) - len(argument_lines(request))
    preview_start = 1 + words + len(argument_lines(request))
    for i, line in enumerate(body, 1):
        style = "dim" if i <= words else ""
        if i <= words and line.lstrip().startswith(WARNING_MARK):
            style = "bold yellow"
        if i >= preview_start:
            style = diff_style(line.strip()) if is_diff(request.preview) else "cyan"
        console.print(Text(sanitize(line), style=style), soft_wrap=False, overflow="fold")
    for line in rest_lines(request):  # what Y would approve with it, shown before the key is taken
        style = "bold yellow" if line.lstrip().startswith(WARNING_MARK) else ""
        console.print(Text(sanitize(line), style=style), soft_wrap=False, overflow="fold")


class PlainPrompts:
    """The approval questions on the line mode's own prompts (one key answers)."""

    def __init__(self, shell: PromptHost) -> None:
        self.shell = shell
        self.console = shell.console
        self.last_key: str | None = None
        """The key that answered last (``A`` tells the shell to approve the waiting ones)."""

    async def key(self, request: ApprovalRequest, offered: list[Choice]) -> str | None:
        labels = "  ".join(f"[{c.key}] {c.label}" for c in offered)
        keys = [c.key for c in offered]
        key = await self.shell.choice.prompt_async(
            "  " + labels + " " + PROMPT, key_bindings=choice_keys(keys), handle_sigint=False,
        )
        self.last_key = None if key == "cancel" else str(key)
        return self.last_key

    async def _words(self, message: str, default: str = "", multiline: bool = False) -> str | None:
        """The approval's words (a reason, arguments, rules); None on Ctrl+C, which goes
        back to the question (it raised KeyboardInterrupt and ended the shell)."""
        answer = await self.shell.approval.prompt_async(
            message, default=default, multiline=multiline, handle_sigint=False, key_bindings=_BACK
        )
        if answer is None:
            self.say("(back to the question)")
            return None
        return str(answer)

    async def reason(self, request: ApprovalRequest) -> str | None:
        return await self._words("  reason (the model reads it; Enter for none) " + PROMPT)

    async def edited(self, request: ApprovalRequest) -> str | None:
        text = json_text(request.args, indent=2)
        command = editor_command()
        if command:
            return await anyio.to_thread.run_sync(edit_in_editor, text, command)
        self.console.print("[dim]  edit the JSON arguments; Esc then Enter to accept (Ctrl+C: back)[/dim]")
        return await self._words("  ", text, multiline=True)

    async def rules(self, request: ApprovalRequest) -> tuple[tuple[str, ...], RuleScope] | None:
        """"Always": the proposed rule(s), editable, then where to keep them."""
        self.console.print("[dim]  rule(s) to remember, one per line; Esc then Enter to accept "
                           "(Ctrl+C: back)[/dim]")
        text = await self._words("  ", "\n".join(map(sanitize_line, request.suggested_rules)), multiline=True)
        if text is None:
            return None
        rules = tuple(line.strip() for line in text.splitlines() if line.strip())
        if not rules:
            return rules, "session"
        self.console.print("  keep it for [bold]s[/bold] this session · [bold]p[/bold] this project · "
                           "[bold]u[/bold] everywhere (user config)")
        scope = await self.shell.choice.prompt_async(
            "  [s/p/u] " + PROMPT, key_bindings=choice_keys(["s", "p", "u"]), handle_sigint=False,
        )
        where: dict[str, RuleScope] = {"s": "session", "p": "project", "u": "user"}
        return (rules, where[scope]) if scope in where else None

    def say(self, text: str, level: str = "info") -> None:
        style = {"ok": "green", "warning": "yellow", "error": "red"}.get(level, "dim")
        self.console.print(Text(f"  {sanitize(text)}", style=style), overflow="fold")


def _back_keys() -> KeyBindings:
    kb = KeyBindings()
    kb.add("c-c")(lambda event: event.app.exit(result=None))
    return kb


_BACK = _back_keys()


def choice_keys(keys: list[str]) -> KeyBindings:
    """A prompt answered by one of ``keys`` (Ctrl+C: "cancel"; Esc: "n" when offered)."""
    kb = KeyBindings()
    for key in keys:
        kb.add(key)(lambda event, key=key: event.app.exit(result=key))
    kb.add("c-c")(lambda event: event.app.exit(result="cancel"))
    kb.add("escape", eager=True)(lambda event: event.app.exit(result="n") if "n" in keys else None)
    kb.add("<any>")(lambda event: None)  # other keys do nothing: the answer is one key
    return kb


def diff_style(line: str) -> str:
    if line.startswith(("+++", "---", "@@")):
        return "dim"
    return "green" if line.startswith("+") else "red" if line.startswith("-") else ""
