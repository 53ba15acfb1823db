"""``agent-shell``: the TUI by default, ``--plain`` for the line mode, ``-p`` headless.

Exit codes: 0 ok, 1 the reply ended in an error, 2 a usage or configuration
error, 130 interrupted. A mistake the user can fix (a bad ``--model``, a broken
config file) is one line on stderr, never a traceback.

Heavy modules (the providers, Textual, prompt-toolkit) are imported only by the
mode that needs them, so ``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

from . import __version__
from .frontend.exits import EXIT_INTERRUPTED, EXIT_PIPE, EXIT_USAGE, UsageError
from .frontend.exits import HELP as EXIT_HELP

EXAMPLES = """\
examples:
  agent-shell                                   the full-screen shell (offline demo model if no provider)
  agent-shell "list the files"                  the shell, with this as the first message
  agent-shell --plain                           the line mode, in your terminal's scrollback
  agent-shell -p "summarise README.md"          print one answer and exit
  git diff | agent-shell -p "review this diff"  the prompt (or its context) on stdin
  agent-shell -p "fix the tests" --approve always --output-format jsonl
  agent-shell --permission-mode plan            read and plan; nothing writes, runs or fetches
  agent-shell --model anthropic:claude-sonnet-4-5 --middleware Timing,TodoList
  agent-shell --model scripted:turns.json --plain   replay a scripted conversation
  agent-shell models                            list the models of every provider
  agent-shell config                            show the config file and settings (secrets masked)
  agent-shell acp                               the agent for editors (Agent Client Protocol on stdio)
  agent-shell trust                             show what this workspace's .mcp.json would run; trust it

