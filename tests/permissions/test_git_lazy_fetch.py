"""agent-shell's own git never fetches nor runs what a repository's config names
(tester findings M10, M11).

A partial clone (``extensions.partialClone`` + a ``promisor`` remote) whose staged
``.env`` blob is missing made agent-shell's git (reading the staged copy to show in
the sandbox) fetch it lazily: from a URL of the repository's choosing (the workspace's
content in the path, past the sandbox's "no network") or by running its
``remote.origin.uploadpack`` as the user. Through the real path: a sandboxed command
writes the repository (hiding keys behind ``; \\`` comment lines git does not continue),
then the next command is prepared; and an unpacked project holding such a
``vendor/lib/.git`` gets its first command. A marker file must not appear and a local
HTTP server must get no request."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace

pytestmark = pytest.mark.anyio


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-gitlazy-")


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    """A 127.0.0.1 HTTP server and the paths it was asked for."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            return

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", asked
    finally:
        httpd.shutdown()
        httpd.server_close()


HIDDEN = (  # what git reads: every key; a parser taking `; \` as a continuation sees only the first
    "[core]\n\trepositoryformatversion = 1 ; \\\n[extensions] ; \\\n\tpartialClone = origin ; \\\n"
    '[remote "origin"] ; \\\n\turl = {url} ; \\\n\tpromisor = true ; \\\n'
    "\tuploadpack = \"touch '{marker}'; git-upload-pack\"\n"
)

MAKE_LAZY = """set -e
mkdir -p {sub} && cd {sub} && git init -q
printf 'SECRET=abc\\n' > .env && git add .env
id=$(git hash-object .env) && rm -f .git/objects/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-)
"""


def lazy_repo(where: Path, url: str, marker: Path, hidden: bool = False) -> None:
    """A partial clone at ``where`` whose staged .env blob is missing (made outside the sandbox)."""
    where.mkdir(parents=True)
    git(where, "init", "-q")
    (where / ".env").write_text("SECRET=abc\n")
    git(where, "add", ".env")
    blob = git(where, "hash-object", ".env").strip()
    (where / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    config = where / ".git" / "config"
    if hidden:
        config.write_text(HIDDEN.format(url=url, marker=marker))
        return
    config.write_text("[core]\n\trepositoryformatversion = 1\n[extensions]\n\tpartialClone = origin\n"
                      f'[remote "origin"]\n\turl = {url}\n\tpromisor = true\n'
                      f"\tuploadpack = \"touch '{marker}'; git-upload-pack\"\n")


# -- agent-shell's git never fetches ----------------------------------------------------


async def test_a_sandboxed_command_cannot_make_the_next_command_run_its_uploadpack(ws: Path) -> None:
    require_sandbox()
    marker = ws.parent / "PWN_LAZY"
    git(ws, "init", "-q")
    box = Sandbox(ws)
    config = HIDDEN.format(url=ws / "sub", marker=marker)
    script = MAKE_LAZY.format(sub="sub") + f"cat > .git/config <<'EOF'\n{config}EOF\n"
    first = await run_command(script, box.workspace, 30, lambda _: None, sandbox=box)
    second = await run_command("echo second", box.workspace, 30, lambda _: None, sandbox=box)
    assert "second" in second.text
    assert not marker.exists(), first.text
    assert "quarantine" in first.text, first.text  # the partial clone's config was not kept


@pytest.mark.parametrize("allows", [False, True])
async def test_an_unpacked_project_with_a_lazy_nested_repository_runs_nothing(ws: Path, allows: bool) -> None:
    require_sandbox()
    marker = ws.parent / "PWN_ZIP"
    lazy_repo(ws / "vendor" / "lib", str(ws / "vendor" / "lib"), marker)
    if allows:  # its own config allows the transport back: `-c protocol.allow=never` loses to it
        config = ws / "vendor" / "lib" / ".git" / "config"
        allow = '[protocol]\n\tallow = always\n[protocol "file"]\n\tallow = always\n'
        config.write_text(config.read_text() + allow)
    box = Sandbox(ws)
    result = await run_command("ls", box.workspace, 30, lambda _: None, sandbox=box)
    assert "vendor" in result.text
    assert not marker.exists()


async def test_agent_shells_git_sends_nothing_to_a_promisor_url(
    ws: Path, server: tuple[str, list[str]]
) -> None:
    require_sandbox()
    url, asked = server
    lazy_repo(ws / "sub", f"{url}/EXFIL-6869", ws.parent / "PWN_HTTP")
    box = Sandbox(ws)
    await run_command("echo first", box.workspace, 30, lambda _: None, sandbox=box)
    await run_command("echo second", box.workspace, 30, lambda _: None, sandbox=box)
    assert asked == []
    assert not (ws.parent / "PWN_HTTP").exists()


def test_the_transport_stays_shut_when_the_repository_allows_it_back(ws: Path) -> None:
    """Not only lazy fetches: any fetch agent-shell's git could make is refused, also
    where the repository's config sets ``protocol.file.allow = always`` (which beats
    ``-c protocol.allow=never``)."""
    from shell.permissions import githardened

    marker = ws.parent / "PWN_FETCH"
    lazy_repo(ws / "sub", str(ws / "sub"), marker)
    config = ws / "sub" / ".git" / "config"
    allow = '[protocol]\n\tallow = always\n[protocol "file"]\n\tallow = always\n'
    config.write_text(config.read_text() + allow)
    done = githardened.run(["-C", str(ws / "sub"), "fetch", "origin"])
    assert done is not None and done.returncode != 0
    assert not marker.exists()
