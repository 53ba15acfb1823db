"""Command palette entries (Ctrl+P): slash commands, middleware toggles, themes.

The palette and the prompt's slash commands reach the same code: a palette hit
just runs the equivalent command line through the app.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from .app import AgentShellApp


class ShellCommands(Provider):
    """Every slash command, a switch per middleware and every theme."""

    def _entries(self) -> list[tuple[str, str, str]]:
        app = cast("AgentShellApp", self.app)
        found: list[tuple[str, str, str]] = []
        if not app.ready:  # still starting: nothing to offer yet
            return found
        for command in app.commands:
            found.append((f"/{command.name}", command.summary, f"/{command.name}"))
        for name in app.agent.middleware.names():
            state = "off" if app.runtime.middleware_on(name) else "on"
            found.append((f"Middleware: switch {name} {state}", "middleware", f"/middleware {name} {state}"))
        for theme in app.our_theme_names():
            found.append((f"Theme: {theme}", "theme", f"/theme {theme}"))
        return found

    async def discover(self) -> Hits:
        app = cast("AgentShellApp", self.app)
        for label, help_text, line in self._entries():
            yield DiscoveryHit(label, partial(app.run_command_line, line), help=help_text)

    async def search(self, query: str) -> Hits:
        app = cast("AgentShellApp", self.app)
        matcher = self.matcher(query)
        for label, help_text, line in self._entries():
            score = matcher.match(label)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(label), partial(app.run_command_line, line), help=help_text
                )