""" + EXIT_HELP + "\n"


def _names(value: str) -> list[str]:
    return [n.strip() for n in value.split(",") if n.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-shell",
        usage="%(prog)s [OPTIONS] [MESSAGE]\n       %(prog)s COMMAND ...",
        description="A terminal agent shell: chat, watch and approve tool calls, toggle middleware live.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"agent-shell {__version__}")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--plain", action="store_true", help="line mode (prompt-toolkit) instead of the TUI")
    mode.add_argument(
        "-p", "--print", dest="prompt", nargs="?", const="", default=None, metavar="PROMPT",
        help="headless: answer PROMPT and exit (PROMPT from stdin when omitted; piped stdin is added to it)",
    )
    parser.add_argument("--model", metavar="SPEC",
                        help="openai:NAME, anthropic:NAME, ollama:NAME, demo or scripted:FILE")
    parser.add_argument("--system", metavar="TEXT", help="the system prompt (replaces the default)")
    parser.add_argument("--middleware", metavar="NAME[,NAME]", action="append", default=[],
                        help="switch these built-in middleware on (on top of the config)")
    parser.add_argument("--no-middleware", metavar="NAME[,NAME]", action="append", default=[],
                        help="switch these middleware off")
    parser.add_argument("--cwd", metavar="DIR", help="the workspace directory (default: the current one)")
    parser.add_argument("--add-dir", dest="add_dirs", metavar="DIR", action="append", default=[],
                        help="another directory that counts as the workspace: the tools use it without "
                             "asking that it is outside, and sandboxed commands may write there "
                             "(repeatable)")
    parser.add_argument("--config", metavar="FILE", help="the config file (default: the user config dir's)")
    parser.add_argument("--continue", dest="continue_", action="store_true",
                        help="continue the latest session in this directory")
    parser.add_argument("--resume", nargs="?", const="", default=None, metavar="ID",
                        help="resume a session (choose from a list when ID is omitted)")
    parser.add_argument("--fork", action="store_true",
                        help="with --continue or --resume: carry on in a new session (the original stays)")
    parser.add_argument("--no-session", action="store_true", help="do not save this conversation")
    parser.add_argument("--output-format", choices=("text", "json", "jsonl"), default="text",
                        help="headless output: the answer, one JSON object, or events as JSON lines")
    parser.add_argument("--approve", choices=("ask", "never", "always"), default=None,
                        help="headless approvals: ask on the terminal (default), reject what would ask, "
                             "or approve all (= --permission-mode bypass)")
    parser.add_argument("--permission-mode", metavar="MODE",
                        choices=("default", "plan", "accept-edits", "auto", "bypass"),
                        help="what runs without asking: default (read-only tools), plan (nothing that "
                             "writes, executes or reaches the network), accept-edits (also file edits in "
                             "the workspace), auto (also what the sandbox confines), bypass (everything)")
    for effect, what in (("allow", "runs unasked"), ("ask", "always asks"), ("deny", "is refused")):
        parser.add_argument(f"--{effect}", action="append", default=[], metavar="RULE",
                            help=f"a permission rule for this run: a matching call {what} "
                                 "(repeatable; e.g. 'run_shell(pytest:*)', 'write_file(docs/**)', "
                                 "'fetch_url(domain:docs.python.org)'; see README 'Permissions')")
    parser.add_argument("--max-rounds", type=int, default=50, metavar="N", help="model calls per reply")
    parser.add_argument("--trust-workspace", action="store_true",
                        help="use this workspace's .mcp.json and project settings for this run, unasked")
    # prog: each subcommand's usage reads "agent-shell sessions [-h] …", not the main usage's two lines
    sub = parser.add_subparsers(dest="command", metavar="{models,config,acp,trust,sessions}",
                                prog="agent-shell")
    _config_option(sub.add_parser("models", help="list the models of every configured provider"))
    _config_option(sub.add_parser("config", help="show the config file and the effective settings"))
    _add_acp_parser(sub)
    trust = sub.add_parser(
        "trust", help="show what a workspace's own config would run, and trust it (or --revoke)",
        description="A workspace's .mcp.json and .agent-shell/ settings are used only once you trust "
        "the workspace. This shows every command line and URL they would start, then records your "
        "answer for exactly these files: when one changes, you are asked again.",
    )
    trust.add_argument("directory", nargs="?", default=None, help="the workspace (default: --cwd or here)")
    trust.add_argument("--yes", action="store_true", help="trust without asking (after showing)")
    trust.add_argument("--revoke", action="store_true", help="forget the answer: asked again next time")
    trust.add_argument("--list", action="store_true", help="list the workspaces you answered for")
    sessions = sub.add_parser(
        "sessions", help="list this directory's sessions, or search every session (--search WORDS)",
        description="Lists the sessions started in this directory (--all: everywhere), newest first, "
        "or finds the sessions that hold every word of --search (the last word may be a prefix). "
        "Open one with `agent-shell --resume ID`.",
    )
    sessions.add_argument("--search", metavar="WORDS", help="full-text search of every session")
    sessions.add_argument("--all", action="store_true", help="list the sessions of every directory")
    _config_option(sessions)
    return parser


def _config_option(command: argparse.ArgumentParser) -> None:
    """``--config FILE`` after the subcommands that read the config (``agent-shell models
    --config F``), as ``acp`` takes it: given here, it replaces one given before."""
    command.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="the config file")


def _add_acp_parser(sub: Any) -> None:
    """``agent-shell acp``: the options that make sense for an editor's agent may
    also follow ``acp`` (``agent-shell acp --model X``), as editors' settings write them."""
    acp = sub.add_parser(
        "acp", help="run as an Agent Client Protocol agent on stdin/stdout (Zed, JetBrains, Neovim, Toad)",
        description="Speak the Agent Client Protocol on stdin/stdout, for editors. See README, "
        "'Use it from your editor'.",
    )
    keep = argparse.SUPPRESS  # given here, they replace the options before ``acp``
    acp.add_argument("--model", metavar="SPEC", default=keep, help="the model new sessions start with")
    acp.add_argument("--system", metavar="TEXT", default=keep, help="the system prompt")
    acp.add_argument("--middleware", metavar="NAME[,NAME]", action="append", default=keep,
                     help="switch these middleware on")
    acp.add_argument("--no-middleware", metavar="NAME[,NAME]", action="append", default=keep,
                     help="switch these middleware off")
    acp.add_argument("--config", metavar="FILE", default=keep, help="the config file")
    acp.add_argument("--max-rounds", type=int, metavar="N", default=keep, help="model calls per reply")
    acp.add_argument("--permission-mode", metavar="MODE", default=keep,
                     help="the mode new sessions start in: default, accept-edits, plan, auto or bypass")


