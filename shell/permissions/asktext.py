"""What a permission question says: why a call asks, and what approving it lets run.

Kept apart from the verdicts (:mod:`.policy`): these only word a question the
policy already decided to ask, so the person deciding knows what they grant.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from shell.core.secrets import secret_file_why
from shell.core.textsafety import sanitize_line
from shell.core.tools import Tool

from .modes import Mode
from .rules import Rule

if TYPE_CHECKING:
    from .sandbox import Sandbox

NAMES_ONLY = frozenset({"read_file", "list_dir", "glob"})
"""Tools a read deny does not stop by itself: ``read_file`` is what the rule names
(the rule itself decides), the others list names and read no file's content."""


def names_one_path(rule: Rule) -> bool:
    """Whether a rule names one path, no wildcard (``read_file(config/.env)``)."""
    return rule.pattern is not None and not any(c in rule.pattern for c in "*?[")


def secret_question(tool: Tool, shown: str, why: str, mcp: bool) -> str:
    """Why a call naming a secret-looking file asks: a read sends it to the provider, an
    edit loses the keys, and an MCP tool that is not read-only may do either."""
    if tool.kind == "edit":
        return (f"{tool.name} would change {shown}, a file that usually holds secrets ({why}); "
                "approve only if you asked for this change.")
    if mcp and not tool.read_only:
        return (f"{tool.name} would be given {shown}, a file that usually holds secrets ({why}); it may read "
                "it (what it reads goes to the model's provider) or change it.")
    return (f"{tool.name} would read {shown}, a file that usually holds secrets ({why}); what it "
            "reads goes to the model's provider.")


def ask_reason(tool: Tool, mode: Mode, args: Mapping[str, Any] | None = None) -> str:
    what = {
        "edit": "changes files",
        "delete": "deletes files",
        "move": "moves files",
        "execute": "runs commands",
        "fetch": "reaches the network (a URL can carry data out)",
    }.get(tool.kind, "can change things")
    reason = f"{tool.name} {what}; {mode} mode asks first."
    url = (args or {}).get("url")
    if tool.kind == "fetch" and isinstance(url, str):
        reason += fetch_target(url)
    return reason


