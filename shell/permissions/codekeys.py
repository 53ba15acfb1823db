"""The keys of shared config files that name code a linter, formatter or compiler loads.

``pyproject.toml``, ``setup.cfg``, ``tox.ini``, ``package.json`` and the JSON and YAML
forms of ESLint's, Prettier's, Babel's and Stylelint's configs are edited all the time
(a version, a dependency, a rule, a line length), so they are not runs-later files
whose every edit asks (:mod:`.laternames`). But some of their keys name code that
runs as the user, outside any sandbox, when the tool next runs, an editor's
lint-on-save or format-on-save included:

- ``[tool.pylint]``/``[tool.mypy]`` (``[pylint…]``/``[mypy…]`` sections in the INI
  files): pylint's ``init-hook`` (Python) and ``load-plugins``, mypy's ``plugins``. The
  whole tables count, as a ``.pylintrc`` or ``mypy.ini`` does whole.
- ``[tool.uv]``'s ``index``, ``index-url``, ``extra-index-url``, ``find-links``,
  ``no-index``, ``sources`` and ``pip``, ``[tool.poetry.source]``, ``[tool.pdm.source]``:
  where the next ``uv sync``/``uv run``/``poetry install``/``pdm install`` gets packages
  from, whose build backends and code then run as the user (the same as a virtualenv's
  ``pip.conf`` or an ``.npmrc``, :mod:`.laternames`; finding Q28). Likewise pixi's
  ``channels`` and ``pypi-options`` (its index-url, extra-index-urls, find-links), of
  the project, the workspace and each feature, in ``pixi.toml`` or ``[tool.pixi]``.
- In a pip requirements file (``requirements*.txt``, ``*requirements*.in``,
  ``constraints*.txt``): the option lines that say where pip gets packages from or what
  more it reads (``--index-url``/``-i``, ``--extra-index-url``, ``--find-links``/``-f``,
  ``--no-index``, ``--trusted-host``, ``-r``/``-c`` another file): ``pip install -r``
  downloads every dependency from there and runs its build code as the user. Its
  requirement lines are dependencies, which any edit may change.
- ``[flake8:local-plugins]`` in ``setup.cfg``, ``tox.ini`` and ``.flake8``: its
  ``extension``/``report`` entries are modules flake8 imports (from its ``paths``) at
  every lint, an editor's lint-on-save included. The rest of ``.flake8`` is style.
- ESLint (``.eslintrc*``, package.json's ``eslintConfig``): ``plugins``, ``parser``,
  ``extends`` (a shared config or ``plugin:x/…`` loads a package, ``./base.js`` a
  workspace file), ``processor``, the ``import/resolver``/``import/parsers`` settings.
- Prettier (``.prettierrc*``, package.json's ``prettier``): ``plugins``,
  ``pluginSearchDirs``, ``parser``; a config that is only a string names a shared config.
- Babel (``.babelrc*``, ``babel.config.json``, package.json's ``babel``): ``plugins``,
  ``presets``, ``extends``.
- Stylelint (``.stylelintrc*``, package.json's ``stylelint``): ``plugins``, ``extends``,
  ``customSyntax``, ``processors``.
- PostCSS (``.postcssrc``, ``.postcssrc.json``/``.yaml``, package.json's ``postcss``:
  postcss-load-config's data forms; finding U15): ``plugins``, ``parser``, ``syntax``,
  ``stringifier`` (modules it requires when Tailwind IntelliSense, Stylelint or a build loads it).
- markdownlint-cli2 (``.markdownlint-cli2.jsonc``/``.yaml``, package.json's
  ``markdownlint-cli2``): ``customRules``, ``markdownItPlugins``, ``outputFormatters``
  (modules it requires, as its ``.cjs`` config, a runs-later file, is; finding P14).
- golangci-lint (``.golangci.yml`` …): ``custom`` (``linters-settings.custom.X.path``,
  ``linters.settings.custom`` in v2), a Go plugin (``.so``) it loads at every lint.

At any depth (``overrides``, ``env``), except under ``rules``: a rule's options are style.
A package a key names runs from ``node_modules``, which commands may write (``npm
install``), so a name counts as much as a path. Not here: Jest's and Mocha's keys
(``setupFiles``, ``require``): the tool runs the workspace's tests, which run anything.

:func:`code_keys` gives these keys of one file's text; the file tools ask before an edit
that changes them (:mod:`.configtables`) and the sandbox puts back a command's change
(:mod:`.laterconfigs`). YAML is read line by line (no YAML parser is a dependency): a
key's line and the lines indented under it; a file using anchors, tags, complex keys or
escapes in double quotes is compared whole.
"""

