"""The Agent Client Protocol agent (``agent-shell acp``): our agent in any editor
that speaks ACP (Zed, JetBrains IDEs, Neovim's CodeCompanion and avante, Toad...).

Modules: :mod:`~shell.acp.server` (the protocol's agent side and stdio),
:mod:`~shell.acp.session` (one editor conversation over a ``ShellRuntime``),
:mod:`~shell.acp.updates` (events to session updates),
:mod:`~shell.acp.toolview` (how a tool call looks), :mod:`~shell.acp.permissions`
(the one adapter to the permission policy), :mod:`~shell.acp.config_options`,
:mod:`~shell.acp.editor_tools` (files and commands through the editor),
:mod:`~shell.acp.replay` (a saved session back into the editor),
:mod:`~shell.acp.mcp_servers`.

Nothing is imported here: the SDK (and its large schema) loads only when
``agent-shell acp`` runs, never for the TUI's start-up.
"""
