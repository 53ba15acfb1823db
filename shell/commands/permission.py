"""The permission policy and workspace trust: /mode, /permissions, /trust, /add-dir, /quarantine."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from shell.core.textsafety import show_blank_runs

from .registry import CommandResult

if TYPE_CHECKING:
    from shell.runtime import ShellRuntime


def _modes() -> tuple[str, ...]:
    from shell.permissions.modes import MODES

    return MODES


def _complete_permissions(runtime: ShellRuntime, rest: str) -> list[str]:
    words = rest.split()
    if len(words) == 0 or (len(words) == 1 and not rest.endswith(" ")):
        return ["allow", "ask", "deny", "edit", "remove"]
    return ["--project", "--user"] if words[0] in ("allow", "ask", "deny") else []


def mode_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/mode``: the mode and what each does; ``/mode NAME`` switches."""
    from shell.permissions.modes import SUMMARY, ModeError, parse_mode

    policy = runtime.permissions
    if arg:
        try:
            policy.mode = parse_mode(arg)
        except ModeError as exc:
            return CommandResult(str(exc), error=True)
        off = " (approvals are off: what would ask runs unasked; deny rules hold)"
        warn = "" if runtime.approvals_on else off
        mode, summary = policy.describe_mode().split(": ", 1)
        return CommandResult(f"Permission mode: **{mode}**: {summary}.{warn}")
    rows = [f"- {f'**{m}**' if m == policy.mode else m}: {SUMMARY[m]}" for m in SUMMARY]
    return CommandResult(
        f"Permission mode: **{runtime.mode_label}**. `/mode NAME` switches (Shift+Tab cycles):\n\n"
        + "\n".join(rows)
    )