from __future__ import annotations

import codecs
import configparser
import fnmatch
import json
import os
import re
import tomllib
from collections.abc import Callable
from typing import Any

from .composerkeys import NAME as COMPOSER
from .composerkeys import WHY as COMPOSER_WHY
from .composerkeys import composer_keys
from .lockkeys import NAMES as LOCK_NAMES
from .lockkeys import WHY as LOCK_WHY
from .lockkeys import lock_keys
from .npmkeys import WORKSPACES_KEY, local_dependencies, secret_entries
from .pipkeys import direct_requirement, pipfile_keys, pyproject_keys

TOML_NAMES = frozenset({"pyproject.toml"})
PIXI_NAME = "pixi.toml"
"""pixi's manifest: its code-naming places are those of ``[tool.pixi]`` (:data:`TOML_CODE_PATHS`)."""
REQUIREMENTS_GLOBS = ("*requirements*.txt", "*.in", "*constraints*.txt")
"""pip requirements files, by their usual names (case-folded); ``*.in`` is pip-tools' input
(``requirements/base.in``: ``pip-compile`` resolves through its index lines and writes them
into the ``.txt``, finding S22), but for the build templates of :data:`NOT_REQUIREMENTS`."""
NOT_REQUIREMENTS = ("*makefile*.in", "*.h.in", "*.mk.in", "config*.in", "manifest.in", "*.am.in",
                    "*.cmake.in", "*.pc.in", "*.spec.in", "*.py.in", "*.sh.in", "*.service.in",
                    "*.xml.in", "*.desktop.in")
"""``*.in`` names that are autoconf's, CMake's or setuptools' templates, not pip-tools' inputs."""
PIPFILE = "pipfile"
SPELLED = ("Pipfile", "Pipfile.lock")
"""Names of :data:`NAMES` as their tools spell them, where that is not lower case (a
file search is case-sensitive)."""
"""pipenv's manifest: its ``[[source]]`` tables say where ``pipenv install`` gets every package
(finding S22), read as ``[tool.pipenv]``'s (:data:`TOML_CODE_PATHS`)."""
REQUIREMENTS_OPTIONS = ("-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--no-index",
                        "--trusted-host", "-r", "--requirement", "-c", "--constraint")
"""The options of a requirements file's line that name where pip gets packages from, or another file."""
INI_NAMES = frozenset({"setup.cfg", "tox.ini", ".flake8"})
JS_NAMES = {
    **dict.fromkeys((".eslintrc", ".eslintrc.json", ".eslintrc.yml", ".eslintrc.yaml"), "ESLint"),
    **dict.fromkeys((".prettierrc", ".prettierrc.json", ".prettierrc.json5", ".prettierrc.yml",
                     ".prettierrc.yaml", ".prettierrc.toml"), "Prettier"),
    **dict.fromkeys((".babelrc", ".babelrc.json", "babel.config.json"), "Babel"),
    **dict.fromkeys((".stylelintrc", ".stylelintrc.json", ".stylelintrc.yml", ".stylelintrc.yaml"),
                    "Stylelint"),
    **dict.fromkeys((".markdownlint-cli2.jsonc", ".markdownlint-cli2.yaml"), "markdownlint-cli2"),
    **dict.fromkeys((".postcssrc", ".postcssrc.json", ".postcssrc.yaml", ".postcssrc.yml"), "PostCSS"),
    **dict.fromkeys((".golangci.yml", ".golangci.yaml", ".golangci.json", ".golangci.toml"), "golangci-lint"),
}
PACKAGE_KEYS = {"eslintConfig": "ESLint", "prettier": "Prettier", "babel": "Babel", "stylelint": "Stylelint",
                "markdownlint-cli2": "markdownlint-cli2", "postcss": "PostCSS"}
