"""Changing the rules: "always" in a question, ``/permissions`` adding, editing and
removing a rule, each where it lives (the session, the project's
``.agent-shell/permissions.toml``, the user's config).

Kept apart from the verdicts (:mod:`.policy`): :class:`RuleEditing` is a part of
:class:`.policy.PermissionPolicy` that only moves rules between where they are kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from shell.core.approvals import ApprovalDecision, ApprovalRequest

from . import store
from .rules import Effect, Rule, RuleError, parse_rule
from .sharedhosts import shared_host_note


class RuleEditing:
    """The rule-changing part of the policy (its state is the policy's)."""

    root: Path
    user_config: Path | None
    user_rules: list[Rule]
    project_rules: list[Rule]
    project_trusted: bool
    run_id: str

    if TYPE_CHECKING:
        def _session_entries(self) -> list[dict[str, Any]]: ...

        def _changed(self) -> None: ...

    def remember(self, decision: ApprovalDecision, request: ApprovalRequest) -> str | None:
        """Keep an "always" (its rules, or the suggestion) where the user chose; what to
        warn about: a rule not saved, or a wildcard on a host anyone can own a name under."""
        texts = decision.rules if decision.rules is not None else request.suggested_rules
        if not texts:
            return "Nothing was remembered: no rule could allow this call (it was run once)."
        notes: list[str] = []
        try:
            for text in texts:
                notes.append(shared_host_note(self.add_rule(text, "allow", decision.scope)))
        except (RuleError, store.StoreError, OSError) as exc:
            return f"The rule was not saved: {exc}"
        return " ".join(n for n in notes if n) or None

    def add_rule(self, text: str, effect: Effect, scope: str) -> Rule:
        """Add a rule to the session (``session``), the project (``project``) or the
        user config (``user``); raises ``RuleError`` / ``StoreError``."""
        if scope == "session":
            rule = parse_rule(text, effect, "session")
            entries = self._session_entries()
            entry = {"effect": effect, "rule": rule.text, "run": self.run_id}
            if not any(e.get("effect") == effect and e.get("rule") == rule.text for e in entries
                       if isinstance(e, dict)):
                entries.append(entry)
        elif scope == "project":
            was = self.project_trusted or not store.project_rules_path(self.root).parent.exists()
            rule = parse_rule(text, effect, "project", str(store.project_rules_path(self.root)))
            store.add_rule(store.project_rules_path(self.root), None, rule)
            store.keep_project_trusted(self.root, was)
            if self.project_trusted or was:
                self.project_rules = [r for r in self.project_rules if r != rule] + [rule]
            self.project_trusted = self.project_trusted or was
        elif scope == "user":
            path = self._user_path()
            rule = parse_rule(text, effect, "user", str(path))
            store.add_rule(path, "permissions", rule)
            if rule not in self.user_rules:
                self.user_rules.append(rule)
        else:
            raise RuleError(f"unknown scope {scope!r}: session, project or user")
        self._changed()
        return rule

    def remove_rule(self, rule: Rule) -> None:
        """Take a rule out of where it lives; raises ``RuleError`` when it cannot be."""
        if rule.source == "cli":
            raise RuleError("that rule was given on the command line; it ends with this run")
        if rule.source in ("session", "restored"):
            entries = self._session_entries()
            entries[:] = [e for e in entries if not (isinstance(e, dict) and e.get("effect") == rule.effect
                                                    and e.get("rule") == rule.text)]
        elif rule.source == "project":
            store.remove_rule(store.project_rules_path(self.root), None, rule)
            store.keep_project_trusted(self.root, self.project_trusted)
            self.project_rules = [r for r in self.project_rules if r != rule]
        elif rule.source == "user":
            store.remove_rule(self._user_path(), "permissions", rule)
            self.user_rules = [r for r in self.user_rules if r != rule]
        self._changed()

    def replace_rule(self, rule: Rule, text: str, effect: Effect | None = None) -> Rule:
        """Edit a rule in place (same source): the new text is checked first."""
        new_effect = effect or rule.effect
        parse_rule(text, new_effect)  # a bad edit loses nothing
        scope = "session" if rule.source in ("session", "restored") else rule.source
        self.remove_rule(rule)
        return self.add_rule(text, new_effect, scope)

    def _user_path(self) -> Path:
        if self.user_config is not None:
            return self.user_config
        from shell.config import config_path

        return config_path()


__all__ = ["RuleEditing"]
