"""An approval as plain lines: what is approved is what is seen.

Every argument is shown whole (never cut at a width: a command padded with
spaces to push ``; touch x`` out of sight is shown with its tail), multi-line
values line by line, and the policy's preview (a diff for file edits, the
commands a shell line runs) after them. The line mode and headless mode print
these lines and answer through the one flow, :func:`decide`; the TUI dialog shows
the same pieces in its own widgets and binds the same keys (:data:`KEYS`).

Callers sanitise the lines before they reach a terminal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from shell.core import linediff
from shell.core.approvals import (
    ApprovalDecision,
    ApprovalRequest,
    RuleScope,
    parse_edited_args,
    rejected_message,
    rejection,
    rest_rejection,
)
from shell.core.textsafety import control_characters, hidden_characters, json_text, map_strings, tag_text

__all__ = ["APPROVE_ALL_KEY", "KEYS", "WARNING_MARK", "ApprovalPrompts", "Choice", "approval_lines",
           "args_section", "argument_lines", "choices", "decide", "edit_decision", "hidden_warning",
           "is_diff", "rejected_message", "rejection", "rest_counts", "rest_label", "rest_lines",
           "value_lines"]

DIFF_REPLACES = ("content", "old_string", "new_string")
"""Arguments a diff preview shows in full already (the change itself)."""


@dataclass(frozen=True, slots=True)
class Choice:
    key: str
    label: str
    decision: str
    """``approve``, ``edit``, ``reject`` or ``always`` (approve and remember)."""


KEYS: tuple[Choice, ...] = (
    Choice("y", "approve", "approve"),
    Choice("e", "edit", "edit"),
    Choice("n", "reject", "reject"),
    Choice("a", "always", "always"),
    Choice("Y", "approve this and the calls listed", "approve_rest"),
    Choice("N", "reject the rest", "reject_rest"),
)
"""The one key map: the same key answers the same way in every front end. The
capitals answer for the rest of the batch too (see :func:`rest_counts`)."""
APPROVE_ALL_KEY = "A"
"""Approve every call still waiting (the TUI queues parallel calls)."""


def rest_counts(request: ApprovalRequest) -> tuple[int, int]:
    """``(same_tool, all)``: how many later calls of the batch "approve the rest" (Y)
    and "reject the rest" (N) would answer; 0: that key is not offered. Y answers
    only a routine question (the policy asks it of every such call), and covers the
    later calls to the same tool that ask the same routine question (each still
    judged by the policy first: see ``HumanInTheLoop``), so the count is at most."""
    place = request.batch
    if place is None:
        return 0, 0
    allowed = request.allowed_decisions
    same = place.later_same_tool if "approve" in allowed and request.routine else 0
    return same, place.later if "reject" in allowed else 0


def choices(request: ApprovalRequest) -> list[Choice]:
    """Only what the request allows: approve (y), edit (e), reject (n), always (a)
    when approving is allowed and a rule could cover the call, and the answers for
    the rest of the batch (Y, N) when there is a rest they would answer; Y's label
    counts the calls it lists (:func:`rest_label`)."""
    allowed = request.allowed_decisions
    always = "approve" in allowed and bool(request.suggested_rules)
    same, later = rest_counts(request)
    offered = {*allowed, *(["always"] if always else []), *(["approve_rest"] if same else []),
               *(["reject_rest"] if later else [])}
    return [Choice(c.key, rest_label(request), c.decision) if c.decision == "approve_rest" else c
            for c in KEYS if c.decision in offered]


def rest_label(request: ApprovalRequest) -> str:
    """What Y says it approves: this call and the later calls of the reply listed with
    the question, by count and tool (never "like this": a later ``ls; rm -f x`` is not
    like an ``ls``, and it is covered only because it was shown)."""
    same = rest_counts(request)[0]
    calls = "call" if same == 1 else "calls"
    return f"approve this and the {same:,} {request.call.name} {calls} listed"


def rest_lines(request: ApprovalRequest, *, indent: str = "  ") -> list[str]:
    """The later calls of the batch "approve the rest" (Y) would cover, each whole (its
    place, any hidden-character warning, every argument), so that the key approves only
    what was seen; ``[]`` when Y is not offered. Each is still judged on its own when
    its turn comes: one the policy denies is refused, one that asks for another reason
    (or whose arguments a middleware changed) is asked."""
    same = rest_counts(request)[0]
    place = request.batch
    if not same or place is None:
        return []
    calls = "call" if same == 1 else "calls"
    said = (f"Y also approves the {same:,} later {request.call.name} {calls} of this reply listed here "
            "(each as shown; one that asks for another reason is still asked):")
    lines = ["", f"{indent}{said}"]
    for index, call in place.later_same:
        shown = ApprovalRequest(call, request.tool, dict(call.args))
        lines.append(f"{indent}call {index + 1:,} of {place.size:,}: {call.name}")
        lines.extend(f"{indent}  {warning}" for warning in hidden_warning(shown).splitlines())
        lines.extend(argument_lines(shown, indent=indent + "  "))
    return lines


def is_diff(preview: str) -> bool:
    return preview.startswith(("--- ", "(no "))


def value_lines(value: Any) -> list[str]:
    """A value whole: strings as they are (line by line), the rest as JSON."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)
    return text.split("\n") if text else ['""']


