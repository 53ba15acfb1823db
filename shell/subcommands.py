"""The subcommands that run on their own and exit: ``agent-shell config``, ``trust``,
``sessions`` and ``models`` (and the ``--resume`` picker). Apart from :mod:`shell.cli`
so that the start of a chat reads none of them; each imports what it needs itself.

Every string shown here came from a file, a session or a server: it goes through
the one sanitiser before it reaches the terminal."""

from __future__ import annotations

import argparse
import sys

from .frontend.exits import EXIT_OK, EXIT_USAGE, UsageError


def config_command(args: argparse.Namespace) -> int:
    from .config import describe, load_config

    print(describe(load_config(args.config)))
    return EXIT_OK


def trust_command(args: argparse.Namespace) -> int:
    """``agent-shell trust [DIR]``: show the project config in full, then record the
    user's answer (on a terminal it asks; elsewhere ``--yes`` says yes)."""
    from pathlib import Path

    from .core.textsafety import sanitize_line as visible
    from .permissions.trust import TRUST_REASK, TrustStore, trust_answer

    store = TrustStore()
    if args.list:
        entries = store.entries()
        for path, entry in sorted(entries.items()):
            answer = "trusted" if entry.get("trusted") is True else "declined"
            print(visible(f"{answer}  {path}  ({', '.join(sorted(entry.get('files') or []))})"))
        if not entries:
            print("No workspace answered yet.")
        return EXIT_OK
    root = Path(args.directory or args.cwd or ".").resolve()
    if not root.is_dir():
        raise UsageError(f"trust: {root} is not a directory")
    if args.revoke:
        found = store.forget(root)
        said = "forgotten; you will be asked again." if found else "no answer recorded."
        print(visible(f"{root}: {said}"))
        return EXIT_OK
    from .runtime import describe_project

    check = store.check(root)
    if check.state == "none":
        print(visible(f"{root} has no project config (.mcp.json, .agent-shell/): nothing to trust."))
        return EXIT_OK
    print(visible(f"Workspace {root} ({check.state}). Trusting it would apply (or ignore), file by file:"))
    from .commands import default_commands

    for line in describe_project(check, default_commands().names(custom=False)):
        print(f"  {line}")
    if not args.yes:
        if not sys.stdin.isatty():
            print("Not a terminal: rerun with --yes to trust these files.", file=sys.stderr)
            return EXIT_USAGE
        while (trusted := trust_answer(input("Trust this workspace? [y/N] "))) is None:
            print(TRUST_REASK)
        if not trusted:
            store.decide(check.config, False)
            print("Not trusted; its config stays unused.")
            return EXIT_OK
    store.decide(check.config, True)
    print("Trusted. When any of these files changes you will be asked again.")
    return EXIT_OK


def sessions_command(args: argparse.Namespace) -> int:
    """``agent-shell sessions [--all | --search WORDS]``."""
    from pathlib import Path

    from .config import load_config
    from .core.secrets import Secrets
    from .core.textsafety import sanitize
    from .sessions import SessionStore, format_sessions
    from .sessions.search import format_hits, search_sessions

    if args.search is not None:
        if not args.search.strip():
            raise UsageError("--search needs words to look for")
        hits = search_sessions(args.search, Secrets.from_environment(load_config(args.config)))
        if not hits:
            print(f"No session mentions {sanitize(args.search)!r}.")
            return EXIT_OK
        print(sanitize(format_hits(hits)))
        return EXIT_OK
    root = Path(args.cwd or ".").resolve()
    infos = SessionStore().list() if args.all else SessionStore().list(str(root))
    if not infos:
        print(
            "No saved sessions yet."
            if args.all
            else f"No saved sessions in {sanitize(str(root))} yet (--all lists every directory's)."
        )
        return EXIT_OK
    print(sanitize(format_sessions(infos, limit=len(infos) if args.all else 50)))
    return EXIT_OK


def choose_session(cwd: str) -> str:
    """``--resume`` with no ID: a numbered list (this directory's sessions, else all),
    and the user's pick by number or id."""
    from .core.textsafety import sanitize
    from .sessions import SessionError, SessionStore, format_sessions

    store = SessionStore()
    infos = store.list(cwd) or store.list()
    if not infos:
        raise SessionError("there are no sessions to resume yet")
    listing = sanitize(format_sessions(infos))  # titles are what was typed or pasted
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise SessionError(f"--resume needs an ID when not on a terminal. Recent sessions:\n{listing}")
    print(listing, file=sys.stderr)
    shown = min(len(infos), 20)
    answer = input(f"Resume which session? [1-{shown}] ").strip()
    if answer.isdigit() and 1 <= int(answer) <= shown:
        return infos[int(answer) - 1].id
    return answer or infos[0].id


def models_command(args: argparse.Namespace) -> int:
    from .commands import format_models
    from .config import load_config
    from .providers.registry import list_models

    settings = load_config(args.config)

    async def go() -> dict[str, list[str] | str]:
        return await list_models(settings)

    import anyio

    from .core.textsafety import sanitize

    found = anyio.run(go)
    for line in format_models(found).splitlines():  # model ids come from the servers
        print(sanitize(line.replace("**", "").replace("`", "")))
    return EXIT_OK