def permissions_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/permissions``: every rule with where it came from; add, edit, remove."""
    from shell.permissions.rules import SOURCE_LABELS, RuleError
    from shell.permissions.store import StoreError

    policy = runtime.permissions
    listed = policy.listed()
    words = arg.split(maxsplit=1)
    verb = words[0].lower() if words else ""
    rest = words[1].strip() if len(words) > 1 else ""
    try:
        if verb in ("allow", "ask", "deny"):
            scope = "session"
            for flag, where in (("--project", "project"), ("--user", "user")):
                if rest.endswith(flag):
                    scope, rest = where, rest[: -len(flag)].strip()
            rule = policy.add_rule(rest, verb, scope)  # type: ignore[arg-type]
            held = _wildcard_scope(runtime, rule)
            held = f" Note: {held}." if held else ""
            return CommandResult(f"Added `{rule}` ({SOURCE_LABELS[rule.source]}).{held}{_shared(rule)}")
        if verb in ("remove", "rm", "delete", "edit"):
            number, _, new_text = rest.partition(" ")
            if not number.isdigit() or not 1 <= int(number) <= len(listed):
                return CommandResult(f"Which rule? Give its number (1 to {len(listed)}); "
                                     "`/permissions` lists them.", error=True)
            row = listed[int(number) - 1]
            if verb == "edit":
                if not new_text.strip():
                    return CommandResult("Usage: `/permissions edit N RULE`", error=True)
                new = policy.replace_rule(row.rule, new_text.strip())
                said = f"Rule {number} is now `{new}` ({SOURCE_LABELS[new.source]})."
                return CommandResult(said + _shared(new))
            policy.remove_rule(row.rule)
            return CommandResult(f"Removed `{row.rule}` ({SOURCE_LABELS[row.rule.source]}).")
        if verb:
            return CommandResult("Usage: `/permissions [allow|ask|deny RULE [--project|--user] | "
                                 "edit N RULE | remove N]`", error=True)
    except (RuleError, StoreError, OSError) as exc:
        return CommandResult(f"Not changed: {exc}", error=True)
    lines = [f"Permission mode: **{runtime.mode_label}** (`/mode` switches).", "",
             workspace_line(runtime), ""]
    if not listed:
        lines.append("No rules yet. \"Always\" in an approval proposes one; or "
                     "`/permissions allow run_shell(git status:*)`.")
    for i, row in enumerate(listed, 1):
        origin = f" `{row.rule.origin}`" if row.rule.origin else ""
        note = f" ({row.note})" if row.note else ""
        held = _wildcard_scope(runtime, row.rule)
        note += f" ({held})" if held else ""
        where = SOURCE_LABELS[row.rule.source]
        lines.append(f"{i}. `{row.rule.effect} {row.rule.text}`: {where}{origin}{note}")
    if not policy.project_trusted:
        lines += ["", "Project rules (`.agent-shell/permissions.toml`) apply once the workspace is trusted."]
    lines += ["", "`/permissions remove N`, `/permissions edit N RULE`, "
                  "`/permissions allow|ask|deny RULE [--project|--user]` (default: this session)."]
    return CommandResult("\n".join(lines))


def _shared(rule: Any) -> str:
    """The warning for a wildcard on a host anyone can own (``*.github.io``), said where
    the rule is made, as ``--allow``, the config and "always" say it (finding K12)."""
    from shell.permissions.sharedhosts import shared_host_note

    note = shared_host_note(rule)
    return f"\n\nWarning: {note}" if note else ""


def _wildcard_scope(runtime: ShellRuntime, rule: Any) -> str:
    """What a deny or ask rule on writing with a wildcard (``**/*.sql``) holds in the
    sandbox and what it does not reach (:func:`.writewalls.scope_note`), or ""."""
    from shell.permissions.rules import RuleSet
    from shell.permissions.writedeny import write_wildcards
    from shell.permissions.writewalls import scope_note

    return scope_note(write_wildcards(RuleSet([rule]), runtime.workspace.root), runtime.sandbox)


async def trust_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/trust``: what this workspace's own config would start; ``/trust yes`` trusts
    exactly what ``/trust`` showed last (not a file that changed since), ``/trust no``
    declines, ``/trust forget`` asks again next time."""
    from shell.permissions.trust import TrustStore

    verb = arg.strip().lower()
    check = runtime.workspace_trust()
    if verb == "forget":
        found = TrustStore().forget(check.config.root)
        said = "Forgotten: you will be asked at the next start." if found else "No answer recorded."
        return CommandResult(said)
    if check.state == "none":
        return CommandResult("This workspace has no project config (`.mcp.json`, `.agent-shell/`): "
                             f"nothing to trust.\n\n{workspace_line(runtime)}")
    shown = runtime.trust_shown
    if verb in ("yes", "no"):
        if shown is None or shown.config.digest != check.config.digest:
            runtime.trust_shown = check
            return CommandResult(
                "The project config changed since `/trust` showed it (or it was not shown yet). "
                "Read it again below, then `/trust yes` or `/trust no`.\n\n" + _trust_listing(runtime, check),
                error=True,
            )
        await runtime.decide_trust(check, verb == "yes")
        if verb == "yes":
            return CommandResult("Trusted: its servers start now and its project rules apply. "
                                 "Asked again when any of these files changes.")
        return CommandResult("Not trusted: its config stays unused. `/trust` shows it again.")
    if verb:
        return CommandResult("Usage: `/trust [yes | no | forget]`", error=True)
    runtime.trust_shown = check
    return CommandResult(_trust_listing(runtime, check))


def _trust_listing(runtime: ShellRuntime, check: Any) -> str:
    """The repository's own words in a code block (a fence longer than any backtick
    run in them), so that its Markdown cannot dress up what the user is trusting."""
    state = {"trusted": "trusted", "declined": "not trusted (you said no)",
             "changed": "changed since you answered", "untrusted": "not trusted yet"}[check.state]
    from shell.commands import default_commands

    taken = default_commands().names(custom=False)
    lines = [f"workspace: {check.config.root}", *runtime.describe_project(check, taken)]
    body = "\n".join(wrapped_line(show_blank_runs(line)) for line in lines)
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", body)), default=0))
    return (f"This workspace's own config is **{state}**. Trusting it would apply (or ignore), "
            f"file by file:\n\n{fence}\n{body}\n{fence}\n\n"
            "`/trust yes` trusts exactly these files, `/trust no` declines.\n\n" + workspace_line(runtime))


TRUST_WIDTH = 56
"""Where the trust listing breaks its lines: a code block is cut at the screen's
edge, not wrapped, and a cut command line hides what trusting it runs (J12). 56
fits a 60-column terminal with the block's border and padding."""


def wrapped_line(line: str, width: int = TRUST_WIDTH) -> str:
    """``line`` broken into rows of at most ``width`` characters (at spaces where it
    can, anywhere where it must), each row after the first marked ``↪``."""
    import textwrap

    rows = textwrap.wrap(line, width, break_on_hyphens=False, replace_whitespace=False,
                         subsequent_indent="\u21aa ") or [""]
    return "\n".join(rows)


def workspace_line(runtime: ShellRuntime) -> str:
    """Where the tools and commands may work: the root and the directories added to it."""
    added = runtime.workspace.added
    root = f"Workspace: `{runtime.workspace.root}`"
    if not added:
        return f"{root} (`/add-dir DIR` adds another directory for this run)."
    return f"{root}, and added for this run: " + ", ".join(f"`{d}`" for d in added) + "."


def add_dir_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/add-dir DIR``: the user's own act, so it adds without asking (see
    :meth:`ShellRuntime.add_dir`); ``/add-dir`` alone lists what was added."""
    from shell.runtime import ShellError

    directory = arg.strip()
    if not directory:
        return CommandResult(workspace_line(runtime))
    if len(directory) >= 2 and directory[0] == directory[-1] and directory[0] in "'\"":
        directory = directory[1:-1]
    before = list(runtime.workspace.added)
    try:
        path = runtime.add_dir(directory)
    except ShellError as exc:
        return CommandResult(str(exc).removeprefix("--add-dir: "), error=True)
    if runtime.workspace.added == before:
        return CommandResult(f"`{path}` is in the workspace already.")
    return CommandResult(
        f"Added `{path}` to the workspace for this run: the tools read and write there without the "
        "outside-the-workspace question, and sandboxed commands may write there (its secret files "
        "hidden, its git hooks read-only). Your permission mode and rules still decide each call."
    )


def quarantine_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/quarantine``: what the sandbox moved out of the workspace (it would have run
    later as the user), newest first; ``/quarantine restore N`` puts one back."""
    import time

    from shell.permissions import quarantine

    roots = runtime.workspace.roots
    everything = quarantine.entries()
    found = [e for e in everything if e.original is not None and any(r in e.original.parents for r in roots)]
    elsewhere = len(everything) - len(found)
    others = (f" {elsewhere} more, from other workspaces or of unknown origin, are in `{quarantine.root()}`: "
              "start agent-shell in its workspace to see and restore one." if elsewhere else "")
    words = arg.split()
    if words and words[0] == "restore":
        if not found:
            return CommandResult("Nothing of this workspace is in quarantine: there is nothing to restore."
                                 + others, error=True)
        if len(words) != 2 or not words[1].isdigit() or not 1 <= int(words[1]) <= len(found):
            return CommandResult(f"Usage: /quarantine restore N, N from 1 to {len(found)} (see /quarantine).",
                                 error=True)
        try:
            back = quarantine.restore(found[int(words[1]) - 1], roots)
        except quarantine.QuarantineError as exc:
            return CommandResult(f"Not restored: {exc}.", error=True)
        return CommandResult(f"Put back `{back}`. It runs later as you (git, direnv or your editor will "
                             "use it): check what it does.")
    if words:
        return CommandResult("Usage: /quarantine, or /quarantine restore N.", error=True)
    if not found:
        return CommandResult(f"Nothing of this workspace is in quarantine (`{quarantine.root()}`). "
                             "When a sandboxed command creates a git hook, an .envrc, a .vscode task or the "
                             f"like, it is moved there.{others}")
    rows = []
    for n, entry in enumerate(found, 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.moved_at)) if entry.moved_at else "?"
        came = (f"`{entry.original}`" if entry.original is not None
                else f"`{entry.stored}` (where it came from was not recorded)")
        why = f": {entry.why}" if entry.why else ""
        rows.append(f"{n}. {when} {came}{why}")
    return CommandResult(
        f"Moved out of this workspace by the sandbox, newest first (kept {quarantine.RETENTION_DAYS} days, "
        f"in `{quarantine.root()}`):\n\n" + "\n".join(rows)
        + "\n\n`/quarantine restore N` puts one back where it was (only if nothing is there now, and never "
        f"through a symlink).{others}"
    )