def argument_lines(request: ApprovalRequest, *, indent: str = "  ") -> list[str]:
    """``key: value`` per argument, every character of it (a diff preview stands
    in for the content it shows)."""
    skip = DIFF_REPLACES if request.preview.startswith("--- ") else ()
    lines: list[str] = []
    for key, value in request.args.items():
        if key in skip:
            continue
        body = value_lines(value)
        if len(body) == 1:
            lines.append(f"{indent}{key}: {body[0]}")
        else:
            lines.append(f"{indent}{key}:")
            lines.extend(f"{indent}  {line}" for line in body)
    if not request.args:
        lines.append(f"{indent}(no arguments)")
    return lines


def args_section(request: ApprovalRequest) -> tuple[str, list[str]]:
    """The title and lines of the arguments part of a question. A question about part
    of a call (the workspace asking about the one path it reaches outside) lists what it
    asks about, then the whole call as it would run (after an edit, the edited one):
    under "Arguments (complete)" it listed the path alone, the content left out."""
    lines = argument_lines(request, indent="")
    if dict(request.args) == dict(request.call.args):
        return ("Other arguments (complete):" if request.preview.startswith("--- ")
                else "Arguments (complete):"), lines
    whole = ApprovalRequest(request.call, request.tool, dict(request.call.args))
    rest = argument_lines(whole, indent="  ")
    return "Asked about:", [*lines, "", "The call's arguments (complete):", *rest]


WARNING_MARK = "⚠ "
"""How a warning line of :func:`approval_lines` starts (front ends colour it)."""


def hidden_warning(request: ApprovalRequest) -> str:
    """A warning when the arguments hold invisible or direction-changing characters
    (``""`` when they hold none). They are shown as ``\\u…`` escapes, but a row of
    escapes in a long diff is easy to miss, and Unicode tag characters spell text a
    model reads while a terminal draws nothing: a file that looks like "Use tabs."
    may also say "run curl … | sh"."""
    count = 0
    spelled: list[str] = []

    def tally(text: str) -> str:
        nonlocal count
        count += hidden_characters(text)
        if tags := tag_text(text):
            spelled.append(tags)
        return text

    map_strings(request.args, tally)  # iterative: any nesting
    odd = [key for key, value in request.args.items() if isinstance(value, str) and _names_a_path(key)
           and any(ord(c) < 0x20 or ord(c) == 0x7F for c in value)]
    named = (f"{WARNING_MARK}The {odd[0]} argument holds a line break or control character, shown as \\n or "
             "\\x…: the file is named so (not what the lines of a diff may seem to name)." if odd else "")
    named = "\n".join(part for part in (_controls_warning(request), named) if part)
    if not count:
        return named
    what = "character" if count == 1 else "characters"
    said = " … ".join(spelled)
    said = said if len(said) <= 200 else said[:199] + "…"
    reads = f' Tag characters that a model reads as "{said}".' if said else ""
    hidden = (f"{WARNING_MARK}{count} hidden {what} (invisible or direction-changing) in what this call "
              f"would write or run, shown as \\u… escapes: read them before approving.{reads}")
    return f"{hidden}\n{named}" if named else hidden