"""package.json's keys that hold a tool's config."""
HOOK_KEYS = ("husky", "simple-git-hooks", "lint-staged", "commitlint", "gitHooks", "pre-commit", "precommit",
             "nano-staged")
"""package.json's keys whose strings are commands a commit hook runs (husky v4, simple-git-hooks,
lint-staged: finding Q7; yorkie's ``gitHooks``, the ``pre-commit`` npm package's ``pre-commit``
or ``precommit`` list of scripts, nano-staged: finding U11), or name the modules it loads
(commitlint's ``plugins``, ``extends``, ``parserPreset`` in the commit-msg hook: finding S5):
whole, as code."""
SCRIPT_LISTS = ("pre-commit", "precommit")
"""Of :data:`HOOK_KEYS`, those that name ``scripts`` the ``pre-commit`` npm package runs at a
commit (a list, a comma-separated string, or ``{"run": …}``): those scripts count too."""
NESTED_HOOK_KEYS = {"config": "ghooks"}
"""The same one level down: ghooks runs ``config.ghooks``' commands (the rest of npm's
``config`` is data)."""
HOOK_WHY = ("holds commands your next git commit runs as you (husky, simple-git-hooks, lint-staged, "
            "nano-staged, yorkie's gitHooks, ghooks, pre-commit's list, commitlint's plugins, or a script "
            "of \"scripts\" a hook runs: npm test)")
LIFECYCLE_SCRIPTS = frozenset({
    "preinstall", "install", "postinstall", "preprepare", "prepare", "postprepare", "prepublish",
    "prepublishOnly", "prepack", "postpack", "publish", "postpublish", "preuninstall", "uninstall",
    "postuninstall", "dependencies",
})
"""package.json's ``scripts`` npm, yarn and pnpm run unasked: at a plain ``npm install`` or
``npm ci`` (``postinstall``, ``prepare`` …), ``npm pack`` and ``npm publish``, and after the
tree changed (``dependencies``); a user does not think of those as running the project's code
(finding A9). ``test``, ``build`` and the like run only when named: not here."""
PUBLISH_KEYS = ("publishConfig",)
"""package.json's keys that say where ``npm publish`` sends the package and with what
settings (``registry``, ``access``, any npm config key): ``.npmrc``'s twin, whole."""
FILES_KEY = "files"
"""package.json's list of what ``npm publish`` packs: only its secret-looking entries count
(``.env``, ``*.pem``: :func:`secret_entries`); ``dist`` added is an ordinary edit."""
NPM_WHY = ("holds what npm runs or sends unasked: a lifecycle script (preinstall, install, postinstall, "
           "prepare, prepack …) a plain npm install runs as you, a dependency it installs from a folder, a "
           "git repository or a URL (file:, link:, git+…) or as a workspace (whose own lifecycle scripts "
           "it runs), publishConfig (where npm publish sends the package), or a secret-looking entry of "
           "\"files\" it would publish")
NAMES = frozenset({*TOML_NAMES, *INI_NAMES, *JS_NAMES, "package.json", PIXI_NAME, "requirements.txt",
                   PIPFILE, *LOCK_NAMES, COMPOSER})
"""Every file name (case-folded) :func:`code_keys` reads, but the requirements files' other
names (:data:`REQUIREMENTS_GLOBS`, :func:`reads`)."""

JS_KEYS = frozenset({"plugins", "parser", "extends", "presets", "processor", "processors", "customSyntax",
                     "pluginSearchDirs", "import/resolver", "import/parsers", "customRules",
                     "markdownItPlugins", "outputFormatters", "custom", "syntax", "stringifier"})
SKIPPED = frozenset({"rules"})
MAX_DEPTH = 64
MAX_NODES = 20_000
MAX_YAML_KEYS = 64
"""Code-naming keys read in a YAML file (more: the file is compared whole)."""
MAX_BLOCK_LINES = 20_000
"""Lines read under those keys in all (a list of plugins is a dozen lines)."""