def main(argv: Sequence[str] | None = None) -> int:
    """The console script. Returns (and, via ``sys.exit``, exits with) the exit code."""
    parser = build_parser()
    words, message = _take_message(parser, list(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(words)
    args.message = message
    try:
        return _dispatch(parser, args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BaseExceptionGroup as group:
        # A second Ctrl+C lands in whatever runs, often inside a task group (the session
        # writer's fsync): anyio hands it on wrapped, and it left a traceback and exit
        # code 1 where one Ctrl+C quits with "interrupted" and 130 (finding V18).
        if group.split(KeyboardInterrupt)[1] is not None:
            raise
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, and keep Python's
        # final flush of stdout from failing again at exit.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE
    except UsageError as exc:
        print(f"agent-shell: {_shown(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:
        from .config import ConfigError
        from .runtime import ShellError

        if isinstance(exc, (ConfigError, ShellError)):
            print(f"agent-shell: {_shown(str(exc))}", file=sys.stderr)
            return EXIT_USAGE
        raise


def _take_message(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[list[str], str | None]:
    """``agent-shell "list the files"``: the first bare word that is neither an option's
    value nor a subcommand is a first message for the interactive shell (as other
    terminal agents take it). Returns the remaining arguments and that message."""
    subcommands = {
        name for action in parser._actions if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    }
    consumes = {
        flag for action in parser._actions if action.option_strings and action.nargs != 0
        for flag in action.option_strings
    }
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            break
        if word.startswith("-") and word != "-":
            if word in consumes and "=" not in word and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                i += 1  # the option's value, not a message
            i += 1
            continue
        if word in subcommands:
            return argv, None
        return argv[:i] + argv[i + 1 :], word
    return argv, None


def _shown(message: str) -> str:
    """An error for the terminal: it may quote a file, a URL or a session (secrets
    redacted, controls neutralised)."""
    from .core.secrets import environment_secrets
    from .core.textsafety import sanitize

    return sanitize(environment_secrets().text(message))




def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command in ("models", "config", "trust", "sessions"):  # these run on their own
        from . import subcommands  # acp checks the shared options first

        command: Callable[[argparse.Namespace], int] = getattr(subcommands, f"{args.command}_command")
        return command(args)
    if args.max_rounds < 1:
        raise UsageError("--max-rounds must be at least 1")
    if args.command == "acp":
        return _acp(args)
    return _interactive_or_headless(args)


def _check_modes(args: argparse.Namespace) -> None:
    """The options that contradict each other or the mode: one line each."""
    if args.prompt is None and (args.output_format != "text" or args.approve is not None):
        raise UsageError("--output-format and --approve apply to headless mode (-p)")
    if args.message is not None and args.prompt is not None:
        raise UsageError(f"give the prompt to -p (-p {args.message!r}), not on its own")
    if args.approve == "always" and args.permission_mode not in (None, "bypass"):
        raise UsageError(f"--approve always means --permission-mode bypass; it cannot go with "
                         f"--permission-mode {args.permission_mode}")
    resuming = args.continue_ or args.resume is not None
    if resuming and args.no_session:
        raise UsageError("--continue and --resume save to the session they resume; drop --no-session")
    if args.fork and not resuming:
        raise UsageError("--fork goes with --continue or --resume: it forks the session they open")
    _check_add_dirs(args)


def _check_add_dirs(args: argparse.Namespace) -> None:
    """A bad ``--add-dir`` stops the run before any screen (the TUI builds the runtime
    after its first frame), with what to do."""
    import os
    from pathlib import Path

    from .permissions.homedirs import too_broad

    base = os.path.abspath(args.cwd or ".")
    for directory in args.add_dirs:
        if not directory.strip():
            raise UsageError("--add-dir needs a directory (an empty path names none)")
        path = os.path.join(base, os.path.expanduser(directory))
        if not os.path.isdir(path):
            what = "does not exist" if not os.path.exists(path) else "is not a directory"
            raise UsageError(f"--add-dir {directory}: {os.path.realpath(path)} {what}; "
                             "give an existing directory (repeat --add-dir for more than one)")
        broad = too_broad(Path(os.path.realpath(path)))
        if broad:
            raise UsageError(f"--add-dir {directory}: {os.path.realpath(path)} {broad}")


def _interactive_or_headless(args: argparse.Namespace) -> int:
    """The TUI, the line mode or one headless reply."""
    _check_modes(args)
    if args.prompt is not None:
        return _headless(args)
    resuming = args.continue_ or args.resume is not None
    picking = args.resume == "" and not args.continue_  # --resume with no ID asks on the terminal
    run_tui = _tui_entry() if not args.plain else None
    if run_tui is not None and not picking:
        return _run_tui_fast(run_tui, args, resuming)
    on_a_terminal = sys.stdin.isatty() and sys.stdout.isatty()
    if not resuming and args.message is None and on_a_terminal:
        return _run_plain_fast(args)
    runtime = _build_runtime(args)
    if resuming:  # may ask on the terminal which session: before any UI takes it
        _resume(runtime, args)
    if run_tui is not None:
        return int(run_tui(runtime, initial=args.message))
    if not sys.stdin.isatty():
        # The line mode reads keys at a prompt: from a pipe it read the first line, met
        # the end of input and left without answering, exit 0, misleading a script.
        raise UsageError(
            "the line mode (--plain) needs a terminal on stdin; for a script, use -p: "
            "agent-shell -p \"TEXT\", or pipe the prompt into agent-shell -p"
        )
    from .plain import run_plain

    return _run(run_plain, runtime, args.message)


def _headless(args: argparse.Namespace) -> int:
    """``-p``: one reply. TERM or HUP before the reply's own handling is in place
    (stdin, the config, the sandbox check, ``--resume``) ends it as a reply cancelled
    before its first word: the object or line a script waits for, and 143 or 129."""
    from .frontend.startsignals import EndedAtStart, ending_at_start

    try:
        with ending_at_start():
            prompt, piped = _headless_prompt(args.prompt)
            runtime = _build_runtime(args)
            if args.continue_ or args.resume is not None:  # may ask on the terminal which session
                _resume(runtime, args)
            from .headless import run_headless

            return _run(run_headless, runtime, prompt, output_format=args.output_format,
                        approve=args.approve or "ask", piped=piped)
    except EndedAtStart as ended:
        return ended.report(args.output_format, sys.stdout, sys.stderr, args.model)
    except BaseExceptionGroup as group:  # raised inside a task group: anyio wraps it
        if group.split(EndedAtStart)[1] is not None:
            raise
        first = next(e for e in _leaves(group) if isinstance(e, EndedAtStart))
        return first.report(args.output_format, sys.stdout, sys.stderr, args.model)


def _leaves(error: BaseException) -> Iterator[BaseException]:
    """The exceptions inside ``error``, however deeply grouped."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


def _tui_entry() -> Any:
    """``run_tui``, or None (said on stderr) when this build has no TUI.

    Automatic garbage collection is held off from here until the shell is ready
    (see :mod:`shell.tui.gcpolicy`): the start-up makes next to no garbage, and
    each collection on the way would scan every object imported so far."""
    try:
        from .tui import gcpolicy  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        return _no_tui(exc)
    gcpolicy.hold()
    try:
        from .tui.app import run_tui  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        gcpolicy.release()
        return _no_tui(exc)
    return run_tui


def _no_tui(exc: ImportError) -> None:
    if exc.name is None or not exc.name.startswith("shell.tui"):
        raise exc
    print("agent-shell: the full-screen TUI is not available in this build; "
          "using the line mode (--plain).", file=sys.stderr)


def _run_tui_fast(run_tui: Any, args: argparse.Namespace, resuming: bool) -> int:
    """The TUI paints its first frame before the runtime exists: the config is read
    here (a broken file is reported before the screen changes), the rest (and the
    session of ``--continue`` / ``--resume ID``) is built by the app after that
    frame."""
    from .config import load_config

    settings = load_config(args.config)

    def build() -> Any:  # the switched-off middleware come after the welcome (the app asks)
        runtime = _build_runtime(args, settings, middleware_later=True)
        if resuming:
            _resume(runtime, args)
        return runtime

    return int(run_tui(build=build, settings=settings, initial=args.message))


def _run_plain_fast(args: argparse.Namespace) -> int:
    """The line mode's prompt comes up before the runtime exists (see
    :mod:`shell.plain_start`); the config is read first, so a broken file is
    reported before the prompt appears."""
    from .config import load_config
    from .plain_start import run_plain_starting

    settings = load_config(args.config)

    def build() -> Any:  # in a worker thread, behind the first prompt
        runtime = _build_runtime(args, settings)
        import shell.plain  # noqa: F401 - Rich and the rest of the line mode, loaded there too

        return runtime

    def open_shell(runtime: Any, history: Any) -> Any:
        from .plain import PlainShell

        return PlainShell(runtime, history=history)

    return _run(run_plain_starting, build, open_shell, settings)


def _run(fn: Any, *args: Any, **kwargs: Any) -> int:
    import anyio

    async def go() -> int:
        return int(await fn(*args, **kwargs))

    return anyio.run(go)


def _headless_prompt(prompt: str) -> tuple[str, str]:
    """``-p TEXT``, stdin, or both, as (prompt, piped): piped input follows the prompt
    as words (see :func:`shell.headless.run_headless`)."""
    piped = ""
    if not sys.stdin.isatty():
        piped = sys.stdin.read()
    if not (prompt + piped).strip():
        raise UsageError("-p needs a prompt: -p \"TEXT\", or the prompt on stdin")
    return prompt, piped if piped.strip() else ""


def _build_runtime(args: argparse.Namespace, settings: Any = None, *, middleware_later: bool = False) -> Any:
    from .runtime import RuntimeOptions, ShellRuntime

    options = RuntimeOptions(
        model=args.model,
        system=args.system,
        middleware_on=[n for v in args.middleware for n in _names(v)],
        middleware_off=[n for v in args.no_middleware for n in _names(v)],
        cwd=args.cwd,
        config_path=args.config,
        max_rounds=args.max_rounds,
        record=not args.no_session,
        permission_mode="bypass" if args.approve == "always" else args.permission_mode,
        cli_strict=args.permission_mode is not None or args.approve is not None,
        trust_workspace=args.trust_workspace,
        add_dirs=list(args.add_dirs),
        rules={"allow": args.allow, "ask": args.ask, "deny": args.deny},
        middleware_later=middleware_later,
    )
    return ShellRuntime.create(options, settings=settings)




def _resume(runtime: Any, args: argparse.Namespace) -> None:
    """``--continue`` / ``--resume [ID]``: the runtime loads the session; with no ID
    the user picks one here, on the terminal, before any UI takes it. ``--fork``
    then carries on in a new session (the one opened stays as it was)."""
    from .runtime import ShellError

    if args.continue_:
        runtime.resume(latest=True)
    else:
        try:
            from .subcommands import choose_session

            chosen = args.resume or choose_session(str(runtime.workspace.root))
        except Exception as exc:  # SessionError: one line for the user
            raise ShellError(str(exc)) from None
        runtime.resume(chosen)
    if getattr(args, "fork", False):
        runtime.fork()






def _acp(args: argparse.Namespace) -> int:
    """``agent-shell acp``: refused with the options that belong to the other modes;
    a broken config is reported here, before the protocol starts."""
    if args.prompt is not None or args.plain or args.continue_ or args.resume is not None:
        raise UsageError("acp takes no -p, --plain, --continue or --resume (the editor picks the session)")
    if args.no_session:
        raise UsageError("acp keeps every conversation as a session (the editor lists and loads them)")
    if args.approve is not None:
        raise UsageError("acp asks through the editor: choose a mode with --permission-mode, not --approve")
    _check_add_dirs(args)
    import os

    from .acp.server import run_acp
    from .config import load_config
    from .runtime import RuntimeOptions

    settings = load_config(args.config)
    options = RuntimeOptions(
        model=args.model,
        system=args.system,
        middleware_on=[n for v in args.middleware for n in _names(v)],
        middleware_off=[n for v in args.no_middleware for n in _names(v)],
        config_path=args.config,
        max_rounds=args.max_rounds,
        permission_mode=args.permission_mode,
        cli_strict=args.permission_mode is not None,
        add_dirs=[os.path.abspath(os.path.expanduser(d)) for d in args.add_dirs],  # not each session's cwd
    )
    return run_acp(options, settings)




def run() -> None:
    """The console script (and ``python -m shell``): :func:`main`, then out at once.

    By the time ``main`` returns, everything meant for the user is written and every
    file is closed (sessions are saved as they go); what normal interpreter exit
    would add is tearing down some hundreds of modules, 100-300 ms after the answer
    for nothing (a script waiting for ``agent-shell -p`` waits for that too). atexit
    handlers still run (logging flushes its files, a tracing exporter sends its last
    spans); then the standard streams are flushed and the process ends."""
    code = main()
    finish_checks()
    exit_now(code)


def finish_checks() -> None:
    """Before the process ends: a check after a sandboxed command still running in its
    thread (it went past its time, or Esc left it) is waited for, and what checks that
    ended late found is told to the user on stderr; the model was told nothing, since
    the next command it was kept for never came (finding L9)."""
    after_check = sys.modules.get("shell.tools.after_check")  # no command ran: nothing to wait for
    if after_check is None:
        return
    from shell.core.textsafety import sanitize

    if after_check.running():
        print("agent-shell: waiting for the check after the last command to finish…", file=sys.stderr,
              flush=True)
    for note in after_check.finish():
        print(sanitize(after_check.for_user(note)), file=sys.stderr)


def exit_now(code: int) -> NoReturn:
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (| head), a closed stream
            pass
    os._exit(code)


if __name__ == "__main__":
    run()
