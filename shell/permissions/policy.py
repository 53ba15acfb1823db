"""The one permission policy: for every tool call, ``allow``, ``ask`` or ``deny``.

Every front end (TUI, line mode, headless, ACP) goes through it: the runtime
hands it to the ``HumanInTheLoop`` middleware, which asks it about each call
and asks the front end only when it says ``ask``. No front end decides alone.

The order, first answer wins:

1. a ``deny`` rule (any source, any mode; one on ``read_file`` also denies ``grep``
   and the like of the paths it covers: :meth:`PermissionPolicy.read_denied`; one on
   ``write_file`` or ``edit_file`` every way of writing the paths it covers: :mod:`.writedeny`);
2. plan mode: anything but reading and searching is denied, allow rules or not;
3. bypass mode: everything else runs, but a command line naming what a deny rule on
   reading hides, or running git's history readers while git tracks it, still asks (a
   deny rule holds in bypass: ``git show HEAD:secrets/plan.txt`` printed it, finding Q21);
4. an ``ask`` rule; then an ``allow`` rule, except that no allow rule turns a
   command's network on (``network: true`` asks: a test runner an allow rule names
   runs code the model can write, and with the network it can send out what it reads);
5. an MCP tool changed since the user accepted it asks (a "rug pull"), as does one its server marks
   destructive, and a network call (``fetch_url``, an MCP tool) whose arguments carry a secret
   the secrets policy recognises, whatever allow rules say (:mod:`.egress`); so does reading a
   secret-looking file (``read_file .env``) and a command line that names one (``cat .env``: the
   sandbox hides such files, and an approval of that call lets it see them);
6. the mode: read-only tools run (an MCP ``readOnlyHint`` counts only for a
   server the user configured or trusted); accept-edits and auto run file edits
   inside the workspace; auto runs shell commands the sandbox confines; the rest
   asks. Only this last question is *routine* (``Verdict.routine``): the one an
   "approve the rest of this batch" answer may cover. Every other ask (a rule, a
   secret, what runs later, a path outside, the network, no sandbox, auto's
   exceptions) is asked call by call.

Rules come from the command line, the user config, the project (trusted
workspaces only) and the session. Session rules ("always" answered this session)
are kept in the session, so ``--continue`` brings them back, but a rule restored
from a saved session is only a memory of an earlier run: when the command line
chose the policy itself (``--permission-mode`` or ``--approve``), restored allow
rules are suspended, so nothing a session restores overrides a stricter command
line.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio.to_thread

from middleware.human_in_the_loop import AskDetails, Verdict
from shell.core.approvals import ApprovalDecision, ApprovalRequest
from shell.core.tools import READ_KINDS, Tool

from . import asktext, homedirs, laternames, sessionrules, store
from . import paths as resolving
from .asktext import (
    ask_reason,
    confinement,
    names_one_path,
    names_secrets,
)
from .autocommands import auto_command
from .deniedreads import DeniedReadQuestions
from .egress import secret_sent
from .fence import Fence, outside_note
from .hiddensent import hidden_value_sent
from .homedirs import unfenced_note
from .mcppaths import TooManyPaths, is_mcp, may_write, mcp_subjects, outside_question, subject_paths
from .modes import PLAN_NOTE, SUMMARY, Mode, next_mode, parse_mode
from .pathchecks import read_denied_by_rule, runs_later_hit, secret_read
from .paths import BadPath
from .preview import edit_preview
from .ruleedits import RuleEditing
from .rules import (
    SOURCE_LABELS,
    CallPaths,
    Rule,
    RuleSet,
    known_only_at_run_time,
)
from .secretwords import named_secret_files
from .suggest import command_preview, suggest_rules
from .writedeny import Wildcards, check_write, is_write_rule, write_denied_paths, write_wildcards
from .writewalls import unheld_question

if TYPE_CHECKING:
    from .sandbox import Sandbox

RUN_TIME_NOTE = (" What this line runs is known only when it runs (a command word from a variable, or a "
                 "shell fed by a pipe, a here-string or <(…)), so every such rule covers it.")
SESSION_KEY = sessionrules.SESSION_KEY
"""Where session rules live in the HumanInTheLoop middleware's session state."""
LEGACY_KEY = sessionrules.LEGACY_KEY
STALE_RETRIES = 3  # times a decision is made while the mode or the rules change under it