def _controls_warning(request: ApprovalRequest) -> str:
    """A warning when what the call would write or run, or the old lines a diff shows
    removed, hold a control character (a lone CR, an ESC): the sanitiser shows it as
    ``␍``/``␛``, but ``cat`` of the file obeys it, and ``hi\\x1b[2K\\rnothing here``
    prints as "nothing here" (finding P17). The old text of an ``edit_file`` is its
    ``old_string``; of a ``write_file`` only the diff has it. A path's controls have
    their own warning."""
    texts: list[str] = []

    def keep(text: str) -> str:
        texts.append(text)
        return text

    map_strings({k: v for k, v in request.args.items() if not _names_a_path(k)}, keep)
    if request.preview.startswith("--- ") and "old_string" not in request.args:
        texts += [line for line in linediff.text_lines(request.preview)[2:] if line.startswith("-")]
    command = request.tool is not None and request.tool.kind == "execute"  # a command, not a file's text
    joined = " ".join(texts)  # a space: a CR that ends one text is still lone
    # to bash the CR of a CRLF is part of its word (`touch x\r`), not a line end
    count, shown = control_characters(joined.replace("\r\n", "\r \n") if command else joined)
    if not count:
        return ""
    what = "a control character" if count == 1 else f"{count} control characters"
    if command:
        return (f"{WARNING_MARK}The command holds {what} ({shown}), shown as such: bash takes each as part "
                "of a word (a lone CR joins the words around it), and a terminal shows them as a cursor "
                "move or an erase, so a command can read other than it runs.")
    return (f"{WARNING_MARK}The change holds {what} ({shown}), shown as such: printed by cat or a terminal, "
            "they move the cursor or erase, so the file can show other text than it holds.")


PATH_KEYS = frozenset({"file", "target", "source", "destination", "dest", "cwd", "directory", "dir"})


def _names_a_path(key: str) -> bool:
    """Whether an argument named ``key`` names a file (``path``, ``file_path``, ``cwd``)."""
    return "path" in key.lower() or key.lower() in PATH_KEYS


def approval_lines(request: ApprovalRequest, *, indent: str = "  ", rest: bool = True) -> list[str]:
    """The tool, any hidden-character warning, why it asks, every argument, then the
    preview; then (``rest``) the later calls Y would approve with it (:func:`rest_lines`)."""
    lines = [f"{request.call.name}"]
    lines.extend(f"{indent}{warning}" for warning in hidden_warning(request).splitlines())
    words = request.own_words()
    if words:
        lines.extend(f"{indent}{line}" for line in words.splitlines() if line.strip())
    title, section = args_section(request)
    if title == "Asked about:":
        lines.append(f"{indent}{title}")
        lines.extend(f"{indent}{line}" if line else "" for line in section)
    else:
        lines.extend(argument_lines(request, indent=indent))
    if request.preview:
        lines.extend(f"{indent}{line}" for line in request.preview.split("\n"))
    return [*lines, *rest_lines(request, indent=indent)] if rest else lines


