"""The runtime every front end holds: its parts (the model, the switches, the
conversation, the lifetime) in one object, built by :func:`.build.create_runtime`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .build import create_runtime
from .lifetime import LifetimePart

if TYPE_CHECKING:
    from shell.agent.loop import Ask
    from shell.config import Settings
    from shell.core.model import ChatModel

    from .options import RuntimeOptions


class ShellRuntime(LifetimePart):
    """The agent and everything around it that is not drawing.

    Attributes: ``agent``, ``settings``, ``workspace``, ``options``,
    ``model_label`` (e.g. ``anthropic:claude-…``), ``is_demo``, ``problems``
    (warnings to show at start), ``session_recorder``.
    A front end sets ``runtime.ask`` (or passes ``ask=``) to answer approvals.
    """

    @classmethod
    def create(
        cls,
        options: RuntimeOptions | None = None,
        *,
        settings: Settings | None = None,
        model: ChatModel | None = None,
        ask: Ask | None = None,
    ) -> ShellRuntime:
        """Build from options + config. Raises ``ConfigError`` (bad config or
        ``--model``) or :class:`ShellError` (bad ``--cwd``, unknown middleware)."""
        return create_runtime(cls, options, settings=settings, model=model, ask=ask)
