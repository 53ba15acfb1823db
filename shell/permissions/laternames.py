"""The one list of what runs later, as the user and outside any sandbox, by name
(:data:`RUNS_LATER`) or by where it is (:data:`IN_FOLDER`, a virtualenv's ``bin``,
Python's start-up files in ``site-packages``, a git directory's parts): :func:`why`
says what runs it. The file tools' policy asks before an edit there; the sandbox's
guard (:mod:`.runslater`) keeps commands from changing it."""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass

from .loaderdirs import relative_loader_why
from .pathdirs import relative_program_why


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a path runs later, in both the forms it is said in: on its own, after the path
    ("new: pdb runs it when you debug in this folder"), and following "…, which" ("would
    change .pdbrc, which pdb runs when you debug in this folder"). Most reasons read the same
    both ways ("starts MCP servers …", "git runs as you …"): ``which`` is then left out. One
    whose verb takes the file as its object ("pdb runs it") is written in both forms where it
    is written (a regular expression that dropped the "it" also dropped it from "mypy runs
    the plugins it names")."""

    alone: str
    which: str = ""

    @property
    def after_which(self) -> str:
        """The reason worded to follow "…, which" (or "a file that")."""
        return self.which or self.alone


RUNS_LATER: dict[str, str | Reason] = {
    ".git": "git runs as you (its hooks and config can run any command)",
    ".mcp.json": "starts MCP servers (commands) in this workspace",
    ".agent-shell": "holds this workspace's own agent-shell settings and rules",
    ".envrc": "direnv runs when you enter the directory",
    ".vscode": "your editor reads (tasks and settings can run commands)",
    ".devcontainer": "builds and runs containers for this workspace",
    ".pre-commit-config.yaml": "names the hooks pre-commit runs at your next git commit",
    ".pre-commit-hooks.yaml": "defines hooks that pre-commit runs",
    "lefthook.yml": "names the commands lefthook runs at your next git commit",
    ".lefthook.yml": "names the commands lefthook runs at your next git commit",
    "lefthook-local.yml": "names the commands lefthook runs at your next git commit",
    ".lefthook": "holds scripts lefthook runs at your next git commit",
    ".lefthook-local": "holds scripts lefthook runs at your next git commit (its source_dir_local, which is "
                       "not committed: no diff shows it)",
    ".pre-commit-config.yml": "names the hooks pre-commit runs at your next git commit",
    ".overcommit.yml": "names the commands overcommit runs at your next git commit",
    ".overcommit.yaml": "names the commands overcommit runs at your next git commit",
    ".git-hooks": "holds overcommit's own hooks (Ruby), which it runs at your next git commit",
    ".cargo-husky": "holds the hooks cargo-husky copies into .git/hooks at your next cargo test, which git "
                    "then runs at your next commit",
    "captainhook.json": "names the commands CaptainHook runs at your next git commit (an action is a shell "
                        "command)",
    **dict.fromkeys(("grumphp.yml", "grumphp.yaml", "grumphp.yml.dist", "grumphp.yaml.dist",
                     "grumphp.dist.yml", "grumphp.dist.yaml"),
                    "names the tasks GrumPHP runs at your next git commit (its shell task runs any command)"),
    **dict.fromkeys((".rusty-hook.toml", "rusty-hook.toml"),
                    "names the commands rusty-hook runs at your next git commit"),
    **dict.fromkeys(("hk.pkl", "hk.local.pkl", ".hkrc.pkl"),
                    "names the commands hk runs at your next git commit (a step's check and fix)"),
    ".husky": "holds the hooks husky runs at your next git commit (its _/ folder is git's core.hooksPath)",
    ".idea": "JetBrains IDEs read (run configurations and startup tasks run commands)",
    ".zed": "the Zed editor reads (tasks and settings can run commands)",
    ".npmrc": "npm reads at your next npm command (node-options can run any code)",
    ".yarnrc.yml": "names the program yarn runs at every yarn command (yarnPath)",
    ".yarnrc": "names the program yarn runs at every yarn command (yarn-path)",
    ".cargo": "holds the config cargo reads at your next cargo command (a runner can run any command)",
    "mise.toml": "mise reads when you enter the directory (its hooks and env scripts run commands)",
    ".mise.toml": "mise reads when you enter the directory (its hooks and env scripts run commands)",
    "mise.local.toml": "mise reads when you enter the directory (its hooks and env scripts run commands)",
    ".mise.local.toml": "mise reads when you enter the directory (its hooks and env scripts run commands)",
    ".devcontainer.json": "builds and runs containers for this workspace (initializeCommand runs as you)",
    ".pnpmfile.cjs": "pnpm runs at every pnpm install",
    "bunfig.toml": "names scripts bun runs first (preload) at every bun command",
    "binding.gyp": "node-gyp runs the commands it names (<!(…) expansions, actions) at your next npm install "
                   "of its package, as you",
    "rust-toolchain.toml": "picks the toolchain (a path = … is the cargo that runs) at every cargo command",
    "rust-toolchain": "picks the toolchain (a path is the cargo that runs) at every cargo command",
    "AGENTS.md": "agent-shell (and Codex) read into every later session's instructions: what it says, "
                 "the model then does unasked where no question is needed",
    "CLAUDE.md": "agent-shell (and Claude Code) read into every later session's instructions: what it "
                 "says, the model then does unasked where no question is needed",
    ".claude": "Claude Code reads (its hooks and MCP servers run commands)",
    ".gemini": "Gemini CLI reads (its MCP servers and tools run commands)",
    ".cursor": "Cursor reads (its MCP servers run commands)",
    ".codex": "Codex reads (its MCP servers and config run commands)",
    ".continue": "Continue reads (its MCP servers run commands)",
    "opencode.json": "opencode reads (its MCP servers and commands run as you)",
    "opencode.jsonc": "opencode reads (its MCP servers and commands run as you)",
    ".opencode": "opencode reads (its plugins, agents and commands run as you)",
    "crush.json": "Crush reads (its MCP servers and LSP commands run as you)",
    ".crush.json": "Crush reads (its MCP servers and LSP commands run as you)",
    ".kiro": "Kiro reads (its agent hooks run commands on file events)",
    ".amazonq": "Amazon Q reads (its MCP servers run commands)",
    ".roo": "Roo Code reads (its MCP servers run commands)",
    ".kilocode": "Kilo Code reads (its MCP servers run commands)",
    ".junie": "Junie reads (its MCP servers run commands)",
    ".windsurf": "Windsurf reads (its workflows and MCP servers run commands)",
    ".aider.conf.yml": "Aider reads (lint-cmd and test-cmd run after its edits)",
    ".helix": "the Helix editor reads (a language server's command runs as you)",
    ".nvim.lua": "Neovim runs at start in this folder when exrc is on",
    ".nvimrc": "Neovim runs at start in this folder when exrc is on",
    ".exrc": "Vim and Neovim run at start in this folder when exrc is on",
    "_exrc": "Vim runs at start in this folder when exrc is on",
    ".vimrc": "Vim runs at start in this folder when exrc is on (Ctrl+G's $EDITOR starts here too)",
    "_vimrc": "Vim runs at start in this folder when exrc is on (Ctrl+G's $EDITOR starts here too)",
    ".gvimrc": "gVim runs at start in this folder when exrc is on",
    "_gvimrc": "gVim runs at start in this folder when exrc is on",
    ".dir-locals.el": "Emacs reads (its local variables can run code once accepted)",
    ".dir-locals-2.el": "Emacs reads with .dir-locals.el (its local variables can run code once accepted)",
    ".theia": "Theia-based editors read (tasks can run commands when the folder opens)",
    ".ropeproject": "rope, python-mode and pylsp-rope run its config.py when the project opens",
    ".pylintrc": "pylint runs its init-hook (Python) at every lint, an editor's lint-on-save included",
    "pylintrc": "pylint runs its init-hook (Python) at every lint, an editor's lint-on-save included",
    ".pylintrc.toml": "pylint runs its init-hook (Python) at every lint, an editor's lint-on-save included",
    "pylintrc.toml": "pylint runs its init-hook (Python) at every lint, an editor's lint-on-save included",
    ".ycm_extra_conf.py": Reason("YouCompleteMe runs it when a file of this folder opens in Vim",
                                 "YouCompleteMe runs when a file of this folder opens in Vim"),
    ".autoenv.zsh": Reason("zsh-autoenv runs it when you enter the directory",
                           "zsh-autoenv runs when you enter the directory"),
    ".autoenv_leave.zsh": Reason("zsh-autoenv runs it when you leave the directory",
                                 "zsh-autoenv runs when you leave the directory"),
    ".rvmrc": Reason("RVM runs it when you enter the directory", "RVM runs when you enter the directory"),
    ".lfsconfig": "git lfs reads at your next push (lfs.url: where the repository's LFS objects go)",
    ".trae": "Trae reads (its MCP servers run commands)",
    ".amp": "Amp reads (its MCP servers and permissions run commands)",
    ".augment": "Augment reads (its MCP servers run commands)",
    "GEMINI.md": "Gemini CLI reads into every later session's instructions: what it says, the model "
                 "then does unasked where no question is needed",
    ".cursorrules": "Cursor reads into every later session's instructions",
    ".clinerules": "Cline reads into every later session's instructions",
    ".windsurfrules": "Windsurf reads into every later session's instructions",
    ".qwen": "Qwen Code reads (its MCP servers and hooks run commands)",
    ".hg": "Mercurial runs as you (hooks in .hg/hgrc run commands at your next hg command)",
    ".sl": "Sapling runs as you (hooks in .sl/config run commands at your next sl command)",
    ".lvimrc": "Vim's localvimrc plugin runs at start in this folder and those under it",
    ".mise": "mise reads when you enter the directory (its hooks and env scripts run commands)",
    "mise-tasks": "mise runs each file in it as a task, as you, at `mise run`",
    ".mise-tasks": "mise runs each file in it as a task, as you, at `mise run`",
    ".pdbrc": Reason("pdb runs it when you debug in this folder", "pdb runs when you debug in this folder"),
    ".Rprofile": Reason("R runs it at every start in this folder", "R runs at every start in this folder"),
    ".Renviron": Reason("R reads it at every start in this folder, before .Rprofile (R_PROFILE_USER, "
                        "R_LIBS_USER name code that then runs)",
                        "R reads at every start in this folder, before .Rprofile (R_PROFILE_USER, "
                        "R_LIBS_USER name code that then runs)"),
    ".irbrc": Reason("irb runs it at every start in this folder", "irb runs at every start in this folder"),
    ".pryrc": Reason("pry runs it at every start in this folder", "pry runs at every start in this folder"),
    ".tool-versions": "asdf and mise read (a version given as path: is the program that runs)",
    "pyvenv.cfg": "makes its folder a virtualenv: you source its bin/activate, and the programs in its bin/ "
                  "run first in your PATH once it is active",
    "conda-meta": "makes its folder a conda environment (conda, pixi): conda activate, pixi run and pixi "
                  "shell source its etc/conda/activate.d scripts, and its bin/ runs first in your PATH",
    "CLAUDE.local.md": "Claude Code reads with CLAUDE.md into every later session's instructions",
    "AGENTS.override.md": "Codex reads INSTEAD of AGENTS.md into every later session's instructions",
    "AGENT.md": "Amp reads into every later session's instructions",
    ".goosehints": "Goose reads into every later session's instructions",
    ".rules": "Zed's agent reads into every later session's instructions (before .cursorrules and AGENTS.md)",
    ".roorules": "Roo Code reads into every later session's instructions",
    ".augment-guidelines": "Augment reads into every later session's instructions",
    "CRUSH.md": "Crush reads into every later session's instructions",
    "QWEN.md": "Qwen Code reads into every later session's instructions",
    ".idx": "Firebase Studio (IDX) reads (dev.nix names what runs when the workspace starts)",
    ".rubocop_todo.yml": Reason("rubocop loads it with .rubocop.yml (inherit_from, require: runs Ruby) at "
                                "every run, an editor's lint-on-save included",
                                "rubocop loads with .rubocop.yml (inherit_from, require: runs Ruby) at "
                                "every run, an editor's lint-on-save included"),
    ".babelrc.js": Reason("Babel runs it (JavaScript) at every build, and your editor's ESLint does at "
                          "lint-on-save",
                          "Babel runs (JavaScript) at every build, and your editor's ESLint does at "
                          "lint-on-save"),
    "mypy.ini": "mypy runs the plugins it names (Python) at every check, dmypy and an editor's "
                "check-on-save included",
    ".mypy.ini": "mypy runs the plugins it names (Python) at every check, dmypy and an editor's "
                 "check-on-save included",
    ".rubocop.yml": "rubocop loads the Ruby its require: names at every run, an editor's lint-on-save "
                    "included",
    "uv.toml": "uv reads at every uv command (index-url, [[index]], find-links: where packages come from, "
               "whose build code then runs as you)",
    "pdm.toml": "pdm reads at every pdm command ([pypi] url: where packages come from, whose build code "
                "then runs as you)",
    "poetry.toml": "poetry reads at every poetry command ([repositories]: where packages come from, whose "
                   "build code then runs as you)",
    ".bazelrc": "bazel reads at every build (workspace_status_command and the tools it names run as you)",
    ".bazeliskrc": "bazelisk reads at every bazel command (BAZELISK_BASE_URL: where the bazel it runs "
                   "comes from)",
    "gradle-wrapper.properties": "./gradlew and an IDE's Gradle import download and run the Gradle its "
                                 "distributionUrl names",
    ".mvn": "mvn, ./mvnw and an IDE's Maven import read (extensions.xml loads code, jvm.config passes the "
            "JVM options, wrapper/ names the Maven that runs)",
    ".php-cs-fixer.php": "php-cs-fixer runs (PHP) at every fix, an editor's fix-on-save included",
    ".php-cs-fixer.dist.php": "php-cs-fixer runs (PHP) at every fix, an editor's fix-on-save included",
    ".php_cs": "php-cs-fixer 2 runs (PHP) at every fix, an editor's fix-on-save included",
    ".php_cs.dist": "php-cs-fixer 2 runs (PHP) at every fix, an editor's fix-on-save included",
    ".formatter.exs": "mix format runs (Elixir) at every format, ElixirLS's format-on-save included",
    ".markdownlint-cli2.cjs": "markdownlint runs (JavaScript) at every lint, the editor extension's "
                              "lint-on-open included",
    ".markdownlint-cli2.mjs": "markdownlint runs (JavaScript) at every lint, the editor extension's "
                              "lint-on-open included",
    ".markdownlint.cjs": "markdownlint runs (JavaScript) at every lint, the editor extension's lint-on-open "
                         "included",
    ".markdownlint.mjs": "markdownlint runs (JavaScript) at every lint, the editor extension's lint-on-open "
                         "included",
    "ipython_config.py": "IPython runs (Python) at every start in this folder, a Jupyter kernel's included",
    "ipython_kernel_config.py": "IPython kernels run (Python) at every start in this folder",
    "jupyter_config.py": "Jupyter runs (Python) at every start in this folder",
    "jupyter_server_config.py": "Jupyter Server runs (Python) at every start in this folder",
    "jupyter_notebook_config.py": "Jupyter Notebook runs (Python) at every start in this folder",
    "jupyter_lab_config.py": "JupyterLab runs (Python) at every start in this folder",
    ".jvmopts": "sbt passes to the JVM at every sbt command (-javaagent runs any code), an IDE's import "
                "included",
    ".sbtopts": "sbt reads at every sbt command (-J-javaagent runs any code), an IDE's import included",
}
"""Names (a file or a directory, at any depth) whose content something runs later,
as the user and outside the sandbox. A file edit there always asks, whatever the
mode or an allow rule says (``policy``); a sandboxed command cannot change what
exists and what it creates is quarantined (this module). Python's start-up files in
a virtualenv's ``site-packages`` (:func:`why`) are the one entry named by where it is.

Not here, by decision (finding P14): ``gradle.properties`` (``org.gradle.jvmargs=-javaagent``)
and ``local.properties`` (``sdk.dir``) act only when Gradle runs, and every Gradle command and
IDE sync runs the workspace's ``build.gradle(.kts)`` and ``settings.gradle``, code a model edits
like any source, so asking at each version bump would close nothing; Yarn's ``.pnp.cjs`` and
``.pnp.loader.mjs`` are what ``yarn install`` writes (guarded, every sandboxed install in a
Plug'n'Play project would fail) and run under ``yarn run``/``yarn node`` beside the workspace's
own scripts. Left open: an editor set up with ``.yarn/sdks`` (guarded) loads ``.pnp.cjs`` too,
with nothing typed, so a changed one runs there."""

IN_FOLDER = {
    ".config": {"mise": "mise reads when you enter the directory (its hooks and env scripts run commands)"},
    "mise": {"config.toml": "mise reads when you enter the directory (its hooks and env scripts run them)",
             "tasks": "mise runs each file in it as a task, as you, at `mise run`"},
    ".github": {
        "copilot-instructions.md": "GitHub Copilot reads into every later session's instructions",
        "instructions": "GitHub Copilot reads its *.instructions.md into every later request they name "
                        "(applyTo)",
        "prompts": "GitHub Copilot offers its *.prompt.md as commands (their tools run as you)",
        "chatmodes": "GitHub Copilot's chat modes (their tool lists run as you)",
        "agents": "GitHub Copilot's custom agents (*.agent.md: their tool lists and MCP servers run as you)",
    },
    ".yarn": {
        "releases": "holds the yarn release .yarnrc.yml names (yarnPath): yarn runs it at every yarn command",
        "plugins": "holds yarn plugins, which yarn runs at every yarn command",
        "sdks": "holds the editor SDKs (VS Code runs .yarn/sdks/typescript/lib/tsserver.js once you "
                "choose the workspace's TypeScript)",
    },
    ".aiassistant": {"rules": "JetBrains AI Assistant reads its rules into every later session's "
                              "instructions"},
    ".tabnine": {"guidelines": "Tabnine reads its guidelines into every later session's instructions"},
    ".bundle": {"config": "bundler reads at every bundle command (BUNDLE_GEMFILE names the Ruby file bundle "
                          "exec evaluates)"},
}
"""Names whose content something runs later only inside a certain folder (a
``releases`` folder anywhere else is nobody's business): ``.yarn/cache`` and the rest
of ``.yarn`` stay writable for ``yarn install``."""

GIT_HEAD_WHY = ("makes its folder a git directory (git discovers any folder holding HEAD, objects/ and "
                "refs/ and runs what its config and hooks name as you: at a git status, a git-aware prompt)")
"""Why a file named ``HEAD`` runs later: not ``.git`` alone is a git directory."""

PYC_WHY = ("holds compiled Python that runs instead of the source next to it (a .pyc that names the "
           "source's mtime and size) at your next python, pytest or import")
"""Why ``__pycache__`` and ``*.pyc`` run later. Compiled caches are disposable:
sandboxed commands write theirs to a private folder (``PYTHONPYCACHEPREFIX``), so a
new one in the workspace was written on purpose."""

VENV_BINS = ("bin", "Scripts")
VENV_BIN_WHY = ("is a virtualenv's bin/: you source its activate, and its programs (pip, pytest, python, "
                "or one named like git) run first in your PATH once it is active")
"""A virtualenv's programs run as the user: ``activate`` is sourced into their shell,
and a new file there shadows any command of that name once the environment is active."""
NOTED: dict[str, str | Reason] = {
    ".gitmodules": ("git submodule update and sync fetch each submodule from the URL it names, into the "
                    "path it names"),
    ".gitlab-ci.yml": Reason("CI runs it on the forge, with the project's secrets, once it is pushed",
                             "CI runs on the forge, with the project's secrets, once it is pushed"),
}
"""Files at a root that run later elsewhere or through a command the user types, which
commands still write (``git submodule add``, a CI edit): kept, and named in the result."""
NOTED_FOLDERS: dict[str, str | Reason] = {
    ".github/workflows": Reason(
        "CI (GitHub Actions) runs it on the forge, with the repository's secrets, once it is pushed",
        "CI (GitHub Actions) runs on the forge, with the repository's secrets, once it is pushed"),
}
"""Folders at a root whose files are :data:`NOTED` alike (at most :data:`MAX_NOTED` each)."""
MAX_NOTED = 256
NOTED_KEPT = "kept, as commands may change it: look at it before you push or update submodules"

TOOL_VENV_DIRS = frozenset({".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
"""Folders whose virtualenvs a tool makes, several at a time (tox's ``.tox/py312``, nox's
``.nox/tests``; a cache's, should one hold a venv): their ``bin/`` is read-only whole in the
sandbox, not pinned entry by entry as a ``.venv``'s is. Each read-only entry costs the
sandbox's start ~1 ms or more (four tox envs of ~40 programs each made a sandboxed ``true``
take 4 times as long: ``benchmarks/tox_envs.py``), while pinning entries one by one lets pip
add programs but not remove or replace one: tox and nox remaking or reinstalling into an
env they made before fail in the sandbox either way (run them yourself)."""
CONDA_META = "conda-meta"
CONDA_PARTS = ("bin", "etc/conda/activate.d", "etc/conda/deactivate.d")
"""What a conda environment (a folder holding ``conda-meta/``: ``conda create -p ./env``,
pixi's ``.pixi/envs/<name>``) runs as the user: ``conda activate ./env``, ``pixi run``
and ``pixi shell`` source every script in ``activate.d`` (``deactivate.d`` on the way
out), and put ``bin/`` first in PATH. It has no ``pyvenv.cfg``: ``conda-meta/`` marks it."""
CONDA_BIN_WHY = ("is a conda environment's bin/ (conda, pixi): its programs (python, pip, or one named "
                 "like git) run first in your PATH once it is active")
CONDA_HOOK_WHY = ("holds scripts conda activate, pixi run and pixi shell source into your shell (a conda "
                  "environment's activation hooks)")
GYP_SUFFIXES = (".gyp", ".gypi")
"""gyp's files: a ``binding.gyp``'s ``includes`` and ``dependencies`` name them, and gyp runs their
``<!(…)`` commands and ``actions`` at ``npm install`` (node-gyp rebuild) as the user (finding
D11: ``inc/common.gypi`` and ``deps/d.gyp`` were rewritten unasked and both ran). Nothing but gyp
reads them, so every one is guarded, whoever names it; ``build/config.gypi`` is node-gyp's own
output (:data:`NODE_GYP_OUTPUT`, left: node-gyp writes it anew before gyp reads it)."""
NODE_GYP_OUTPUT = "config.gypi"
"""What node-gyp configure writes in ``build/`` (the folder is in :data:`PLACED_DIRS`)."""
GYP_WHY = ("is a gyp file (a binding.gyp includes or depends on such files): node-gyp runs the commands "
           "it names (<!(…) expansions, actions) at your next npm install, as you")
LEFTHOOK = re.compile(r"\.?lefthook(-local)?\.(yml|yaml|json|jsonc|toml)", re.I)
"""Every name lefthook reads its config from (the local ones merged over the main one)
at the next commit: ``lefthook.yml``, ``.lefthook.toml``, ``lefthook-local.jsonc`` …"""
CODE_WORKSPACE = ".code-workspace"
CODE_WORKSPACE_WHY = Reason(
    "VS Code opens it as a multi-root workspace (its tasks and settings can run commands, as .vscode's do)",
    "VS Code opens as a multi-root workspace (its tasks and settings can run commands, as .vscode's do)")
PIP_CONF_WHY = Reason(
    "pip reads it at every pip run in that virtualenv (index-url: where packages come from)",
    "pip reads at every pip run in that virtualenv (index-url: where packages come from)")
MISE_ENV = re.compile(r"\.?mise\.[\w.-]+\.toml", re.I)
"""``mise.<env>.toml`` and ``.mise.<env>.toml``: mise reads them when ``MISE_ENV`` names the env."""
MISE_FOLDER_CONFIG = re.compile(r"config\.[\w.-]+\.toml", re.I)
"""``mise/config.local.toml``, ``mise/config.<env>.toml``: the same beside ``mise/config.toml``."""

JS_CONFIG = re.compile(
    r"(?:(?:eslint|prettier|tailwind|stylelint|jest|vitest|babel|postcss|commitlint|lint-staged|svelte"
    r"|playwright|vite|uno|unocss|graphql|apollo|panda|husky|simple-git-hooks)\.config|vitest\.workspace"
    r"|\.(?:eslint|prettier|stylelint|commitlint|lintstaged|mocha|graphql|husky|babel|postcss|nanostaged)rc"
    r"|\.?simple-git-hooks|\.?nano-staged|\.vscode-test)\.(?:js|cjs|mjs|ts|cts|mts)")
"""The JavaScript configs that run with nothing typed: ESLint's, Prettier's, Tailwind
IntelliSense's, Stylelint's (and the Babel and PostCSS configs they load) when a file of
the folder opens or saves, Jest's and Vitest's when their extension finds the tests,
Svelte's when the Svelte language server opens a ``.svelte`` file,
commitlint's, lint-staged's and nano-staged's at the next git commit. (Their JSON and YAML forms
are data, but for the keys that load code: :mod:`.codekeys`.)

Each family is its loader's own list, every script extension it loads, not the names seen in
one project (finding U15): Babel's ``babel.config.*`` and ``.babelrc.{js,cjs,mjs,cts}``,
postcss-load-config's ``postcss.config.*`` and ``.postcssrc.{js,cjs,mjs,ts,mts,cts}``, ESLint's
``eslint.config.*`` and ``.eslintrc.{js,cjs}``, Prettier's ``prettier.config.*`` and
``.prettierrc.*``, Stylelint's ``stylelint.config.*`` and ``.stylelintrc.*``, Tailwind's,
Jest's and Vitest's ``<tool>.config.*``, lint-staged's, commitlint's and nano-staged's rc and
config names (one pattern: a name a loader does not read costs one question, a missed one runs)."""
JS_CONFIG_WHY = ("runs (JavaScript) with nothing typed: your editor's ESLint, Prettier, Tailwind, Stylelint, "
                 "Svelte, Jest, Vitest, Playwright, Mocha, UnoCSS, Panda, GraphQL or Apollo extension loads "
                 "it when this folder opens or a file of it opens or saves, and git commit hooks load "
                 "commitlint's, lint-staged's, husky's and simple-git-hooks'")
HOOK_CONFIG = re.compile(
    r"\.(?:lintstagedrc|huskyrc|commitlintrc|nanostagedrc)(?:\.(?:json|json5|jsonc|yaml|yml))?"
    r"|\.?(?:simple-git-hooks|nano-staged)\.json")
"""The data forms of the commit-hook tools' configs (finding S5): every string of
lint-staged's, nano-staged's, husky v4's and simple-git-hooks' is a command the next ``git commit`` runs,
and commitlint's ``plugins``, ``extends`` and ``parserPreset`` are modules it loads in the
commit-msg hook. Guarded whole, as their JavaScript forms (:data:`JS_CONFIG`) are; their
keys in ``package.json`` are :mod:`.codekeys`'."""
HOOK_CONFIG_WHY = ("names the commands (lint-staged, nano-staged, husky, simple-git-hooks) or the modules "
                   "(commitlint's plugins) your next git commit runs as you")

SAPLING_GIT_WHY = ("Sapling runs as you in this git checkout (hooks in .git/sl/config run at your next sl "
                   "command)")
JJ_WHY = "Jujutsu reads at every jj command (its repository config can run commands: fsmonitor, signing)"

SITE_DIRS = frozenset({"site-packages", "dist-packages"})
STARTUP_FILES = frozenset({"sitecustomize.py", "usercustomize.py"})
SITE_WHY = "Python runs at every start of that environment (an import line in a .pth file runs)"


PTH_IMPORT_WHY = "Python runs at every start of that environment (a .pth file there imports it)"
_PTH_IMPORT = re.compile(r"""^\s*import\s+([\w., ]+)|__import__\(\s*['"](\w+)|\bimport\s+(\w+)""", re.M)
MAX_PTH_BYTES = 65_536


def _pth_imports(site: str) -> frozenset[str]:
    """The modules the ``*.pth`` files of ``site`` import at every start
    (``_distutils_hack``, an editable install's finder): as much code run later as the
    ``.pth`` itself. Read again when the folder changes (pip writes a new ``.pth``; one
    that exists is read-only to commands and asked about before an edit)."""
    try:
        info = os.stat(site)
    except OSError:
        return frozenset()
    return _read_pth_imports(site, info.st_mtime_ns, info.st_ctime_ns)


@functools.lru_cache(maxsize=64)
def _read_pth_imports(site: str, _mtime: int, _ctime: int) -> frozenset[str]:
    names: set[str] = set()
    try:
        with os.scandir(site) as entries:
            found = [e.path for e in entries if e.name.endswith(".pth")]
    except OSError:
        return frozenset()
    for path in found:
        try:
            with open(path, encoding="utf-8", errors="replace") as pth:
                text = pth.read(MAX_PTH_BYTES)
        except OSError:
            continue
        for m in _PTH_IMPORT.finditer(text):
            for group in m.groups():
                names.update(part.strip().split(".")[0] for part in (group or "").split(",") if part.strip())
    return frozenset(names)


def why(path: str | os.PathLike[str]) -> str:
    """What runs ``path`` later as the user, said on its own ("" when nothing does, by its
    name): :func:`why_both`'s ``alone``."""
    found = why_both(path)
    return found.alone if found is not None else ""


def why_both(path: str | os.PathLike[str]) -> Reason | None:
    """What runs ``path`` later as the user, in both forms (None when nothing does, by its name): a
    :data:`RUNS_LATER` name, or a ``*.pth`` or ``sitecustomize.py`` right in a
    ``site-packages`` folder, which Python executes at every start of that
    environment (``pip``, ``pytest`` and the user's own scripts included), a
    virtualenv's ``bin`` (next to its ``pyvenv.cfg``), or an :data:`IN_FOLDER` name
    in its folder (``.yarn/releases``).

    Names are compared case-folded (finding L10): on macOS's and Windows' file
    systems (WSL's ``/mnt/c``, a FAT stick, an ext4 ``casefold`` folder too)
    ``.GIT/hooks/pre-commit`` IS the repository's hook and ``Agents.md`` its
    instructions, while the secret names were already matched that way. Always, not
    only where the file system folds: a ``.VSCode`` or ``Agents.md`` a Linux user is
    asked about is no unrelated file. The one name that stays exact where case
    matters is ``HEAD`` (a file ``head`` is often a program, not a git directory)."""
    text = os.fspath(path)
    name = os.path.basename(text).casefold()
    if name in _FOLDED:
        return _FOLDED[name]
    folder = os.path.dirname(text)
    if name == "head" and (os.path.basename(text) == "HEAD" or _folds_case(folder)):
        return Reason(GIT_HEAD_WHY)
    if name == "__pycache__" or name.endswith(".pyc"):  # a venv's own: not walked (pip writes it)
        return None if os.path.basename(folder).casefold() in SITE_DIRS else Reason(PYC_WHY)
    if name in _VENV_BINS and folder and os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
        return Reason(VENV_BIN_WHY)
    if name == "bin" and folder and os.path.isdir(os.path.join(folder, CONDA_META)):
        return Reason(CONDA_BIN_WHY)
    env = os.path.dirname(os.path.dirname(folder))
    posix = text.replace(os.sep, "/").casefold()
    if (name in ("activate.d", "deactivate.d") and posix.endswith(f"/etc/conda/{name}")
            and os.path.isdir(os.path.join(env, CONDA_META))):
        return Reason(CONDA_HOOK_WHY)
    patterned = _by_pattern(name, folder)
    if patterned:
        return patterned
    if name == "pip.conf" and folder and os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
        return PIP_CONF_WHY
    other_vcs = _other_vcs_config(name, posix, folder)
    if other_vcs:
        return Reason(other_vcs)
    if name in GIT_PARTS and folder and os.path.lexists(os.path.join(folder, "HEAD")):
        return Reason("git runs as you (its folder holds a HEAD: git takes it for a git directory)")
    parent = os.path.basename(folder).casefold()
    startup = name.endswith(".pth") or name in STARTUP_FILES
    if startup and parent in SITE_DIRS:
        return Reason(SITE_WHY)
    if parent in SITE_DIRS and name.removesuffix(".py") in _pth_imports(folder):
        return Reason(PTH_IMPORT_WHY)
    if parent == "mise" and MISE_FOLDER_CONFIG.fullmatch(name):
        return _FOLDED["mise.toml"]
    relative = _where_a_relative_entry_looks(text, name)
    if relative:
        return Reason(relative)
    return _FOLDED_IN_FOLDER.get(parent, {}).get(name)


def _where_a_relative_entry_looks(text: str, name: str) -> str:
    """Why a library (``src/libz.so.1``, W6) or a program (``src/git``, A11) at any depth is
    run by the user where a relative ``LD_LIBRARY_PATH`` or ``PATH`` entry looks, or ""."""
    library = relative_loader_why(text) if ".so" in name else ""
    return library or relative_program_why(text)


def _other_vcs_config(name: str, posix: str, folder: str) -> str:
    """Why a Jujutsu or Sapling repository config that lives in a git checkout runs later, or ""."""
    if name == "config.toml" and posix.endswith("/.jj/repo/config.toml"):
        return JJ_WHY
    if name == "config" and posix.endswith("/sl/config") and os.path.lexists(
            os.path.join(os.path.dirname(folder), "HEAD")):
        return SAPLING_GIT_WHY
    return ""


def _by_pattern(name: str, folder: str) -> Reason | None:
    """Why a (case-folded) name of one of the families named by a pattern runs later, or None."""
    if name.endswith(GYP_SUFFIXES):
        output = name == NODE_GYP_OUTPUT and os.path.basename(folder).casefold() == "build"
        return None if output else Reason(GYP_WHY)
    if MISE_ENV.fullmatch(name):
        return _FOLDED["mise.toml"]
    if LEFTHOOK.fullmatch(name):
        return _FOLDED["lefthook.yml"]
    if JS_CONFIG.fullmatch(name):
        return Reason(JS_CONFIG_WHY)
    if HOOK_CONFIG.fullmatch(name):
        return Reason(HOOK_CONFIG_WHY)
    return CODE_WORKSPACE_WHY if name.endswith(CODE_WORKSPACE) else None


@functools.lru_cache(maxsize=256)
def _folds_case(folder: str) -> bool:
    """Whether the file system of ``folder`` (an existing folder) ignores case: its
    name in the other case is the same folder. False when it cannot tell."""
    probe = folder.rstrip(os.sep)
    head, last = os.path.split(probe)
    swapped = last.swapcase()
    if not last or swapped == last:
        return False
    try:
        return os.path.samefile(probe, os.path.join(head, swapped))
    except OSError:
        return False


def as_reason(said: str | Reason) -> Reason:
    """A reason of a table above as :class:`Reason` (a plain one reads the same both ways)."""
    return said if isinstance(said, Reason) else Reason(said)


_FOLDED = {name.casefold(): as_reason(said) for name, said in RUNS_LATER.items()}
_FOLDED_IN_FOLDER = {folder.casefold(): {name.casefold(): as_reason(said) for name, said in names.items()}
                     for folder, names in IN_FOLDER.items()}
_VENV_BINS = tuple(name.casefold() for name in VENV_BINS)


PLACED_DIRS = frozenset(name.casefold() for name in SITE_DIRS | IN_FOLDER.keys() | {"repo", "build"})
"""Folders in which :func:`why` needs a name's folder too (a walk passes the path)."""

GIT_PARTS = ("hooks", "config", "config.worktree", "commondir", "info", "gitdir", "locked", "rr-cache")
"""What git runs, or reads to find what to run, in a git directory. (``commondir``
points a git directory at another one's config and hooks; ``info/exclude`` and
``info/attributes`` would hide a command's changes from ``git status``, the user's
review of what a command did; ``info/grafts`` would cut history as ``shallow`` does.
A linked worktree's ``gitdir`` and ``locked`` (in ``worktrees/NAME``) are what ``git
worktree prune`` and ``git gc`` read to tell a worktree gone: one pointed elsewhere,
removed or unlocked made the user's next prune delete the worktree's index, staged work
and HEAD (finding A4). Git writes them only at ``git worktree add``, ``move``,
``repair``, ``lock`` and ``unlock``. ``rr-cache`` holds the merge resolutions ``git rerere``
replays: its mere presence turns rerere on, and a planted ``postimage`` resolved the user's
next conflicting merge with the command's text, saying only "Resolved 'f' using previous
resolution"; sandboxed git is told :data:`RERERE_OFF`, so git itself writes none there.)"""

RERERE_WHY = "git rerere replays the merge resolutions in it at your next merge (being there turns rerere on)"
RERERE_OFF = ("rerere.enabled", "false")
"""Given to sandboxed git (``GIT_CONFIG_*``): the ``rr-cache`` it would record in is read-only
(git 2.39 then fails to write a preimage and segfaults at the commit that follows)."""
