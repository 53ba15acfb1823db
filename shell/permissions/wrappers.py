"""Programs that run another command, and where in their arguments it sits.

Why: ``deny run_shell(rm:*)`` must stop ``flock /tmp/l rm -rf x``, ``chrt 10 rm``,
``find . -exec rm {} +`` and ``git -c alias.z='!rm -rf x' z``, and
``deny run_shell(git push:*)`` must stop ``git -C repo push``, which is what a model
writes routinely. :mod:`.cmdword` asks this module what such a program runs: the
words of a command (the wrapper's options and their values stepped over), or a
string it hands to a shell (``flock -c``, ``su -c``, ``watch``, ``env -S``).
A program not listed here is out of view (``python -c``, ``uv run``, ``npx``, a
script); the README says so.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeAlias

from .envwords import read_env
from .shellwords import Word

__all__ = [
    "EXECS", "RUNTIME_ONLY", "WRAPPERS", "LineOrWords", "after_wrapper", "exec_commands", "git_readings",
    "runs_at_run_time",
]

LineOrWords: TypeAlias = "str | list[Word]"
"""A command line a program hands to a shell, or the words of a command it runs."""


@dataclass(frozen=True, slots=True)
class Spec:
    """``takes``: options whose value is the next word; ``operands``: words before
    the command (``flock FILE``, ``chrt PRIO``, ``timeout DURATION``); ``line``:
    options whose value is a shell line; ``no_command``: options that mean it runs
    nothing (``chrt -p PID``)."""

    takes: frozenset[str] = frozenset()
    operands: int = 0
    line: frozenset[str] = frozenset()
    no_command: frozenset[str] = frozenset()


def _s(takes: str = "", operands: int = 0, line: str = "", no_command: str = "") -> Spec:
    return Spec(frozenset(takes.split()), operands, frozenset(line.split()), frozenset(no_command.split()))


WRAPPERS: dict[str, Spec] = {
    "env": _s(),  # read by envwords.read_env (_env_runs)
    "command": _s(), "builtin": _s(), "exec": _s("-a"), "nohup": _s(), "setsid": _s(), "chronic": _s(),
    "unbuffer": _s(), "eatmydata": _s(), "nocache": _s(), "catchsegv": _s(), "firejail": _s(),
    "dbus-run-session": _s("--config-file --dbus-daemon"),
    "nice": _s("-n --adjustment"),
    "time": _s("-f --format -o --output"),
    "timeout": _s("-s --signal -k --kill-after", operands=1),
    "sudo": _s("-u --user -g --group -C -h --host -p --prompt -r --role -t --type -U --other-user -D --chdir",
               line="-s --shell"),
    "doas": _s("-u -C"),
    "runuser": _s("-u --user -g --group -G --supp-group", line="-c --command"),
    "xargs": _s("-I -i -n --max-args -L -l -P --max-procs -s --max-chars -d --delimiter -E -e -a --arg-file"),
    "parallel": _s("-j --jobs -N -n -S --sshlogin -I --colsep -C -d --delimiter -E -a --arg-file --joblog "
                   "--results --tmpdir --timeout --delay -L -l -P --halt --max-replace-args"),
    "stdbuf": _s("-i -o -e"),
    "ionice": _s("-c --class -n --classdata", no_command="-p --pid -P --pgid -u --uid"),
    "flock": _s("-w --wait --timeout -E --conflict-exit-code", operands=1, line="-c --command"),
    "chrt": _s("-T --sched-runtime -P --sched-period -D --sched-deadline", operands=1, no_command="-p --pid"),
    "taskset": _s(operands=1, no_command="-p --pid"),
    "faketime": _s("-f", operands=1),
    "fakeroot": _s("-l --lib --faked -s -i"),
    "torsocks": _s("-u -p -a -P"),
    "proxychains": _s("-f"), "proxychains4": _s("-f"),
    "unshare": _s("-S --setuid -G --setgid -R --root -w --wd"),
    "nsenter": _s("-t --target -S --setuid -G --setgid -r --root -w --wd"),
    "strace": _s("-o -e -p -s -u -E -a -I -O -P -S -X -b"),
    "ltrace": _s("-o -e -p -s -u -a -n -A -D -F -l -L -x"),
    "systemd-run": _s("-p --property -E --setenv -u --unit -M --machine -H --host --description --slice"),
    "numactl": _s("-N -m -C -p -i -P"),
    "cgexec": _s("-g"),
    "prlimit": _s(no_command="-p --pid"),
    "caffeinate": _s("-t -w"),
    "xvfb-run": _s("-n --server-num -s --server-args -f --auth-file -e --error-file -p --xauth-protocol"),
    "watch": _s("-n --interval -q --equexit"),
    "su": _s("-g --group -G --supp-group -s --shell -w --whitelist-environment", line="-c --command"),
    "sg": _s(operands=1, line="-c"),
    "script": _s("-E --echo -I --log-in -O --log-out -B --log-io -T --log-timing -m --logging-format",
                 line="-c --command"),
    "setpriv": _s("--ruid --euid --reuid --rgid --egid --regid --groups --inh-caps --ambient-caps "
                  "--bounding-set --securebits --pdeathsig --selinux-label --apparmor-profile"),
    "valgrind": _s("--tool --log-file --log-fd"),
    "gdb": _s("-ex --eval-command -x --command -iex -ix -p --pid -cd --cd -d --directory -s --symbols -e "
              "--exec -se -c --core -D --data-directory -ex"),
    "rlwrap": _s("-f --file -H --history-filename -l --logfile -s --histsize -S --substitute-prompt -P "
                 "--pre-given -t --set-term-name -z --filter -C --command-name -O --only-cook -w --polling"),
    "chroot": _s("--userspec --groups", operands=1),
    "pkexec": _s("--user -u"),
    "screen": _s("-S -c -e -h -p -s -T -t -Logfile"),
    "ssh": _s("-b -B -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w", operands=1),
}
"""Wrappers: each runs the command that follows its own options."""

EXECS = frozenset({"find", "fd", "fdfind"})
"""Programs that run a command given among their arguments (``-exec CMD … ;``)."""
_EXEC_OPTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-x", "--exec", "-X", "--exec-batch"})


def quote(words: list[Word]) -> str:
    """Words back into a line :mod:`.shellsplit` reads the same way."""
    return " ".join(shlex.quote(w.text) for w in words)


RUNTIME_ONLY = frozenset({"expect", "at", "batch", "tmux"})
"""Programs that run commands given in a form this module does not read (an ``expect``
script's ``spawn``, ``at``'s stdin, a ``tmux`` session's shell line): known only at
run time (``tmux`` only for its subcommands that start one: :data:`_TMUX_STARTS`)."""
_TMUX_STARTS = frozenset({"new", "new-session", "new-window", "neww", "split-window", "splitw",
                          "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell", "run",
                          "send-keys", "send", "if-shell", "if", "pipe-pane", "pipep", "display-popup",
                          "popup", "source-file", "source"})  # fmt: skip


def runs_at_run_time(name: str, words: list[Word]) -> bool:
    """Whether ``name`` (one of :data:`RUNTIME_ONLY`) with these arguments runs a command
    the line does not spell (``tmux ls`` runs none)."""
    return name != "tmux" or any(w.text in _TMUX_STARTS or w.dynamic for w in words)


def after_wrapper(
    name: str, words: list[Word], on_assign: Callable[[Word], None], at_runtime: Callable[[], None]
) -> LineOrWords | None:
    """What the wrapper ``name`` runs, given its arguments ``words``."""
    if name == "env":
        return _env_runs(words, on_assign, at_runtime)
    spec = WRAPPERS[name]
    if name == "screen" and any(w.text == "-X" for w in words):
        at_runtime()  # a command sent to a running session (`-X stuff 'rm x\n'`)
        return None
    i, operands = 0, spec.operands
    while i < len(words):
        text = words[i].text
        if text == "--":
            i += 1
            break
        if text in spec.no_command:
            return None
        if text in spec.line or any(text.startswith(o + "=") for o in spec.line if o.startswith("--")):
            return _option_line(words, i, at_runtime)
        if len(text) > 2 and text[0] == "-" and text[1] != "-" and "-" + text[-1] in spec.line:
            value = words[i + 1] if i + 1 < len(words) else None  # `su -lc 'rm …'`
            if value is not None and value.dynamic:
                at_runtime()
            return value.text if value is not None and not value.dynamic else None
        if text.startswith("-") and text != "-":
            i += 2 if text in spec.takes else 1
        elif name == "nice" and text.lstrip("-").isdigit():
            i += 1
        elif operands:
            operands -= 1
            i += 1
        else:
            break
    return _what_runs(name, words[i:], at_runtime)


def _env_runs(
    words: list[Word], on_assign: Callable[[Word], None], at_runtime: Callable[[], None]
) -> list[Word]:
    """What ``env WORDS`` runs, read by the one reader of env's words (:func:`.envwords.read_env`,
    finding C12): this module's own stepped over ``--ch DIR``, ``--un NAME`` (a shortened long
    option reading its value as the command) and ``-vS'…'``, ``-iS'…'`` (a string clustered
    after a flag read as the command's name), so ``deny run_shell(rm:*)`` let ``env --ch . rm -rf
    x`` run. An option word known only at run time, or one env does not know (GNU env refuses it,
    another env may take it), leaves the command known only at run time too; the reading is
    still followed, so a rule that matches it still applies."""
    texts = [w.text for w in words]
    reading = read_env(texts)
    if reading.unknown:
        at_runtime()
    if reading.at is None:  # out of a -S string: words of env's making, none from an expansion known
        if any(w.dynamic for w in words):
            at_runtime()
        for key, value in reading.assignments:
            on_assign(Word(f"{key}={value}"))
        return [Word(text) for text in reading.command]
    start = reading.at - len(reading.assignments)
    if any(w.dynamic for w in words[:start]):
        at_runtime()  # `env $OPTS rm`, `env -u "$x" …`: an option could be -S or -C
    for word in words[start:reading.at]:
        on_assign(word)
    return words[reading.at:]


def _what_runs(name: str, rest: list[Word], at_runtime: Callable[[], None]) -> LineOrWords | None:
    """The words after a wrapper's options: ``watch`` and ``sg`` hand them to a shell;
    ``parallel`` runs them up to ``:::`` (or commands from stdin without one)."""
    if name == "watch":
        return quote(rest) if len(rest) > 1 else rest[0].text if rest else None
    if name in ("sg", "ssh") and rest:  # ssh: the remote shell reads the words as one line
        return " ".join(w.text for w in rest)
    if name == "parallel":
        cut = next((k for k, w in enumerate(rest) if w.text.startswith(":::")), len(rest))
        if cut == 0:
            at_runtime()  # the commands come from stdin
        return rest[:cut]
    return rest


def _option_line(words: list[Word], i: int, at_runtime: Callable[[], None], tail: str = "") -> str | None:
    """The shell line given to the option at ``words[i]`` (``-c LINE``, ``--command=LINE``,
    ``-SLINE``), with ``tail`` after it; None (and known only at run time) when the
    line comes from an expansion."""
    text = words[i].text
    if text.startswith("--") and "=" in text:
        return text.split("=", 1)[1] + tail
    if len(text) > 2 and not text.startswith("--"):
        if words[i].dynamic:
            at_runtime()
            return None
        return text[2:] + tail
    if i + 1 >= len(words):
        return ""
    if words[i + 1].dynamic:
        at_runtime()
        return None
    return words[i + 1].text + tail


def exec_commands(name: str, words: list[Word]) -> Iterator[list[Word]]:
    """The commands ``find … -exec CMD … ;`` (``-execdir``, ``-ok``, ``-okdir``, and
    ``fd -x``/``-X``) runs."""
    i = 0
    while i < len(words):
        if words[i].text in _EXEC_OPTIONS:
            j = i + 1
            while j < len(words) and words[j].text not in (";", "+"):
                j += 1
            yield words[i + 1 : j]
            i = j
        i += 1


_GIT_TAKES = frozenset({"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--attr-source",
                        "--list-cmds", "--exec-path"})
_GIT_RUNS = re.compile(
    r"(core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy)|pager\..*|sequence\.editor|diff\.external"
    r"|diff\..*\.(textconv|command)|merge\..*\.driver|filter\..*\.(clean|smudge|process)|credential\.(.*\.)?helper"
    r"|gpg\.(.*\.)?program|interactive\.difffilter|uploadpack\.packobjectshook|remote\..*\.(uploadpack|receivepack)"
    r"|(difftool|mergetool|man|browser)\..*\.(cmd|path)|sendemail\..*|hook\..*\.command)"
)
"""Git config keys whose value git runs as a command."""
_GIT_RUNTIME = re.compile(r"(include\.path|includeif\..*|core\.hookspath)")
"""Git config keys that make git run code from a file: known only at run time."""


def git_readings(
    words: list[Word], texts: list[str], at_runtime: Callable[[], None]
) -> Iterator[LineOrWords]:
    """``git``'s global options (``-C DIR``, ``-c K=V``, ``--git-dir=…``, ``-P``) stepped
    over: ``git SUBCOMMAND …`` is added to ``texts``; the lines git itself would run
    (``-c alias.x=!…``, ``-c core.pager=…``, ``rebase --exec``, ``bisect run``,
    ``submodule foreach``) are yielded to be read."""
    aliases: dict[str, str] = {}
    i = 0
    while i < len(words):
        text = words[i].text
        if text in ("-c", "--config-env") or text.startswith("--config-env="):
            value = words[i + 1] if "=" not in text and i + 1 < len(words) else None
            setting = value.text if value else text.split("=", 1)[1]
            key, _, val = setting.partition("=")
            key = key.lower()
            from_env = text != "-c"
            if _GIT_RUNTIME.fullmatch(key) or ((from_env or (value and value.dynamic))
                                               and (key.startswith("alias.") or _GIT_RUNS.fullmatch(key))):
                at_runtime()
            elif key.startswith("alias."):
                aliases[key[6:]] = val
            elif _GIT_RUNS.fullmatch(key):
                yield val
            i += 2 if value else 1
        elif text in _GIT_TAKES:
            i += 2
        elif text.startswith("-"):
            i += 1
        else:
            break
    sub = words[i:]
    if not sub:
        return
    if sub[0].dynamic:
        at_runtime()
        return
    if i:
        texts.append(" ".join(["git", *(w.text for w in sub)]))
    alias = aliases.get(sub[0].text.lower())
    if alias is not None:
        if alias.startswith("!"):
            yield " ".join([alias[1:], quote(sub[1:])])
        else:
            texts.append(" ".join(["git", alias, *(w.text for w in sub[1:])]))
    yield from _git_subcommand_runs(sub)


def _git_subcommand_runs(sub: list[Word]) -> Iterator[LineOrWords]:
    name, args = sub[0].text, sub[1:]
    if name == "config":  # `git config alias.z '!rm …' && git z`: the value is what a later git runs
        for k, w in enumerate(args[:-1]):
            key = w.text.lower()
            if key.startswith("alias."):
                value = args[k + 1].text
                yield value[1:] if value.startswith("!") else f"git {value}"
            elif _GIT_RUNS.fullmatch(key):
                yield args[k + 1].text
    elif name == "rebase":
        for k, w in enumerate(args):
            if w.text in ("-x", "--exec") and k + 1 < len(args):
                yield args[k + 1].text
            elif w.text.startswith("--exec="):
                yield w.text[7:]
    elif name == "bisect" and args and args[0].text == "run":
        yield args[1:]
    elif name == "submodule" and "foreach" in [w.text for w in args]:
        k = [w.text for w in args].index("foreach") + 1
        while k < len(args) and args[k].text.startswith("-"):
            k += 1
        yield " ".join(w.text for w in args[k:])
    elif name == "filter-branch":
        for k, w in enumerate(args):
            if w.text.endswith("-filter") and k + 1 < len(args):
                yield args[k + 1].text