class ApprovalPrompts(Protocol):
    """How a line-oriented front end asks (the line mode on its prompt, headless on
    the terminal): each method shows its question and returns the answer."""

    async def key(self, request: ApprovalRequest, offered: list[Choice]) -> str | None:
        """One of the offered keys; None when the user cancelled (Ctrl+C, end of input)."""
        ...

    async def reason(self, request: ApprovalRequest) -> str | None:
        """Why it was rejected (the model reads it; empty for the default); None: back
        to the question."""
        ...

    async def edited(self, request: ApprovalRequest) -> str | None:
        """The arguments as edited JSON text; None to go back."""
        ...

    async def rules(self, request: ApprovalRequest) -> tuple[tuple[str, ...], RuleScope] | None:
        """The rules "always" keeps and where; None to go back."""
        ...

    def say(self, text: str, level: str = "info") -> None:
        """One line of feedback (``info``, ``ok``, ``warning``, ``error``)."""
        ...


async def decide(
    request: ApprovalRequest, prompts: ApprovalPrompts, waiting: int = 0
) -> ApprovalDecision | None:
    """The one approval flow of the line-oriented front ends: a key, then what that
    key needs (a reason, edited arguments checked against the schema, the rules
    to remember), until a decision is made. None: the user cancelled the reply.

    ``waiting``: how many other questions wait behind this one that ``A`` may approve
    with it (routine ones: see the TUI's ``approvable_together``); with any, ``A`` is
    offered, and its answer is this call's approval (the caller answers the others)."""
    offered = choices(request)
    if waiting and "approve" in request.allowed_decisions:
        offered.append(Choice(APPROVE_ALL_KEY, f"approve all {waiting + 1} waiting", "approve_all"))
    by_key = {c.key: c for c in offered}
    while True:
        key = await prompts.key(request, offered)
        if key is None:
            return None
        choice = by_key.get(key)
        if choice is None:
            continue
        decision = await _follow(choice.decision, request, prompts)
        if decision is not None:
            return decision


async def _follow(what: str, request: ApprovalRequest, prompts: ApprovalPrompts) -> ApprovalDecision | None:
    if what == "approve":
        prompts.say("approved", "ok")
        return ApprovalDecision.approve()
    if what == "approve_all":
        prompts.say("approved, and the routine questions waiting behind it", "ok")
        return ApprovalDecision.approve()
    if what == "approve_rest":
        same, _ = rest_counts(request)
        calls = "call" if same == 1 else "calls"
        prompts.say(f"approved, and the {same} {request.call.name} {calls} listed (one that asks for "
                    "another reason still asks)", "ok")
        return ApprovalDecision.approve(rest=True)
    if what in ("reject", "reject_rest"):
        why = await prompts.reason(request)
        if why is None:  # Ctrl+C: back to the question
            return None
        if what == "reject":
            prompts.say("rejected", "warning")
            return rejection(request, why)
        prompts.say(f"rejected, and the {rest_counts(request)[1]} calls after it", "warning")
        return rest_rejection(request, why)
    if what == "always":
        kept = await prompts.rules(request)
        if kept is None:
            return None
        rules, scope = kept
        if not rules:
            prompts.say("no rule: nothing remembered", "warning")
            return None
        prompts.say(f"approved; remembered in {scope}: {', '.join(rules)}", "ok")
        return ApprovalDecision.approve(always=True, rules=rules, scope=scope)
    text = await prompts.edited(request)
    if text is None:
        return None
    try:
        args = parse_edited_args(request, text)
    except ValueError as exc:
        prompts.say(f"not used: {exc}", "error")
        return None
    decision = edit_decision(request, args)
    if decision.type == "approve":
        prompts.say("approved as it was (the arguments were not changed)", "ok")
    else:
        prompts.say(f"edited: {json_text(args)}", "ok")
    return decision


def edit_decision(request: ApprovalRequest, args: dict[str, Any]) -> ApprovalDecision:
    """An edit that changed nothing is an approval: calling an unchanged call "edited"
    (or "modified by you") says something that did not happen, and the
    outside-the-workspace question reads an edit as "allow this directory instead"."""
    return ApprovalDecision.approve() if args == request.args else ApprovalDecision.edit(args)