PYTHON_WHY = ("names the code pylint, mypy or flake8 runs (its {tables}: pylint's init-hook and plugins, "
              "mypy's plugins, flake8's local plugins: Python that runs as you at every lint or check, an "
              "editor's check-on-save included; and pytest's section when a commit hook runs pytest: its "
              "addopts -p loads a module at your next commit)")
JS_WHY = ("names the code {tool} loads ({keys}: JavaScript that runs as you at every lint, format or build, "
          "an editor's lint-on-save or format-on-save included)")
_JS_KEYS_SHOWN = {"ESLint": "plugins, parser, extends", "Prettier": "plugins",
                  "Babel": "plugins, presets", "Stylelint": "plugins, extends, customSyntax",
                  "markdownlint-cli2": "customRules, markdownItPlugins, outputFormatters",
                  "PostCSS": "plugins, parser, syntax, stringifier"}
GO_PLUGIN_WHY = ("names the code golangci-lint loads (a custom linter's path: a Go plugin that runs as you "
                 "at every lint, an editor's lint-on-save included)")

TOML_CODE_PATHS: tuple[tuple[str, ...], ...] = (
    ("pylint",), ("mypy",),
    *(("uv", key) for key in ("index", "index-url", "extra-index-url", "find-links", "no-index", "sources",
                              "pip")),
    ("poetry", "source"), ("pdm", "source"),
    *(("pixi", *at, key) for at in (("project",), ("workspace",), ("feature", "*"))
      for key in ("channels", "pypi-options")),
    ("pixi", "pypi-options"),
    *(("pixi", *at, "activation")
      for at in ((), ("target", "*"), ("feature", "*"), ("feature", "*", "target", "*"))),
    ("pipenv", "source"),
)
"""The places under ``[tool]`` of a pyproject.toml that name code (see the module), case-folded;
``*`` is any one key (a pixi feature's name)."""
TOML_WHY = ("names the code pylint or mypy runs ([tool.pylint] or [tool.mypy]: pylint's init-hook and "
            "plugins, mypy's plugins: Python that runs as you at every lint or check, an editor's "
            "check-on-save included), or where uv, poetry or pdm get "
            "packages from ([tool.uv] index, index-url, sources; [tool.poetry.source], [tool.pdm.source]: "
            "the next uv sync or uv run downloads from there and runs the packages' build code as you), "
            "or a dependency from a folder, a file, a URL or a repository (x @ git+https://…, "
            "poetry's git/path/url: its build code runs as you at the next install), or a PDM hook "
            "([tool.pdm.scripts] post_install, pre_lock …: a plain pdm install runs it), "
            "or pytest's options when a commit hook runs pytest ([tool.pytest.ini_options]: addopts -p loads "
            "a module at your next commit)")
PIXI_WHY = ("says where pixi gets packages from (channels, pypi-options: index-url, extra-index-urls, "
            "find-links; the next pixi install or pixi run downloads from there and runs the packages' "
            "build and activation code as you), or what pixi runs in your shell ([activation] scripts and "
            "env: pixi shell, pixi run and an .envrc's pixi shell-hook at every cd)")
PIPFILE_WHY = ("says where pipenv gets packages from ([[source]] url, verify_ssl: the next pipenv install "
               "downloads every package from there and runs its build code as you), or a package "
               "from a folder, a file or a repository (path, file, git, editable: its build code runs "
               "as you at the next pipenv install)")
REQUIREMENTS_WHY = ("says where pip gets packages from (--index-url, --extra-index-url, --find-links, "
                    "--trusted-host, -r/-c another file: the next pip install -r downloads every dependency "
                    "from there and runs its build code as you), or installs a package from a folder, "
                    "a file, a URL or a repository (./vendor/x, -e git+…, x @ https://…: its setup.py "
                    "runs as you at the next pip install -r)")

INI_SECTIONS = ("pylint", "mypy", "tool:pylint", "tool:mypy", "flake8:local-plugins")
"""The INI sections (by how their name starts, case-folded) that name code (see the module)."""

