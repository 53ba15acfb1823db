"""A command line that only appends names to an ignore file: ``echo .env >> .gitignore``.

Such a line names a secret file (``.env``) but never opens it: ``echo`` and ``printf``
print their words, and ``>>`` adds them to ``.gitignore``, which is how a model keeps
``.env`` out of git. Asking about it (and, once approved, showing ``.env`` to the
command) protects nothing, so :func:`only_appends_ignore_lines` lets the secret-file
check (:func:`.secretwords.named_secret_files`) pass it.

It is deliberately narrow: the whole line must be such appends and nothing else
(joined by ``&&`` or ``;``), each word plain or quoted without expansions, the target an
ignore file by name. ``cat .env >> .gitignore`` (reads it), ``echo $(cat .env) >>
.gitignore``, ``echo .env | xargs cat`` (a pipe feeds the name to a reader),
``echo .env >> .gitignore < .env``, ``echo .env > notes.txt`` and ``echo *.pem >>
.gitignore`` (an unquoted glob) are all judged as before.
"""

from __future__ import annotations

import re

IGNORE_FILES = (".gitignore", ".dockerignore", ".npmignore", ".hgignore", ".prettierignore", ".eslintignore",
                ".ignore", ".rgignore", ".gcloudignore", ".vercelignore", ".slugignore")
"""Files that list names for a tool to leave out; nothing runs or reads what they name."""

_WORD = r"""(?:[A-Za-z0-9_.,%/@+=:-]|'[^'\n]*'|"[^"$`\\\n]*")+"""
"""A word with nothing the shell expands: plain characters, or quoted without ``$``,
backticks or backslashes (no ``*``, ``?``, ``[``, ``{``, ``~`` unquoted: no globbing).
One character (or one quoted part) a repetition: a run inside a repetition tried every
split of a long word, and a 45-character token took forever on the event loop (T5)."""
_TARGET = r"(?:[A-Za-z0-9_.-]+/)*(?:" + "|".join(re.escape(n) for n in IGNORE_FILES) + ")"
_STATEMENT = rf"(?:echo|printf)(?:[ \t]+{_WORD})+[ \t]*>>[ \t]*{_TARGET}"
_LINE = re.compile(rf"\s*{_STATEMENT}(?:[ \t]*(?:&&|;|\n)\s*{_STATEMENT})*[ \t]*;?\s*")
MAX_LENGTH = 4096


def only_appends_ignore_lines(command: str) -> bool:
    """Whether the whole line only appends plain words to ignore files (see the module)."""
    return len(command) <= MAX_LENGTH and _LINE.fullmatch(command) is not None


__all__ = ["IGNORE_FILES", "only_appends_ignore_lines"]
