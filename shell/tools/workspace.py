"""The workspace: the directory the shell started in, and the fence around it.

Every path a built-in tool receives is resolved here, once, the same way: relative
paths against the workspace root, then through the real file system so that a
symlink pointing out of the workspace counts as outside. A path outside is refused
unless the *user* approves it through ``ctx.ask``; nothing in the tool arguments,
in a model message or in a tool result can approve it.

An approval covers exactly what the user saw: the file asked for (or, for a
directory, that directory and what is in it), never its parent. A user who wants
more edits the path in the dialog to a directory that contains it; that directory
is then allowed. Approvals are remembered on the :class:`Workspace` for the rest
of the session.

When the permission policy asks about a call whose path is outside (see
:mod:`shell.permissions.fence`), its question says so, and an approval of it is
handed here (:meth:`Workspace.pass_call`) for that call and that path: the fence
does not ask a second time.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from shell.core.approvals import ApprovalDecision, ApprovalRequest, is_unattended, rejected_message
from shell.core.messages import ToolResult
from shell.core.textsafety import path_text
from shell.core.tools import CallRejected, Tool, ToolContext
from shell.permissions import paths
from shell.permissions.fence import OutsidePath
from shell.permissions.homedirs import too_broad
from shell.tools import after_check

MAX_PASSES = 64
"""Approvals handed over by the policy that no fence check used yet (a call blocked
after it was approved leaves one behind): the oldest go first."""


class OutsideWorkspaceError(PermissionError):
    """A path leaves the workspace and the user did not approve it."""


class OutsidePathRejected(OutsideWorkspaceError, CallRejected):
    """The user answered "no" to the question about a path outside the workspace: the
    call reads as rejected by the user (their words), not as the tool failing."""


class _OutsidePath(Tool):
    """What the outside-the-workspace question asks about: one path. Its schema is
    what an edit is checked against (the calling tool's would demand its other
    arguments); it never runs."""

    def __init__(self, name: str, tool: Tool | None) -> None:
        what = tool.description.strip().split("\n\n")[0] if tool is not None else ""
        super().__init__(
            name,
            f"{what}\n\nThis call reaches outside the workspace. Approving allows the path shown; "
            "edit it to a directory that contains it to allow that whole directory.".strip(),
            {
                "type": "object",
                "properties": {"path": {"type": "string", "description": "The path to allow."}},
                "required": ["path"],
                "additionalProperties": False,
            },
        )

    async def run(self, args: dict[str, Any], context: ToolContext) -> ToolResult:
        raise RuntimeError("the outside-the-workspace question is not a tool to run")


class Workspace:
    """The root directory tools work in, plus the outside directories the user allowed."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root: Path = paths.real_root(root if root is not None else os.getcwd())
        if not self.root.is_dir():
            raise NotADirectoryError(f"workspace root {self.root} is not a directory")
        self._approved: set[Path] = set()
        self._approved_files: set[Path] = set()
        self.added: list[Path] = []
        """Directories the user added to the workspace (``--add-dir``, ``/add-dir``):
        inside the fence like the root, for the rest of this run."""
        self.unfenced: Callable[[], bool] = lambda: False
        """Whether paths outside run unasked: the permission policy answers (bypass
        mode says yes, the one place that decides); a bare workspace always asks."""
        self.read_denied: Callable[[str], str] = lambda _: ""
        """The deny rule that keeps the model from reading a path, or empty: the
        permission policy answers (:meth:`~shell.permissions.policy.PermissionPolicy.read_denied`);
        grep skips such files, an edit returns no diff of one."""
        self._guarded: list[Tool] = []
        self._passes: OrderedDict[tuple[str, str], Path] = OrderedDict()

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    def add_dir(self, directory: str | os.PathLike[str]) -> Path:
        """Count ``directory`` (relative to the root, ``~`` expanded) as part of the
        workspace: the user's own act, so nothing asks. Raises ``NotADirectoryError``
        (with what to do) when it is not an existing directory."""
        if not os.fspath(directory).strip():
            raise NotADirectoryError("an empty path names no directory; give an existing directory")
        try:
            path = self.resolve(directory)
        except paths.BadPath as exc:
            raise NotADirectoryError(f"{exc}; give an existing directory") from None
        if not _is_dir(path):
            what = "does not exist" if not os.path.exists(path) else "is not a directory"
            raise NotADirectoryError(f"{os.fspath(directory)} ({path}) {what}; give an existing directory")
        broad = too_broad(path)
        if broad:
            raise NotADirectoryError(f"{os.fspath(directory)} ({path}) {broad}")
        if not any(paths.within(path, base) for base in self.roots):  # else: in it already
            self.added.append(path)
        return path

    @property
    def roots(self) -> list[Path]:
        """The root and the directories added to it."""
        return [self.root, *self.added]

    @property
    def approved_dirs(self) -> frozenset[Path]:
        """Directories outside the root that the user approved this session."""
        return frozenset(self._approved)

    @property
    def approved_files(self) -> frozenset[Path]:
        """Single files outside the root that the user approved this session."""
        return frozenset(self._approved_files)

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """The real absolute path ``path`` names (relative paths start at the root),
        as the permission policy resolves it (:mod:`shell.permissions.paths`: ``~``
        expanded, symlinks followed, a missing tail kept), so the answer says where a
        read or write lands. Raises :class:`~shell.permissions.paths.BadPath` (a
        ``ValueError``) for a path no file can have."""
        return paths.resolve(path, self.root)

    def contains(self, resolved: Path) -> bool:
        """Whether a resolved path is inside the root or an approved directory, or is
        an approved file."""
        if resolved in self._approved_files:
            return True
        return any(paths.within(resolved, base) for base in (self.root, *self.added, *self._approved))

    def relative(self, resolved: Path) -> str:
        """How to show a path to the model: relative inside the root, absolute outside;
        a name that is not UTF-8 or holds a control escaped (:func:`path_text`)."""
        rel = paths.relative(resolved, self.root)
        if rel is None:
            return path_text(str(resolved))
        return path_text(rel) or "."

    def approve(self, directory: Path) -> None:
        """Remember that the user allowed ``directory`` (and everything below it)."""
        self._approved.add(paths.resolve(directory, self.root))

    def approve_file(self, path: Path) -> None:
        """Remember that the user allowed this one file (nothing next to it)."""
        self._approved_files.add(paths.resolve(path, self.root))

    def guard(self, tool: Tool) -> None:
        """``tool`` checks its ``path`` argument here (the built-in file tools, the
        editor's): the policy's question about it can speak for the fence."""
        if not any(t is tool for t in self._guarded):
            self._guarded.append(tool)

    def outside(self, tool: Tool | None, args: Mapping[str, Any]) -> OutsidePath | None:
        """The path of a call to a guarded tool that :meth:`check` would ask about, or
        None (inside, already approved, another tool, or no path)."""
        path = args.get("path")
        if tool is None or not isinstance(path, str) or not any(t is tool for t in self._guarded):
            return None
        # As resolve() and contains() do, on strings: the policy asks this on every question.
        try:
            real = paths.real(path, self.root)
        except paths.BadPath:
            return None  # no question to add: the policy refuses it, check() says why
        if any(paths.within(real, base) for base in (self.root, *self.added, *self._approved)):
            return None
        if any(real == str(f) for f in tuple(self._approved_files)):  # a copy: the policy asks from a
            # worker thread while an answer may add to the set on the loop
            return None
        resolved = Path(real)
        return OutsidePath(resolved, _why_outside(path), _is_dir(resolved))

    def pass_call(self, call_id: str, tool_name: str, path: Path) -> None:
        """The user approved this call in a question that said ``path`` is outside:
        its :meth:`check` of that same resolved path does not ask again."""
        self._passes[(call_id, tool_name)] = path
        while len(self._passes) > MAX_PASSES:
            self._passes.popitem(last=False)

    async def check(
        self,
        path: str | os.PathLike[str],
        ctx: ToolContext | None,
        *,
        tool: Tool | None = None,
        action: str = "access",
    ) -> Path:
        """Resolve ``path`` and make sure the tool may use it; ask the user if not.

        Returns the resolved path. Raises :class:`OutsideWorkspaceError` with a
        message the model can act on when the path is outside and not approved.
        Waits first for a check after a command that still runs (it may be putting
        back what the command moved: :func:`after_check.settled`).
        """
        await after_check.settled()
        resolved = self.resolve(path)
        if self.contains(resolved):
            return resolved
        reason = _why_outside(os.fspath(path))
        if self.unfenced():
            return resolved
        if ctx is not None and self._passes.pop((ctx.call.id, ctx.call.name), None) == resolved:
            self._approve_shown(resolved)  # asked and approved once, in the policy's question
            return resolved
        if ctx is None:
            raise OutsideWorkspaceError(self._refusal(path, resolved, reason, "no one could be asked"))
        covers = "that directory and everything in it" if _is_dir(resolved) else "exactly that file"
        request = ApprovalRequest(
            call=ctx.call,
            tool=_OutsidePath(ctx.call.name, tool),
            args={"path": str(resolved)},
            allowed_decisions=("approve", "edit", "reject"),
            description=(
                f"{ctx.call.name} wants to {action} {resolved}, which is outside the workspace "
                f"{self.root} ({reason}). Approving allows {covers} for this session; to allow a "
                "directory that contains it instead, edit the path to that directory."
            ),
        )
        decision = await ctx.ask(request)
        note = decision.message if isinstance(decision, ApprovalDecision) and decision.message else ""
        if isinstance(decision, ApprovalDecision) and decision.type == "approve":
            self._approve_shown(resolved)
            return resolved
        if isinstance(decision, ApprovalDecision) and decision.type == "edit" and decision.args:
            chosen = self.resolve(str(decision.args.get("path", "")))
            if _is_dir(chosen) and paths.within(resolved, chosen):
                self.approve(chosen)
                return resolved
            why = f"the user chose {chosen}, which does not contain it"
            raise OutsideWorkspaceError(self._refusal(path, resolved, reason, why, note))
        if isinstance(decision, ApprovalDecision) and is_unattended(decision):
            raise OutsideWorkspaceError(self._refusal(path, resolved, reason, "no one could be asked", note))
        said = rejected_message(ctx.call.name)
        if note:  # the user's reason, after the one default message if it does not say it
            said = note if note.startswith(said.split(";")[0]) else f"{said} Their reason: {note}"
        raise OutsidePathRejected(
            f"{said} (The question was about {path_text(str(resolved))}, outside the workspace "
            f"{path_text(str(self.root))}; use a path inside it, or ask the user to allow this location.)"
        )

    def _approve_shown(self, resolved: Path) -> None:
        """Exactly what the dialog named: the directory (and below) or the one file."""
        if _is_dir(resolved):
            self.approve(resolved)
        else:
            self.approve_file(resolved)

    def _refusal(
        self, path: str | os.PathLike[str], resolved: Path, reason: str, why: str, note: str = ""
    ) -> str:
        text = (
            f"Refused: {os.fspath(path)!r} resolves to {resolved}, outside the workspace {self.root} "
            f"({reason}), and {why}. Use a path inside the workspace (relative paths start at its root), "
            "or ask the user to allow this location."
        )
        return f"{text} The user said: {note}" if note else text


def is_outside_question(request: ApprovalRequest) -> bool:
    """Whether ``request`` is the fence asking about a path outside the workspace
    (rather than a tool call being approved): front ends offer no "always" for it."""
    return isinstance(request.tool, _OutsidePath)


def _is_dir(path: Path) -> bool:
    """Whether ``path`` is a directory; a path too long to look up is not one
    (``Path.is_dir`` raises ``ENAMETOOLONG`` where this answers)."""
    return os.path.isdir(path)


def _why_outside(raw: str) -> str:
    if os.path.isabs(os.path.expanduser(raw)):
        return "an absolute path"
    if ".." in Path(raw).parts:
        return "'..' leads out of it"
    return "a symlink leads out of it"