PYTEST_HOOKED = "\0pytest"
"""In :func:`code_keys`' ``hooked``: a commit hook runs pytest, so pytest's own tables
(``[tool.pytest.ini_options]``, setup.cfg's ``[tool:pytest]``, tox.ini's ``[pytest]``) count
whole: their ``addopts = -p plugin`` loads a module as the user at the next commit (finding
S13). Without such a hook they are left to edits: pytest runs the tests, which run anything."""
PYTEST_SECTIONS = ("pytest", "tool:pytest")

BOM = "\ufeff"
"""A UTF-8 byte-order mark as decoded: stripped before any reading (:func:`code_keys`)."""

BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
        (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"))
"""Byte-order marks and their encodings, in pip's order (``auto_decode``): pip reads a
requirements file written in UTF-16 behind its mark (finding D16's twin)."""


def config_text(data: bytes) -> str:
    """A config file's bytes as its tools read them: behind a byte-order mark in that
    encoding (:data:`BOMS`), else UTF-8 (an undecodable byte replaced)."""
    for bom, encoding in BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(encoding, "replace")
    return data.decode("utf-8", "replace")


CodeKeys = dict[str, str]
"""A key's place (``tool.pylint``, ``eslintConfig.overrides.0.parser``) → its value, as JSON."""


def reads(name: str) -> bool:
    """Whether :func:`code_keys` reads a file named ``name``: :data:`NAMES` and the
    requirements files' names."""
    name = name.casefold()
    return name in NAMES or is_requirements(name)


REQUIREMENTS_FOLDER = "requirements"
"""pip-tools' folder (``requirements/base.txt``, ``requirements/dev.in``): every ``.txt``
and ``.in`` in it is a requirements file, whatever its name (finding S22)."""


def keyed_name(path: str | os.PathLike[str]) -> str:
    """The name :func:`code_keys` reads ``path`` by: its own, but for a ``.txt`` or ``.in``
    in a :data:`REQUIREMENTS_FOLDER`, which is read as a requirements file
    (``requirements/base.txt`` → ``requirements-base.txt``)."""
    folder, name = os.path.split(os.fspath(path))
    if (os.path.basename(folder).casefold() == REQUIREMENTS_FOLDER
            and name.casefold().endswith((".txt", ".in"))):
        return f"{REQUIREMENTS_FOLDER}-{name}"
    return name


def is_requirements(name: str) -> bool:
    """Whether ``name`` is a pip requirements file's (:data:`REQUIREMENTS_GLOBS`)."""
    name = name.casefold()
    return (any(fnmatch.fnmatchcase(name, glob) for glob in REQUIREMENTS_GLOBS)
            and not any(fnmatch.fnmatchcase(name, glob) for glob in NOT_REQUIREMENTS))


def why(name: str) -> str:
    """What the code-naming keys of a file named ``name`` are ("" for another name)."""
    name = name.casefold()
    if name in TOML_NAMES:
        return TOML_WHY
    if name == PIXI_NAME:
        return PIXI_WHY
    if name == PIPFILE:
        return PIPFILE_WHY
    if name in LOCK_NAMES:
        return LOCK_WHY
    if name == COMPOSER:
        return COMPOSER_WHY
    if is_requirements(name):
        return REQUIREMENTS_WHY
    if name in INI_NAMES:
        return PYTHON_WHY.format(tables="[pylint], [mypy] or [flake8:local-plugins] sections")
    tool = JS_NAMES.get(name)
    if tool == "golangci-lint":
        return GO_PLUGIN_WHY
    if tool:
        return JS_WHY.format(tool=tool, keys=_JS_KEYS_SHOWN[tool])
    if name == "package.json":
        tools = JS_WHY.format(tool="ESLint, Prettier, Babel, Stylelint, PostCSS or markdownlint-cli2",
                              keys="eslintConfig, prettier, babel, stylelint, postcss, markdownlint-cli2: "
                                   "their plugins, parser, extends, customRules")
        return f"{HOOK_WHY}, or {NPM_WHY}, or {tools}"
    return ""


def code_keys(name: str, text: str, hooked: frozenset[str] = frozenset()) -> CodeKeys | None:
    """The code-naming keys of ``text``, the content of a file named ``name`` (see the
    module), or None when it does not parse as its tool would need (pyproject.toml,
    setup.cfg, tox.ini: a linter's reading of it cannot be told). An empty text has none.
    For a ``package.json``, ``hooked`` names the ``scripts`` a commit hook runs
    (:func:`.hookscripts.hooked_scripts`): those count, and :data:`HOOK_KEYS` whole; for
    the others, it holds :data:`PYTEST_HOOKED` when a hook runs pytest.

    A leading byte-order mark goes first: npm, pip and the linters strip it, so a key behind
    one runs as any other (finding D16: a BOM hid a ``postinstall`` npm then ran). A
    ``package.json`` that does not parse is None (compared whole): npm reads what it can."""
    name = name.casefold()
    text = text.removeprefix(BOM)
    if name in TOML_NAMES:
        found = _toml_tables(text, None, pyproject_keys)
        if found is not None and PYTEST_HOOKED in hooked:
            tool = tomllib.loads(text).get("tool")
            tables = tool.items() if isinstance(tool, dict) else ()
            found.update({f"tool.{k}": _dump(v) for k, v in tables if k.casefold() == "pytest"})
        return found
    if name == PIXI_NAME:  # its places are [tool.pixi]'s, at the top
        return _toml_tables(text, lambda data: {"tool": {"pixi": data}})
    if name == PIPFILE:  # and the Pipfile's [[source]] is [tool.pipenv]'s
        return _toml_tables(text, lambda data: {"tool": {"pipenv": data}}, pipfile_keys)
    if is_requirements(name):
        return _requirements_options(text)
    if name in LOCK_NAMES:
        return lock_keys(name, text)
    if name == COMPOSER:  # Composer reads plain JSON: one that does not parse is compared whole
        data = _jsonc(text)
        return None if data is None else composer_keys(data)
    if name in INI_NAMES:
        return _ini_sections(text, INI_SECTIONS + (PYTEST_SECTIONS if PYTEST_HOOKED in hooked else ()))
    if name == "package.json":
        data = _jsonc(text)
        return None if data is None else _package_keys(data, hooked)
    if name not in JS_NAMES:
        return {}
    if name.endswith(".toml"):
        try:
            return _js_keys(tomllib.loads(text), "")
        except (tomllib.TOMLDecodeError, RecursionError):
            return None
    data = _jsonc(text)
    return _js_keys(data, "") if data is not None else _yaml_keys(text)


def _package_keys(data: Any, hooked: frozenset[str]) -> CodeKeys:
    """A parsed package.json's keys that name code or where npm sends the package."""
    out: CodeKeys = {}
    if not isinstance(data, dict):
        return out
    for key in PACKAGE_KEYS:
        if key in data:
            out.update(_js_keys(data[key], key))
    out.update({key: _dump(data[key]) for key in (*HOOK_KEYS, *PUBLISH_KEYS, WORKSPACES_KEY) if key in data})
    out.update({f"{key}.{inner}": _dump(data[key][inner]) for key, inner in NESTED_HOOK_KEYS.items()
                if isinstance(data.get(key), dict) and inner in data[key]})
    scripts = data.get("scripts")
    if isinstance(scripts, dict):
        named = sorted(hooked | listed_scripts(data) | LIFECYCLE_SCRIPTS)
        out.update({f"scripts.{n}": _dump(scripts[n]) for n in named if n in scripts})
    secrets = secret_entries(data.get(FILES_KEY))
    if secrets:
        out[f"{FILES_KEY} (secret-looking)"] = _dump(secrets)
    out.update(local_dependencies(data))
    return out


def listed_scripts(data: Any) -> frozenset[str]:
    """The ``scripts`` a parsed package.json's :data:`SCRIPT_LISTS` name."""
    out: set[str] = set()
    for key in SCRIPT_LISTS:
        value = data.get(key) if isinstance(data, dict) else None
        if isinstance(value, dict):
            value = value.get("run")
        names = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else []
        out.update(n.strip() for n in names if isinstance(n, str) and n.strip())
    return frozenset(out)


def _toml_tables(text: str, placed: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                 entries: Callable[[dict[str, Any]], CodeKeys] | None = None) -> CodeKeys | None:
    """The code tables of a TOML manifest (``placed``: where its own tables sit under
    ``[tool]``), and the ``entries`` of it that install from elsewhere (:mod:`.pipkeys`)."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    out = {place: _dump(value) for place, value in toml_code(placed(data) if placed else data).items()}
    return {**out, **entries(data)} if entries else out


def _requirements_options(text: str) -> CodeKeys:
    """A requirements file's option lines of :data:`REQUIREMENTS_OPTIONS`, by their order
    among such lines (a dependency added above one moves none), as pip joins them (a
    ``\\`` at a line's end continues it; a comment goes)."""
    out: CodeKeys = {}
    for line in re.sub(r"\\\r?\n", " ", text).splitlines():
        words = re.split(r"(?:^|[ \t]+)#", line, maxsplit=1)[0].split()  # pip's comment: at the start too
        if not words:
            continue
        option = words[0].split("=", 1)[0]
        short = option[:2] if option[:2] in ("-i", "-f", "-r", "-c") else option
        if option in REQUIREMENTS_OPTIONS or short in REQUIREMENTS_OPTIONS:
            out[f"{short}#{len(out)}"] = " ".join(words)
        elif direct_requirement(words):  # a folder, a file, a URL, a repository (finding D12)
            out[f"direct#{len(out)}"] = " ".join(words)
    return out


def toml_code(data: dict[str, Any]) -> dict[str, Any]:
    """The code-naming values of a parsed pyproject.toml (:data:`TOML_CODE_PATHS`), by
    their place (``tool.uv.index-url``)."""
    out: dict[str, Any] = {}
    for place, value in _toml_walk(data.get("tool"), ("tool",)):
        out[".".join(place)] = value
    return out


def toml_without_code(data: dict[str, Any]) -> dict[str, Any]:
    """A parsed pyproject.toml without its code-naming values (tables left empty go too)."""
    return _pruned(data, ())


def toml_header_is_code(path: tuple[str, ...]) -> bool:
    """Whether a table header at ``path`` (``("tool", "uv", "index")``) is, or is inside, a
    code-naming place: set back whole with the file as it was."""
    folded = tuple(p.casefold() for p in path)
    return folded[:1] == ("tool",) and any(
        len(folded) > len(c) and all(want in ("*", got) for want, got in zip(c, folded[1:], strict=False))
        for c in TOML_CODE_PATHS)


def _toml_walk(tool: Any, at: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    found: list[tuple[tuple[str, ...], Any]] = []
    for code in TOML_CODE_PATHS:
        found += _toml_at(tool, code, at)
    return found


def _toml_at(node: Any, code: tuple[str, ...], place: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    """The values at ``code`` under ``node`` (``*`` any one key), with their places."""
    if not code:
        return [(place, node)]
    if not isinstance(node, dict):
        return []
    part, rest = code[0], code[1:]
    keys = list(node) if part == "*" else [k for k in node if k.casefold() == part][:1]
    return [hit for key in keys for hit in _toml_at(node[key], rest, (*place, key))]


def _pruned(node: dict[str, Any], at: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        place = (*at, key)
        if toml_header_is_code(place):
            continue
        if isinstance(value, dict) and len(place) < 3 and (place[0].casefold() == "tool"):
            kept = _pruned(value, place)
            if kept or not value:
                out[key] = kept
        else:
            out[key] = value
    return out


def _ini_sections(text: str, sections: tuple[str, ...] = INI_SECTIONS) -> CodeKeys | None:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except (configparser.Error, RecursionError):
        return None
    return {section: _dump(dict(parser.items(section))) for section in parser.sections()
            if section.casefold().startswith(sections)}


def _dump(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (ValueError, RecursionError):  # a circular or too deep value: compared by its text
        return repr(value)


def _js_keys(data: Any, place: str) -> CodeKeys:
    """The code-naming keys in a parsed JS tool config (walked, bounded)."""
    out: CodeKeys = {}
    if isinstance(data, str):  # "prettier": "@company/prettier-config"
        out[place or "(shared config)"] = _dump(data)
        return out
    stack: list[tuple[Any, str, int]] = [(data, place, 0)]
    nodes = 0
    while stack:
        node, where, depth = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH or nodes > MAX_NODES:
            out["(too deep to read)"] = _dump(data)
            return out
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            at = f"{where}.{key}" if where else str(key)
            if key in JS_KEYS:
                out[at] = _dump(value)
            elif key not in SKIPPED and isinstance(value, (dict, list)):
                stack.append((value, at, depth + 1))
    return out


_COMMENT_OR_STRING = re.compile(r'("(?:[^"\\\n]|\\.)*")|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)
"""A string, or a comment (an unclosed one runs to the end: one pass, whatever the text)."""
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _jsonc(text: str) -> Any:
    """``text`` as JSON with comments and trailing commas (ESLint's and Babel's reading),
    or None when it is not that."""
    if not text.strip():
        return {}
    try:
        return json.loads(text)  # most are plain JSON: no pass over them
    except (ValueError, RecursionError):
        pass
    if "/" not in text and "," not in text:
        return None
    bare = _TRAILING_COMMA.sub(r"\1", _COMMENT_OR_STRING.sub(r"\1", text))  # a comment goes, a string stays
    try:
        return json.loads(bare)
    except (ValueError, RecursionError):
        return None


def parse_jsonc(text: str) -> Any:
    """``text`` read as VS Code and ESLint read JSON (comments, trailing commas), or None."""
    return _jsonc(text)


_YAML_KEY = re.compile(r"""(?:^|(?<=[\s{,]))["']?(""" + "|".join(re.escape(k) for k in sorted(JS_KEYS))
                       + r""")["']?[ \t]*:(?=\s|$)""", re.M)
_YAML_OPAQUE = re.compile(r"""(?:^|[\s\[{,])[&*!][^\s]|^[ \t]*\?(?:\s|$)|"[^"\n]*\\""", re.M)
"""Anchors, aliases and tags, complex keys, escapes in double quotes: what a line reading
cannot follow (``plugins: *mine``, ``"\\x70lugins": …``)."""


def _yaml_keys(text: str) -> CodeKeys:
    """The code-naming keys of a YAML (or JSON5) config read line by line: each such
    key's line and the lines under it (indented more, or list items at its indent).
    Bounded: past :data:`MAX_YAML_KEYS` keys or :data:`MAX_BLOCK_LINES` lines read under
    them in all, the file is compared whole."""
    if _YAML_OPAQUE.search(text):
        return {"(whole file)": text}
    lines = text.split("\n")  # offsets below count one character per line end
    starts: list[int] = []
    indents: list[int] = []  # -1: a blank or comment line, which ends no block
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
        bare = line.lstrip(" \t")
        indents.append(-1 if not bare or bare.startswith("#") else len(line) - len(bare))
    out: CodeKeys = {}
    number, budget = 0, MAX_BLOCK_LINES
    for count, match in enumerate(_YAML_KEY.finditer(text)):
        while number + 1 < len(lines) and starts[number + 1] <= match.start():
            number += 1
        line = lines[number]
        indent = len(line) - len(line.lstrip(" \t-"))
        end = number + 1
        while end < len(lines) and budget > 0:
            budget -= 1
            lead = indents[end]
            if lead == -1 or lead > indent or (lead == indent and lines[end][lead:lead + 1] == "-"):
                end += 1
                continue
            break
        if count >= MAX_YAML_KEYS or budget <= 0:
            return {"(whole file)": text}
        block = text[match.start():starts[end] if end < len(lines) else len(text)]
        kept = (x.strip() for x in block.split("\n"))
        out[f"{match.group(1)}#{count}"] = "\n".join(x for x in kept if x and not x.startswith("#"))
    return out


__all__ = [
    "parse_jsonc", "config_text",
    "HOOK_KEYS", "INI_NAMES", "NESTED_HOOK_KEYS", "JS_NAMES", "NAMES", "PACKAGE_KEYS", "PYTEST_HOOKED",
    "REQUIREMENTS_GLOBS", "SPELLED",
    "TOML_CODE_PATHS", "TOML_NAMES", "CodeKeys",
    "code_keys", "is_requirements", "keyed_name", "listed_scripts",
    "reads", "toml_code", "toml_header_is_code", "toml_without_code", "why",
]
