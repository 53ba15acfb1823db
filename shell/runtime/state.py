"""What a runtime holds (the agent, the settings, the workspace, the policy, the
session being written) and how it may show outside text."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anyio import Event
    from anyio.abc import TaskGroup

    from ..agent.loop import Agent, Ask
    from ..agent.reply import Shown
    from ..config import Settings
    from ..context.attachments import Attachment
    from ..context.files import FileIndex
    from ..permissions.network import NetworkGuard
    from ..permissions.policy import PermissionPolicy
    from ..permissions.sandbox import Sandbox
    from ..permissions.trust import TrustCheck
    from ..providers.catalog import ModelInfo
    from ..sessions import Redactor, SessionRecorder
    from ..sessions.checkpoints import CheckpointHook
    from ..tools.workspace import Workspace
    from .middleware_later import LaterMiddleware


from .build import build_permissions
from .options import Compaction, RuntimeOptions, ShellError


class RuntimeState:
    """What a runtime holds (the agent, the settings, the workspace, the policy, the
session being written) and how it may show outside text."""

    def __init__(
        self,
        agent: Agent,
        *,
        settings: Settings,
        workspace: Workspace,
        options: RuntimeOptions,
        problems: Sequence[str] = (),
    ) -> None:
        self.agent = agent
        self.settings = settings
        self.workspace = workspace
        self.options = options
        self.problems: list[str] = list(problems)
        self.builtin_tools = list(agent.tools)
        self.mcp: Any = None
        """The ``McpManager`` once :meth:`start` ran with MCP servers configured."""
        self.session_recorder: SessionRecorder | None = None
        """The session being written (created at the first reply, or by :meth:`resume`)."""
        self.on_mcp_change: list[Callable[[Any], None]] = []
        """Called with each ``ServerStatus`` change (front ends show them)."""
        self.permissions: PermissionPolicy = build_permissions(
            agent, settings, workspace, options, self.problems
        )
        """The one permission policy (modes and rules); HumanInTheLoop asks it."""
        self._task_group: TaskGroup | None = None
        self.trust_shown: TrustCheck | None = None
        """What ``/trust`` showed last: ``/trust yes`` trusts exactly that."""
        self.sandbox: Sandbox | None = None
        """Where ``run_shell`` runs (``sandbox.available``: under bubblewrap;
        ``sandbox.contains(args)``: a call that stays inside it)."""
        self.network_guard: NetworkGuard | None = None
        """What ``fetch_url`` may connect to; rules that name a private host add it
        to ``network_guard.allowed_private_hosts``."""
        from ..providers.catalog import parse_overrides

        self._model_overrides, model_problems = parse_overrides(settings.extra.get("models"))
        self.problems.extend(f"The config file {settings.path}: {p}" for p in model_problems)
        self._server_info: dict[str, ModelInfo] = {}
        self._window_learnt: Event | None = None
        """Set when the server's window is known (or asking it failed)."""
        self._window_applied: tuple[object, int] | None = None
        """The model and window :meth:`apply_window` set last."""
        self.compactions: list[Compaction] = []
        """The history as it was before each ``/compact`` (``/compact show``)."""
        self.staged: list[Attachment] = []
        """Images added by ``/image`` (or the clipboard) for the next message."""
        self._file_index: FileIndex | None = None
        self.last_session = ""
        """The id of the last session closed that had been saved (for the exit hint)."""
        self.middleware_later: LaterMiddleware | None = None
        """The switched-off middleware not built yet (``RuntimeOptions.middleware_later``);
        :meth:`complete_middleware` builds them."""
        self.checkpoint_hook: CheckpointHook | None = None
        """Hears the built-in tools' changes (set by :meth:`create`); its ``target`` is
        the current session's :class:`Checkpoints` (``/rewind``)."""

    # -- what may be shown -----------------------------------------------------------
    @cached_property
    def secrets(self) -> Redactor:
        """The one secrets policy (:mod:`shell.core.secrets`) with this environment's
        and config's values, for sessions, exports, errors and the prompt history."""
        from ..sessions import Redactor

        return Redactor.from_environment(self.settings)

    def shown(self, text: str) -> str:
        """An error, a notice or a problem as a front end may show it: secrets
        redacted (an error can quote a URL with a password), controls neutralised."""
        from ..core.textsafety import sanitize

        return sanitize(self.secrets.text(text))

    # -- the workspace ---------------------------------------------------------------
    def add_dir(self, directory: str) -> Path:
        """``--add-dir`` / ``/add-dir``: ``directory`` counts as workspace for the rest
        of this run: the tools use it without the outside-the-workspace question, edits
        there run in accept-edits and auto, and sandboxed commands may write there (its
        secret files hidden, its git hooks read-only). Raises ``ShellError`` when it is
        not an existing directory."""
        try:
            path = self.workspace.add_dir(directory)
        except (OSError, NotADirectoryError) as exc:
            raise ShellError(f"--add-dir: {exc}") from None
        self.permissions.added_dirs = list(self.workspace.added)
        if self.sandbox is not None:
            self.sandbox.add_dir(path)
        return path

    # -- conversation --------------------------------------------------------------
    @property
    def ask(self) -> Ask | None:
        return self.agent.ask

    @ask.setter
    def ask(self, ask: Ask | None) -> None:
        self.agent.ask = ask

    def cancel(self, shown: Shown | None = None) -> None:
        """End the reply in flight (``shown``: see ``Agent.cancel``)."""
        self.agent.cancel(shown)
