"""Why a command line asks while something is kept from reading: a deny rule on reading,
``[sandbox] hide``, or a secret file it names — by its path or through git's history
readers (``git show HEAD:secrets/plan.txt`` printed a denied file, finding Q21).

Kept apart from the verdicts' order (:mod:`.policy`): :class:`DeniedReadQuestions` is the
part of :class:`.policy.PermissionPolicy` that finds what a command line would read of
what is hidden; its state is the policy's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from shell.core.tools import Tool

from . import paths as resolving
from .asktext import names_denied, names_secrets, reads_denied_history
from .githistory import held_denied, history_reader, only_moves_hidden
from .hiddenstore import stored_secret_question
from .paths import BadPath
from .readdeny import read_denied, read_denied_paths
from .rules import RuleSet
from .secretwords import named_paths, named_secret_files

if TYPE_CHECKING:
    from .sandbox import Sandbox


class DeniedReadQuestions:
    """The questions a command line naming hidden paths gets (the policy's state)."""

    root: Path
    sandbox: Sandbox | None
    sandboxed: Callable[[str], bool] | None

    if TYPE_CHECKING:
        def _active(self) -> RuleSet: ...

    def _names_hidden(self, tool: Tool, command: str) -> str:
        """Why a command line naming a secret file, or a path a deny rule on reading
        covers, asks ("" when it names none)."""
        named = named_secret_files(command)
        if named:
            return names_secrets(tool.name, command, named, self.sandboxed)
        return self._history_question(tool, command)

    def _history_question(self, tool: Tool, command: str) -> str:
        """Why a command running one of git's history readers asks: a deny rule names a
        path git tracks, or the object store holds a hidden secret file (:mod:`.hiddenstore`)."""
        return self._denied_question(tool, command) or stored_secret_question(
            tool.name, command, self.root, self.sandbox)

    def _denied_question(self, tool: Tool, command: str) -> str:
        """Why a command line asks while a deny rule on reading is in force: it names a
        path the rule covers, or runs one of git's history readers while git tracks a path
        the rule names ("" otherwise); the same for ``[sandbox] hide`` (finding P8). The
        sandbox shows no copy of what they hide, to git or anything else (:mod:`.gitmarks`
        keeps git from taking it for deleted). Asked before allow rules too: an allow rule
        for ``git log:*`` is no grant to read denied files."""
        hidden = self._config_hidden()
        if not hidden and not self._active().denies_any("read_file"):
            return ""
        denied = named_paths(command, self._kept_by)
        if denied:
            return names_denied(tool.name, denied)
        reader = history_reader(command, self.root)
        tracked = held_denied([*self.read_denied_paths(), *hidden]) if reader else []
        if not tracked or only_moves_hidden(command, self.root, tracked):
            return ""
        shown = resolving.relative(tracked[0], self.root) or str(tracked[0])
        rule = self._kept_by(tracked[0])
        return reads_denied_history(tool.name, reader, shown, rule, len(tracked) - 1)

    def _config_hidden(self) -> list[Path]:
        """What ``[sandbox] hide`` names (the sandbox hides it from commands as a deny rule's)."""
        return list(self.sandbox.extra_hidden) if self.sandbox is not None else []

    def _kept_by(self, path: str | os.PathLike[str]) -> str:
        """The deny rule on reading or the ``[sandbox] hide`` entry covering ``path``, or empty."""
        rule = self.read_denied(path)
        hidden = self._config_hidden() if not rule else []
        if not hidden:
            return rule
        try:
            real = resolving.resolve(path, self.root)
            kept = any(resolving.within(real, resolving.resolve(h, self.root)) for h in hidden)
        except BadPath:
            return ""
        return "the config's `[sandbox] hide`" if kept else ""

    def read_denied(self, path: str | os.PathLike[str]) -> str:
        """The deny rule keeping the model from reading ``path``, or empty (:mod:`.readdeny`)."""
        return read_denied(self._active(), self.root, path)

    def read_denied_paths(self) -> list[Path]:
        """What deny rules on reading name outright, for the sandbox to hide."""
        return read_denied_paths(self._active(), self.root)