def fetch_target(url: str) -> str:
    """Which host a URL really reaches, so ``https://docs.python.org&x@evil.example/``
    does not read as python.org: the host after any ``user@`` part (flagged, as it
    is the way to dress one host as another) and the query string as data sent."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        host = None
    if not host:
        return " Which host this URL reaches cannot be told; approve only if you trust it."
    shown = sanitize_line(host)
    text = f" It connects to {shown}."
    if "@" in parts.netloc:
        before = sanitize_line(parts.netloc.rsplit("@", 1)[0])
        text += (f" Suspicious: the URL has \"{before}@\" before the host, which makes it look like "
                 f"another address; it goes to {shown}.")
    if parts.query:
        text += f" Its query string (after ?) is data sent to {shown}."
    return text


def confined(tool: Tool) -> bool:
    """Whether the tool runs its commands in our sandbox (when the sandbox works here):
    only a tool that says so (the built-in ``run_shell``, and the editor's ``run_shell``
    (ACP) when it wraps the terminal's command in that sandbox). An MCP server's
    command tool runs wherever the server runs it: never confined, whatever
    bubblewrap can do."""
    return getattr(tool, "confined", False) is True


def hidden_count(sandbox: Sandbox | None) -> str:
    """``; 3 files that usually hold secrets (.env, …) are hidden from it``, or empty.

    As they are now, not as the last search saw them (the session's start, when no
    command ran since): a key written by ``write_file`` since is hidden from the command,
    and the question must say so. The search is the one the sandbox makes before the
    command, cached per folder, so only folders that changed are listed again and the
    command's own search that follows finds nothing new to list; while the check after
    an earlier command searches, its last result (the question does not wait for it)."""
    if sandbox is None:
        return ""
    found = sandbox.secret_index.find_unless_busy()
    home = sandbox.home_files.last
    n, more = len(found.paths), len(home.files) if home is not None else 0
    if not n and not more:
        return ""
    what = f"{n} files that usually hold secrets" if n != 1 else "1 file that usually holds secrets"
    if not n:
        many = more != 1
        return (f"; {more} file{'s' if many else ''} under your home that usually hold{'' if many else 's'} "
                f"secrets {'are' if many else 'is'} hidden from it")
    elsewhere = f" and {more} under your home" if more else ""
    return f"; {what} ({found.shown(3)}){elsewhere} {'are' if n + more != 1 else 'is'} hidden from it"


HIDDEN_WHAT = ("files that usually hold secrets in the workspace and under your home read as empty, "
               "and secret variables and git credentials are left out (files elsewhere are not searched)")
"""What the sandbox really hides, for an approval: not "no secrets" (finding N5: a key
in another project under home was read while every approval said so)."""


def home_covered(sandbox: Sandbox | None) -> str:
    """``; 2 folders under your home could not be searched … and are hidden whole (…)``, or empty."""
    found = sandbox.home_files.last if sandbox is not None else None
    said = found.said() if found is not None else ""
    return f"; {said}" if said else ""


def names_denied(name: str, denied: list[tuple[str, str]]) -> str:
    """Why a command line that names a path a deny rule on reading covers asks: the
    sandbox hides the path in the work tree, but not every other way to it (git's
    history: ``git show HEAD:path``)."""
    path, rule = denied[0]
    more = f" (and {len(denied) - 1} more)" if len(denied) > 1 else ""
    return (f"{name} names {path}{more}, which {rule} keeps from the model. The sandbox hides it in the "
            "work tree, but a command can reach it another way (git show HEAD:path prints it as "
            "committed); approving lets this one command run, and what it prints goes to the model's "
            "provider.")


def reads_denied_history(name: str, reader: str, path: str, rule: str, more: int) -> str:
    """Why a command that runs one of git's history readers asks while a deny rule on
    reading names a path git tracks (:mod:`.githistory`)."""
    others = f" (and {more} more)" if more else ""
    return (f"{name} runs `{reader}`, which prints file contents from git's history, and git tracks "
            f"{path}{others}, which {rule} keeps from the model: its committed content would be printed "
            "without being named. Approving lets this one command run, and what it prints goes to the "
            "model's provider.")


def names_secrets(name: str, command: str, named: list[str], sandboxed: Callable[[str], bool] | None) -> str:
    """Why a command line that names a secret file asks, and what approving lets it read."""
    files = ", ".join(named)
    one = len(named) == 1 and not any(c in named[0] for c in "*?[")
    why = f" ({secret_file_why(named[0])})" if one and secret_file_why(named[0]) else ""
    head = (f"{name} names {files}, a file that usually holds secrets{why}." if one
            else f"{name} names {files}: files that usually hold secrets.")
    if sandboxed is not None and sandboxed(command):  # with network=true too
        return (f"{head} The sandbox hides such files from commands (they read as empty); approving lets "
                "this one command read the workspace's files named so, and what it prints goes to the "
                "model's provider.")
    return (f"{head} It runs outside the sandbox, where nothing is hidden; what it prints goes to the "
            "model's provider.")


def confinement(
    tool: Tool, args: Mapping[str, Any], sandboxed: Callable[[str], bool] | None, sandbox: Sandbox | None
) -> str:
    """For a command: whether approving lets it run in the sandbox or as the user
    unconfined, so the person deciding knows what they grant."""
    command = args.get("command")
    if tool.kind != "execute" or not isinstance(command, str) or sandboxed is None:
        return ""
    if not confined(tool):
        if getattr(tool, "source", "") == "editor":  # bubblewrap does not work here
            return (" It runs in your editor's terminal as you, with no sandbox (bubblewrap does not "
                    "work here): it can write anywhere you can, reach the network and read files that "
                    "hold secrets, and it gets the editor's environment, provider keys included.")
        return " It runs outside the sandbox, as you."
    if args.get("network") and sandboxed(command):
        return (f" It runs in the sandbox (writes only in the workspace; {HIDDEN_WHAT}) but on your network: "
                "it can reach services on this machine (databases, Docker's API, dev servers), your LAN, "
                "cloud metadata (169.254.169.254) and the internet, and send out what it can read.")
    if sandboxed(command):
        return (" It runs in the sandbox: it writes only in the workspace (never git hooks or config, "
                f".envrc, .vscode or the like), with no network; {HIDDEN_WHAT}"
                f"{hidden_count(sandbox)}{home_covered(sandbox)}.")
    return " It runs outside the sandbox, as you (the sandbox cannot work here: see the notice at start)."


def changed_tool(tool: Tool) -> str:
    """Why an MCP tool that changed since the user accepted it asks (its description,
    schema or hints: see :mod:`shell.tools.mcp_identity`), or "" when it did not."""
    changed = getattr(tool, "changed", "")
    if not changed:
        return ""
    return (f"{tool.name} changed since you accepted it ({changed}): its server may now have it do "
            "something else than what you allowed. Check it before approving; approving accepts the new "
            "version.")


def accept_seen_change(tool: Tool, reason: str) -> None:
    """The user approved a question that said what changed: that version is the one accepted."""
    said = changed_tool(tool)
    accept = getattr(tool, "accept_change", None)
    if said and said in reason and callable(accept):
        accept()
