"""What a question offers besides yes and no: the rules "always" would keep, and
what a shell line runs, one command per line.

Kept apart from the verdicts (:mod:`.policy`): a suggestion never decides a call,
it only proposes the narrowest rule that would have allowed it, which the user
reads, edits and scopes before it is kept.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shell.core.secrets import is_secret_file
from shell.core.tools import Tool

from . import paths
from .rules import url_host
from .secretwords import named_secret_files
from .shellsplit import split_command
from .wrappers import EXECS, WRAPPERS


def suggest_rules(tool: Tool, args: Mapping[str, Any], root: Path) -> tuple[str, ...]:
    """The narrowest useful rules that would have allowed this call.

    None for a command line that names a secret-looking file (``curl -d @.env
    …``): "always" there would keep ``curl:*``, far broader than the call the
    user read, and an approval of that call is what lets it see the file. A
    path that is (or leads to) a secret-looking file gets a rule for exactly
    that path, never its folder (``read_file(config/**)`` would also cover the
    next file there)."""
    command = args.get("command")
    if tool.kind == "execute" and isinstance(command, str):
        if named_secret_files(command):
            return ()  # "always" is not offered: the approval was for this call's files only
        if args.get("network"):
            return ()  # no rule turns the network on: each such call asks
        split = split_command(command)
        if not split.confident or any(p.writes for p in split.parts):
            return ()  # no rule could allow it: "always" is not offered
        out: list[str] = []
        for part in split.parts:
            rule = f"{tool.name}({_command_prefix(part.text)})"
            if part.text and rule not in out:
                out.append(rule)
        return tuple(out)
    url = args.get("url")
    if isinstance(url, str):
        host = url_host(url)
        return (f"{tool.name}(domain:{host})",) if host else ()
    path = args.get("path")
    if isinstance(path, str):
        try:
            target = paths.resolve(path, root)
        except paths.BadPath:
            return ()  # no file has that name: no rule to offer
        inside = paths.relative(target, root)
        rel = "." if inside == "" else inside or ""  # the root itself is ".", as before
        if is_secret_file(path) or is_secret_file(target.as_posix()):
            exact = _exact_path(rel or target.as_posix())
            return (f"{tool.name}({exact})",) if exact else ()
        if not rel:
            return (f"{tool.name}({target.parent.as_posix().rstrip('/')}/*)",)
        parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
        return (f"{tool.name}({parent}/**)" if parent else f"{tool.name}({rel})",)
    return (tool.name,)


def _exact_path(rel: str) -> str:
    """``rel`` as a rule pattern that matches that path only, or empty when it holds a
    wildcard character or parentheses (no rule could name it alone)."""
    return "" if any(c in rel for c in "*?[]()") else rel


def _command_prefix(text: str) -> str:
    """``git status --short`` → ``git status:*``; ``pytest -q x`` → ``pytest:*``; a
    command with quotes, variables or wildcards in its first words is kept whole."""
    words = text.split()
    if _runs_what_it_is_given(words):
        return whole_line(text)
    head = [words[0]]
    if len(words) > 1 and _plain_word(words[1]):
        head.append(words[1])
        if _runner(words[0]) == words[1] and len(words) > 2 and _plain_word(words[2]):
            head.append(words[2])  # `uv run pytest:*`, not `uv run:*` (any program)
    if any(c in " ".join(head) for c in "=$`'\"\\*?[(){}"):
        return whole_line(text)
    return " ".join(head) + ":*"


def _plain_word(word: str) -> bool:
    return word[:1].isalpha() and all(c.isalnum() or c in "-_.:" for c in word)


def whole_line(text: str) -> str:
    """``text`` as a rule pattern that matches that line only: a ``*``, ``?`` or ``[``
    in it is a wildcard in a rule, so ``find . -name '*.py'`` kept as written would also
    allow ``find . -name 'x' -delete -name '.py'``; each is kept as ``[*]``, ``[?]``,
    ``[[]`` (fnmatch's literal forms), and a line ending ``:*`` is not read as a prefix."""
    return re.sub(r"[*?\[]", lambda m: f"[{m.group(0)}]", text)


RUNS_ANY_CODE = frozenset({
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "busybox", "eval", "source", ".",
    "python", "pypy", "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua", "luajit", "tclsh",
    "rscript", "pwsh", "powershell", "osascript", "awk", "gawk", "mawk", "nawk", "sed", "find",
    "env", "command", "builtin", "exec", "nice", "nohup", "time", "timeout", "sudo", "doas", "xargs",
    "stdbuf", "setsid", "ionice", "chrt", "taskset", "flock", "chronic", "watch", "unbuffer", "script",
    "parallel", "su", "runuser", "chroot", "nsenter", "unshare", "firejail", "strace", "ltrace", "gdb",
})  # fmt: skip
"""Commands that run whatever their arguments say (a shell, an interpreter, a wrapper,
``find -exec``, ``sed``'s ``e``): "always" for one of their calls keeps that call's
whole line, as ``python3:*`` or ``env:*`` would allow any program from then on."""
RUNS_ANY_CODE = RUNS_ANY_CODE | frozenset(WRAPPERS) | EXECS | {
    "alias", "trap", "toybox", "yash", "posh",
    "ssh", "slogin", "autossh", "sshpass", "mosh", "rsh", "rlogin", "telnet", "dbclient", "pdsh", "clush",
}
"""…and every wrapper the deny rules see through (:mod:`.wrappers`): one list to keep."""


RUNS_IN_A_BOX = frozenset({
    "docker", "podman", "nerdctl", "finch", "lima", "limactl", "colima", "kubectl", "oc", "k3s", "minikube",
    "lxc", "incus", "distrobox", "toolbox", "systemd-nspawn", "machinectl", "vagrant", "multipass",
    "gcloud", "az", "aws", "flyctl", "fly",
    "heroku", "railway", "nix", "nix-shell", "flatpak", "snap", "wsl",
})  # fmt: skip
"""Commands that run a program named in their arguments elsewhere (a container, a pod,
another machine, a VM): ``docker run:*`` would allow any image with any host mount
(``-v /:/host``, root-equivalent for the docker group), ``ssh host:*`` any remote
command. "Always" keeps the whole line, except for the subcommands that only look
(:data:`ONLY_LOOK`)."""
ONLY_LOOK = frozenset({
    "ps", "images", "logs", "inspect", "version", "info", "stats", "top", "port", "diff", "history",
    "search", "events", "get", "describe", "explain", "api-resources", "api-versions", "cluster-info",
    "status", "list",
})  # fmt: skip
"""Subcommands of :data:`RUNS_IN_A_BOX` programs that start nothing (``docker ps:*``)."""
RUNNERS = {"uv": "run", "uvx": "", "poetry": "run", "pipenv": "run", "pdm": "run", "hatch": "run",
           "rye": "run", "pixi": "run", "conda": "run", "mamba": "run", "micromamba": "run",
           "bundle": "exec", "direnv": "exec", "asdf": "exec", "mise": "exec", "rtx": "exec",
           "nvm": "exec", "pyenv": "exec", "rbenv": "exec", "dotnet": "exec", "opam": "exec"}
"""Tools whose subcommand runs the program after it: ``uv run pytest:*``, never
``uv run:*`` (which would allow ``uv run rm -rf …``)."""


def _runner(word: str) -> str | None:
    return RUNNERS.get(word.rsplit("/", 1)[-1].lower())


def _runs_what_it_is_given(words: list[str]) -> bool:
    name = words[0].rsplit("/", 1)[-1].lower().rstrip("0123456789.")  # python3.12 -> python
    if name in RUNS_ANY_CODE:
        return True
    if name in RUNS_IN_A_BOX:
        sub = next((w for w in words[1:] if not w.startswith("-")), "")
        return sub not in ONLY_LOOK or any(w.startswith("-") for w in words[1 : words.index(sub)])
    runner = _runner(words[0])
    if runner is not None and (runner == "" or (len(words) > 1 and words[1] == runner and (
            len(words) < 3 or not _plain_word(words[2])))):
        return True  # `uvx tool`, `uv run --with x y`: the program is not a plain next word
    # `git -c alias.x='!cmd' x`: an option before git's subcommand can name a command to run
    return name == "git" and len(words) > 1 and words[1].startswith("-")


def command_preview(command: str) -> str:
    """What a shell line runs, one command per line, when it is more than one
    command, writes to files, or cannot be read for sure."""
    split = split_command(command)
    parts = [p for p in split.parts if p.text]
    writes = [w for p in split.parts for w in p.writes]
    if len(parts) <= 1 and not writes and split.confident:
        return ""
    lines = [f"runs {len(parts)} command{'s' if len(parts) != 1 else ''}:"]
    # a CR is part of its word to bash; one before a line break the display's CRLF rule would hide
    lines += [f"  {i}. {p.text.replace(chr(13), chr(0x240D))}" for i, p in enumerate(parts, 1)]
    if writes:
        lines.append(f"writes to: {', '.join(writes)}")
    if not split.confident:
        lines.append(f"cannot be read for sure ({'; '.join(split.problems)}): no rule can allow it")
    return "\n".join(lines)