RUNS_LATER = laternames.RUNS_LATER
"""What runs later as the user: file edits there always ask (only bypass skips the question);
the sandbox keeps it read-only for commands and quarantines what they plant (:mod:`.runslater`)."""


@dataclass(frozen=True, slots=True)
class ListedRule:
    """A row of ``/permissions``: the rule, and whether it is in force now."""

    rule: Rule
    active: bool
    note: str = ""


class PermissionPolicy(RuleEditing, DeniedReadQuestions):
    """Modes and rules for one workspace. Cheap to ask (see benchmarks/permission_rules.py).

    ``sandboxed(command)``: would ``run_shell`` confine it (none wired: auto asks for every
    command). ``session_state``: the dict the session saves (HumanInTheLoop's)."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        mode: Mode = "default",
        user_rules: list[Rule] | None = None,
        cli_rules: list[Rule] | None = None,
        cli_strict: bool = False,
        user_config: Path | None = None,
        session_state: Callable[[], MutableMapping[str, Any]] | None = None,
        sandboxed: Callable[[str], bool] | None = None,
        load_project: bool = True,
    ) -> None:
        self.root = resolving.real_root(root)
        self._mode: Mode = mode
        self._asking = True
        self.include_bypass = mode == "bypass"
        self.mode_origin = ""
        """Where the starting mode was set when not on the command line (``config.toml
        line 2``): the status says it beside a mode that asks nothing."""
        self.cli_rules = list(cli_rules or [])
        self.user_rules = list(user_rules or [])
        self.project_rules: list[Rule] = []
        self.project_trusted = False
        self.problems: list[str] = []
        self.cli_strict = cli_strict
        self.user_config = user_config
        self._own_state: dict[str, Any] = {}
        self._state = session_state or (lambda: self._own_state)
        self.sandboxed = sandboxed
        self.run_id = uuid.uuid4().hex[:12]
        """Marks the session rules granted in this run (others were restored)."""
        self.listeners: list[Callable[[], None]] = []
        """Called after the mode or the rules change (status lines redraw)."""
        self._ruleset: RuleSet | None = None
        self._cache_lock = threading.Lock()
        self._generation = 0  # counts changes of the mode and the rules (see decide)
        self.fence: Fence | None = None
        """The workspace's fence (the runtime sets it): a question about a call whose
        path is outside says so, and its approval also answers the fence."""
        self.added_dirs: list[Path] = []
        """Directories added to the workspace (``--add-dir``, ``/add-dir``): file edits
        there count as inside it (accept-edits and auto run them)."""
        self.sandbox: Sandbox | None = None
        """``run_shell``'s sandbox (the runtime sets it): how many secret files it hides
        is said when asking, and an approved command that names one sees it."""
        self._session_seen: sessionrules.Stamp | None = None
        if load_project:
            self.reload_project()

    # -- mode ----------------------------------------------------------------------
    @property
    def mode(self) -> Mode:
        return self._mode

    @mode.setter
    def mode(self, mode: Mode) -> None:
        self._mode = parse_mode(mode)
        if self._mode == "bypass":
            self.include_bypass = True
        self._changed()

    @property
    def fence_open(self) -> bool:
        """Whether a path outside the workspace is used unasked: only in bypass mode,
        where nothing asks. Switching approvals off keeps the question (the boundary
        is not a tool's approval)."""
        return self._mode == "bypass"

    def cycle_mode(self) -> Mode:
        """Shift+Tab: the next mode (bypass only if it was chosen at start)."""
        self.mode = next_mode(self._mode, include_bypass=self.include_bypass)
        return self._mode

    def describe_mode(self) -> str:
        unfenced = self.unfenced() if self._mode in ("accept-edits", "auto") else ""
        return f"{self._mode}: {SUMMARY[self._mode]}" + (f" (it asks here: {unfenced})" if unfenced else "")

    def unfenced(self) -> str:
        """Why accept-edits and auto run nothing unasked in this workspace (the home
        directory, ``/``…: see :mod:`.homedirs`), or ""."""
        return homedirs.unfenced([self.root, *self.added_dirs])

    def system_note(self) -> str | None:
        return PLAN_NOTE if self._mode == "plan" else None

    def _changed(self) -> None:
        with self._cache_lock:  # a decision under way in a worker sees it (see decide)
            self._generation += 1
            self._ruleset = None
        for listener in list(self.listeners):
            listener()

    # -- rules -----------------------------------------------------------------------
    def reload_project(self) -> None:
        """Read the project's rules if the workspace is trusted (else none)."""
        self.project_trusted = store.project_trusted(self.root)
        self.project_rules = []
        if self.project_trusted:
            self.project_rules, problems = store.load_project_rules(self.root)
            self.problems.extend(problems)
        self._changed()

    def _session_entries(self) -> list[dict[str, Any]]:
        """The session's rule list, to change (writers, on the event loop)."""
        return sessionrules.entries(self._state())

    def session_rules(self) -> list[Rule]:
        return sessionrules.rules(sessionrules.seen(self._state())[0], self.run_id)

    def _active(self) -> RuleSet:
        """The rules in force, built once per change, from the deciding worker thread too: a set
        built from rules a change made stale meanwhile is not kept (under the lock), so a check
        abandoned by Esc cannot bring old rules back for the next turn."""
        rows, seen = sessionrules.seen(self._state())
        with self._cache_lock:
            if self._ruleset is not None and seen == self._session_seen:
                return self._ruleset
            generation = self._generation
        ruleset = RuleSet([r for r, active, _ in self._listing(rows) if active])
        with self._cache_lock:
            if generation == self._generation:
                self._ruleset, self._session_seen = ruleset, seen
        return ruleset

    def allowed_hosts(self) -> list[str]:
        """The hosts active allow rules name for ``fetch_url`` (``domain:HOST``): the
        network guard (:mod:`.network`) lets these be private addresses too."""
        return [
            rule.pattern[len("domain:"):].strip()
            for rule, active, _ in self._listing()
            if active and rule.effect == "allow" and rule.names("fetch_url")
            and rule.pattern is not None and rule.pattern.startswith("domain:")
        ]

    def _listing(self, session: list[Any] | None = None) -> list[tuple[Rule, bool, str]]:
        rows: list[tuple[Rule, bool, str]] = []
        kept = self.session_rules() if session is None else sessionrules.rules(session, self.run_id)
        for rule in [*self.cli_rules, *self.user_rules, *self.project_rules, *kept]:
            if rule.source == "restored" and rule.effect == "allow" and self.cli_strict:
                rows.append((rule, False, "suspended: the command line set the policy"))
            else:
                rows.append((rule, True, ""))
        return rows

    def listed(self) -> list[ListedRule]:
        """Every rule with where it came from, in force or not (for ``/permissions``)."""
        return [ListedRule(rule, active, note) for rule, active, note in self._listing()]

    # -- asking at all -------------------------------------------------------------------
    @property
    def asking(self) -> bool:
        """Whether a call the policy would ask about waits for a person. Off (the
        HumanInTheLoop switch in a front end), such calls run unasked, as in bypass
        mode; deny rules and plan mode still hold, since they are not questions."""
        return self._asking

    @asking.setter
    def asking(self, on: bool) -> None:
        if on != self._asking:
            self._asking = on
            self._changed()

    # -- deciding ----------------------------------------------------------------------
    def decide(self, tool: Tool, args: Mapping[str, Any]) -> Verdict:
        """``allow``, ``ask`` or ``deny`` for one call, with the reason. Runs in a worker thread
        (the gate's: a slow check must not stall the screen or Esc) while the loop may change the
        mode or the rules: a decision a change overtook is made again (no call runs on a mode the
        user left). It changes nothing the next call relies on but the locked caches."""
        for _ in range(STALE_RETRIES):
            generation = self._generation
            verdict = self._decide_once(tool, args)
            if generation == self._generation:
                break
        return verdict

    def _decide_once(self, tool: Tool, args: Mapping[str, Any]) -> Verdict:
        try:
            verdict = self._decide(tool, args)
        except BadPath as exc:  # no file has that name: nothing to ask about
            return Verdict("deny", f"{tool.name} was not run: {exc}. Call it again with the path as it "
                                   "is written on disk.")
        except TooManyPaths as exc:  # (found in _decide first: this is a backstop)
            verdict = self._unchecked(tool, str(exc))
        if verdict.action == "ask" and not self._asking:
            held = self._mcp_boundary(tool, args)
            if held:  # what the fence asks of a built-in tool with approvals off, an MCP tool meets here
                return Verdict("ask", f"{held} Approvals are off, but a path outside the workspace is still "
                                      "asked about: that is a boundary, not a tool's approval.")
            return Verdict("allow", f"approvals are off, so it runs unasked ({verdict.reason})")
        if verdict.action == "ask" and self.fence is not None:
            where = self.fence.outside(tool, args)
            if where is not None:  # not routine: a path outside is asked about on its own
                return Verdict("ask", f"{verdict.reason} {outside_note(tool.name, where, self.fence.root)}")
        return verdict

    def approved(self, decision: ApprovalDecision, request: ApprovalRequest) -> None:
        """The user approved a call the policy asked about: if the question said its
        path is outside the workspace, the fence lets this call use exactly that path
        without asking again (an edit to another path is asked about by the fence)."""
        fence, tool = self.fence, request.tool
        if tool is None or decision.type not in ("approve", "edit"):
            return
        asktext.accept_seen_change(tool, request.reason)
        final = decision.args if decision.type == "edit" and decision.args else request.args
        command = final.get("command")
        if tool.kind == "execute" and isinstance(command, str) and self.sandbox is not None:
            named = named_secret_files(command)
            if named:  # the question named them: this call sees the files they name
                self.sandbox.reveal(request.call.id, named)
        if fence is None:
            return
        shown = fence.outside(tool, request.args)
        if shown is None or outside_note(tool.name, shown, fence.root) not in request.reason:
            return  # the question did not name this path (a file swapped for a link while it was open)
        if decision.type == "edit":
            ran = fence.outside(tool, decision.args or {})
            if ran is None or ran.path != shown.path:
                return
        fence.pass_call(request.call.id, request.call.name, shown.path)

    def _decide(self, tool: Tool, args: Mapping[str, Any]) -> Verdict:
        subjects, too_many = mcp_subjects(tool, args)  # too many: none is let through unchecked
        paths = CallPaths(args, self.root, subjects)  # each path resolved once per decision
        effect, rule = self._active().judge(tool.name, args, self.root, paths)
        command = args.get("command")
        ruled = effect in ("deny", "ask") and isinstance(command, str)
        why = RUN_TIME_NOTE if ruled and known_only_at_run_time(str(command)) else ""
        writes = subjects if may_write(tool) else None  # an MCP tool's `file`, `dest`, `paths[]`…
        write = check_write(self._active(), self.root, tool.name, tool.kind, args, paths, writes)
        if (effect == "deny" and rule is not None) or write.effect == "deny":
            return self._denied(tool, rule if effect == "deny" else None, why, write.why)
        looks_only = tool.read_only and tool.kind in READ_KINDS
        trusted = bool(getattr(tool, "hints_trusted", True))
        if self._mode == "plan" and not (looks_only and trusted):
            return Verdict(
                "deny",
                f"Plan mode: {tool.name} was not run (nothing that writes, executes or reaches the network "
                "runs while planning). Present your plan; the user switches modes to carry it out.",
            )
        if too_many:
            return self._unchecked(tool, too_many)
        denied = read_denied_by_rule(tool, args, self.read_denied)
        if denied:  # grep of a file a `deny read_file(...)` covers reads it just the same
            return Verdict("deny", f"{tool.name} was not run: {denied}.")
        if self._mode == "bypass":  # a read-deny rule still holds: a line naming what it hides asks
            command = args.get("command") if tool.kind == "execute" else None
            held = self._denied_question(tool, command) if isinstance(command, str) else ""
            return Verdict("ask", held) if held else Verdict("allow", "bypass mode")
        writer = may_write(tool)  # an MCP tool may write any path it is given
        roots = [self.root, *self.added_dirs]
        edits = tool.kind == "edit" or writer
        hit = runs_later_hit(tool, args, paths, roots, self.sandbox) if edits else None
        later = f"{tool.name} would change {hit[0]}, which {hit[1].after_which}." if hit else ""
        asks = asktext.changed_tool(tool) or later or secret_sent(tool, args) or hidden_value_sent(
            tool, args, self.sandbox) or (
            outside_question(tool, subject_paths(tool, args), paths, roots)  # readOnlyHint: inside only
            if is_mcp(tool) else "")
        if asks:  # before allow rules and modes: no broad grant reaches these (nor a tool as it was)
            return Verdict("ask", asks)
        secret = secret_read(tool, args, paths, self.sandbox)
        limited = self._beyond_allow_rule(tool, args, rule, secret) if effect == "allow" else None
        if limited is not None:
            return limited
        unheld = self.sandbox if tool.kind == "execute" else None  # a wildcard rule it cannot hold in full
        asked = write.why if write.effect == "ask" and effect != "ask" else unheld_question(
            self.write_wildcards(), unheld)
        if asked:  # an ask rule on writing beats an allow rule
            return Verdict("ask", asked)
        if effect is not None and rule is not None:
            where = SOURCE_LABELS[rule.source]
            return Verdict(effect, f"The rule `{effect} {rule.text}` ({where}) asks for {tool.name}.{why}"
                           if effect == "ask" else f"allowed by `{rule.text}` ({where})")
        if getattr(tool, "destructive", False):
            return Verdict("ask", f"The server marks {tool.name} as destructive.")
        if secret:
            return Verdict("ask", secret)
        command = args.get("command") if tool.kind == "execute" else None
        named = self._names_hidden(tool, command) if isinstance(command, str) else ""
        if named:
            return Verdict("ask", named)
        if looks_only:
            if trusted:
                return Verdict("allow", "read-only")
            return Verdict("ask", f"{tool.name} says it only reads, but its server is not one you configured "
                                  "or trusted.")
        return self._by_mode(tool, args)

    def _beyond_allow_rule(
        self, tool: Tool, args: Mapping[str, Any], rule: Rule | None, secret: str
    ) -> Verdict | None:
        """What an allow rule does not grant, though it matches: a secret file its wildcard
        reaches (``read_file(src/**)`` is no grant to read src/.env, ``run_shell(cat:*)`` none
        to cat another project's .env, which the sandbox does not hide), and the network."""
        command = args.get("command") if tool.kind == "execute" else None
        denied = self._history_question(tool, command) if isinstance(command, str) else ""
        if denied:
            return Verdict("ask", denied)
        wildcard = rule is not None and not names_one_path(rule)
        named = named_secret_files(command) if isinstance(command, str) and wildcard else []
        if rule is not None and wildcard and (secret or named):
            what = secret or names_secrets(tool.name, str(command), named, self.sandboxed)
            return Verdict("ask", f"{what} The rule `allow {rule.text}` covers it only by a wildcard, "
                                  "which does not reach such files; a rule naming the file would.")
        if tool.kind == "execute" and args.get("network"):
            return Verdict("ask", f"{tool.name} asks for the network; an allow rule for the command does not "
                                  "turn it on (it would let the command send out what it can read)."
                           + self._confinement(tool, args))
        return None

    def _mcp_boundary(self, tool: Tool, args: Mapping[str, Any]) -> str:
        """The question an MCP call keeps with approvals off: a path outside the workspace
        (its server runs outside the sandbox and the fence: for a built-in tool the fence
        asks at run time, for an MCP tool this is the only place), or more paths than are
        checked one by one (one of them may be outside)."""
        subjects, too_many = mcp_subjects(tool, args)
        if too_many:
            return self._unchecked(tool, too_many).reason
        try:
            roots = [self.root, *self.added_dirs]
            return outside_question(tool, subjects or [], CallPaths(args, self.root), roots)
        except BadPath as exc:
            return f"{tool.name} names a path that cannot be checked ({exc})."

    def _unchecked(self, tool: Tool, why: str) -> Verdict:
        """An MCP call naming more paths than are checked one by one asks; bypass runs it
        only while no deny rule could cover one of them (deny rules hold in every mode)."""
        rules = self._active().rules
        reach = (r for r in rules if r.names(tool.name) or r.names("read_file") or is_write_rule(r))
        if self._mode == "bypass" and not any(r.effect == "deny" for r in reach):
            return Verdict("allow", f"bypass mode ({tool.name}: {why})")
        return Verdict("ask", f"{tool.name}: {why}, so they are not checked one by one against deny rules, "
                              "secret files and the workspace's boundary; approving runs this call once.")

    @staticmethod
    def _denied(tool: Tool, rule: Rule | None, why: str, write_why: str) -> Verdict:
        if rule is None:  # a rule on writing: write_file's, edit_file's, the same
            return Verdict("deny", write_why)
        where = SOURCE_LABELS[rule.source]
        return Verdict("deny", f"Denied by the rule `deny {rule.text}` ({where}); {tool.name} was not "
                               f"run.{why} Do not retry it; tell the user what you wanted to do.")

    def write_denied_paths(self) -> list[Path]:
        """What deny and ask rules on writing name outright, for the sandbox to keep read-only."""
        return write_denied_paths(self._active(), self.root)

    def write_wildcards(self) -> Wildcards:  # those with a wildcard, for the sandbox (.writewalls)
        return write_wildcards(self._active(), self.root)

    def _by_mode(self, tool: Tool, args: Mapping[str, Any]) -> Verdict:
        """The last word: accept-edits and auto run edits inside the workspace, auto
        the commands the sandbox confines (not in the home directory: :mod:`.homedirs`)."""
        unfenced = self.unfenced() if self._mode in ("accept-edits", "auto") else ""
        if tool.kind == "edit" and self._mode in ("accept-edits", "auto"):
            if self._paths_inside(args):
                if unfenced:  # the home directory: what runs as you later is everywhere here
                    return Verdict("ask", unfenced_note(unfenced, self._mode))
                return Verdict("allow", f"{self._mode}: a file edit inside the workspace")
            return Verdict("ask", f"{tool.name} would change a file outside the workspace.")
        if tool.kind == "execute" and self._mode == "auto":
            if unfenced:
                return Verdict("ask", unfenced_note(unfenced, "auto") + self._confinement(tool, args))
            return auto_command(tool, args, self.sandboxed, self.sandbox)
        # the one routine question ("approve the rest" may cover it): the mode asks about
        # every call of this kind; not a path outside the workspace, not the network
        routine = (tool.kind not in ("edit", "delete", "move") or self._paths_inside(args)) \
            and not args.get("network")
        reason = ask_reason(tool, self._mode, args) + self._confinement(tool, args)
        return Verdict("ask", reason, routine=routine)

    def _confinement(self, tool: Tool, args: Mapping[str, Any]) -> str:
        return confinement(tool, args, self.sandboxed, self.sandbox)

    def _paths_inside(self, args: Mapping[str, Any]) -> bool:
        path = args.get("path")
        if not isinstance(path, str):
            return False
        target = resolving.real(path, self.root)
        return any(resolving.within(target, root) for root in (self.root, *self.added_dirs))

    # -- asking ------------------------------------------------------------------------
    async def details(self, tool: Tool, args: Mapping[str, Any]) -> AskDetails:
        """The rules "always" would keep and a diff for a file edit, off the loop as :meth:`decide`."""
        return await anyio.to_thread.run_sync(self._details, tool, dict(args), abandon_on_cancel=True)

    def _details(self, tool: Tool, args: dict[str, Any]) -> AskDetails:
        preview = ""
        if tool.kind == "edit":
            preview = edit_preview(tool.name, args, self.root)  # bounded
        elif isinstance(args.get("command"), str):
            preview = command_preview(args["command"])
        return AskDetails(self.suggest(tool, args), preview)

    def suggest(self, tool: Tool, args: Mapping[str, Any]) -> tuple[str, ...]:
        """The narrowest useful rules that would have allowed this call (:func:`.suggest_rules`)."""
        return suggest_rules(tool, args, self.root)
