"""The files named inside code given on a command line: ``node -e "require('./tools/q.js')"``,
``python3 -c "import runpy; runpy.run_path('tools/p.py')"``, ``ruby -e 'load "x.rb"'``.

An MCP server started so runs the file its code names, as the user, at every start; the
readers of a command line (:mod:`.mcpsources`) took the code for one odd word and named
nothing, so a sandboxed command rewrote the file unasked (tester finding D5). What a
reader can know of code without running it is what it spells out: the quoted strings
that look like a path (``./x``, ``tools/x``, ``x.js``) and, for Python, the modules an
``import`` names. Code that builds a name (``require(name)``, ``"./" + x``) names
nothing here; :func:`.mcpsources.read_servers` says so in the trust question for every
server started with code on its line.
"""

from __future__ import annotations

import os
import re
import sys

CODE_OPTIONS: dict[str, frozenset[str]] = {
    "node": frozenset({"-e", "--eval", "-p", "--print", "-pe"}),
    "bun": frozenset({"-e", "--eval", "-p", "--print"}),
    "deno": frozenset({"eval"}),
    "python": frozenset({"-c"}),
    "ruby": frozenset({"-e"}),
    "perl": frozenset({"-e", "-E"}),
    "php": frozenset({"-r"}),
}
"""Per interpreter, the options (or ``deno eval``'s word) whose next word is code to run."""
_INTERPRETER = re.compile(r"(?:.*/)?(node|nodejs|bun|deno|python|python[\d.]+|pypy[\d.]*|ruby|perl|php)")
_QUOTED = re.compile(r"""(["'`])((?:(?!\1)[^\\\n]|\\.){1,1024})\1""")
_SCRIPT = re.compile(r".\.(?:py|js|cjs|mjs|ts|mts|cts|rb|pl|pm|php|sh|json|node)$")
_IMPORT = re.compile(r"(?:^|[;\n])\s*(?:from\s+([A-Za-z_][\w.]*)\s+import|import\s+([A-Za-z_][\w.]*(?:\s*,\s*"
                     r"[A-Za-z_][\w.]*)*))")
MAX_NAMES = 64


def interpreter(word: str) -> str:
    """Which :data:`CODE_OPTIONS` interpreter the word ``word`` starts ("" when none)."""
    found = _INTERPRETER.fullmatch(word)
    if found is None:
        return ""
    name = found.group(1)
    if name.startswith(("python", "pypy")):
        return "python"
    return "node" if name == "nodejs" else name


def quoted_paths(code: str) -> list[str]:
    """The quoted strings of ``code`` that look like a file's path: relative, one word,
    with a ``/`` or a script's ending (not a URL, not an option)."""
    out: list[str] = []
    for found in _QUOTED.finditer(code):
        text = found.group(2)
        if (not text or any(c.isspace() for c in text) or "://" in text or text.startswith(("-", "~", "$"))
                or "${" in text or os.path.isabs(text)):
            continue
        if "/" in text or _SCRIPT.search(text) is not None:
            out.append(text)
        if len(out) >= MAX_NAMES:
            break
    return out


def imported_modules(code: str) -> list[str]:
    """The modules a Python code's ``import x.y`` / ``from x import …`` name that are not the
    standard library's (those the project holds: ``import tools.srv``)."""
    out: list[str] = []
    for found in _IMPORT.finditer(code):
        for name in (found.group(1) or found.group(2) or "").split(","):
            name = name.strip()
            if name and name.split(".")[0] not in sys.stdlib_module_names:
                out.append(name)
    return out[:MAX_NAMES]


__all__ = ["CODE_OPTIONS", "imported_modules", "interpreter", "quoted_paths"]
