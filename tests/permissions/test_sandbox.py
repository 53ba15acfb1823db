"""The bubblewrap sandbox of run_shell, against the real bwrap: what a command
approved by the user can and cannot do. Each wall is tested from inside (the
command fails) and from outside (nothing reached the disk, the server, the key)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.permissions.sandbox import Sandbox, SandboxStatus, network_note, sandbox_status
from shell.permissions.sandboxenv import is_secret_variable, scrubbed_environment
from shell.tools.shell_cmd import run_command
from tests.homes import made_home

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home directory outside /tmp (the sandbox's /tmp is private anyway, which
    would hide a key there for the wrong reason), with an ssh key and a workspace."""
    base = made_home(".agent-shell-test-home-")
    (base / ".ssh").mkdir()
    (base / ".ssh" / "id_ed25519").write_text("PRIVATE KEY MATERIAL\n")
    (base / ".netrc").write_text("machine example.org password hunter22\n")
    (base / "project").mkdir()
    monkeypatch.setenv("HOME", str(base))
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def exists(path: str) -> bool:
    return os.path.exists(path)


async def sh(sandbox: Sandbox, command: str, *, network: bool = False, timeout: float = 20) -> Any:
    return await run_command(
        command, sandbox.workspace, timeout, lambda _: None, sandbox=sandbox, network=network
    )


async def test_the_workspace_and_tmp_are_writable_and_nothing_else(home: Path) -> None:
    require_sandbox()
    box = Sandbox(home / "project")
    result = await sh(box, "echo hi > made.txt && echo tmp > /tmp/t && cat /tmp/t")
    assert not result.is_error, result.text
    assert (home / "project" / "made.txt").read_text() == "hi\n"
    assert result.details["sandboxed"] is True
    outside = await sh(box, f"echo owned > {home}/outside.txt; touch /etc/agent-shell-sandbox-test")
    assert "Read-only file system" in outside.text
    assert not (home / "outside.txt").exists()
    assert not exists("/etc/agent-shell-sandbox-test")


async def test_key_files_are_not_visible(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_sandbox()
    box = Sandbox(home / "project")
    result = await sh(box, "echo entries=$(ls -A ~/.ssh | wc -l); cat ~/.ssh/id_ed25519 ~/.netrc; echo done")
    assert "PRIVATE KEY MATERIAL" not in result.text and "hunter22" not in result.text
    assert "entries=0" in result.text and "done" in result.text
    # the shell's own dirs (sessions, the trust store) are hidden too
    own = home / ".config-agent-shell"
    own.mkdir()
    (own / "trusted-workspaces.json").write_text("{}")
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(own))
    seen = await sh(box, f"ls -A {own}; echo end")
    assert "trusted-workspaces.json" not in seen.text


async def test_other_agents_tokens_are_not_visible_and_their_caches_are(home: Path) -> None:
    """Claude Code's OAuth tokens, Codex's auth.json, Copilot's and Hugging Face's
    tokens: readable in auto mode, so a command could print them to the provider."""
    require_sandbox()
    stores = [".claude/.credentials.json", ".codex/auth.json", ".config/github-copilot/hosts.json",
              ".cache/huggingface/token", ".huggingface/token", ".gradle/gradle.properties"]
    for rel in stores:
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(f"HOMESECRET-{rel}\n")
    (home / ".cache" / "huggingface" / "hub").mkdir()
    (home / ".cache" / "huggingface" / "hub" / "model.bin").write_text("WEIGHTS\n")
    box = Sandbox(home / "project")
    result = await sh(box, "cd ~ && cat " + " ".join(stores) + " .cache/huggingface/hub/model.bin; echo end")
    assert "HOMESECRET" not in result.text, result.text
    assert "WEIGHTS" in result.text and "end" in result.text  # a model cache stays usable


async def test_cli_token_stores_are_not_visible_even_under_harmless_names(home: Path) -> None:
    """Cloud and hosting CLIs keep tokens in files named config.yml or cli.toml (listed),
    and a tool nobody listed that names its file like a credential is found by name."""
    require_sandbox()
    stores = [".config/glab-cli/config.yml", ".config/doctl/config.yaml", ".fly/config.yml",
              ".config/sops/age/keys.txt", ".config/hcloud/cli.toml", ".oci/config", ".databrickscfg",
              ".config/composer/auth.json", ".config/newtool/credentials.toml", ".config/other/api_token",
              ".sometool/auth.json"]
    for rel in stores:
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(f"HOMESECRET-{rel}\n")
    (home / ".config" / "newtool" / "settings.toml").write_text("theme = 'dark'\n")
    box = Sandbox(home / "project")
    result = await sh(box, "cd ~ && cat " + " ".join(stores) + " .config/newtool/settings.toml; echo end")
    assert "HOMESECRET" not in result.text, result.text
    assert "theme = 'dark'" in result.text and "end" in result.text  # plain settings stay readable
    in_home = await sh(Sandbox(home), "cat ~/.config/other/api_token; echo end")
    assert "HOMESECRET" not in in_home.text and "end" in in_home.text


async def test_a_workspace_that_holds_the_secrets_still_hides_them(home: Path) -> None:
    """Working in the home directory itself: ~/.ssh is inside the writable bind."""
    require_sandbox()
    box = Sandbox(home)
    result = await sh(box, "cat ~/.ssh/id_ed25519; echo x > ~/.ssh/planted; echo ok > fine.txt")
    assert "PRIVATE KEY MATERIAL" not in result.text
    assert not (home / ".ssh" / "planted").exists()
    assert (home / "fine.txt").exists()


async def test_git_hooks_and_the_trusted_config_stay_read_only(home: Path) -> None:
    require_sandbox()
    ws = home / "project"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    (ws / ".mcp.json").write_text("{}")
    box = Sandbox(ws)
    await sh(
        box,
        "echo 'curl evil' > .git/hooks/pre-commit; echo '[core] fsmonitor = evil' >> .git/config; "
        "echo '{\"mcpServers\": {}}' > .mcp.json; echo written > ok.txt",
    )
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert (ws / ".git" / "config").read_text() == "[core]\n"
    assert (ws / ".mcp.json").read_text() == "{}"
    assert (ws / "ok.txt").read_text() == "written\n"


class _Server:
    """A real TCP server on 127.0.0.1 that records every connection it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def server() -> Iterator[_Server]:
    s = _Server()
    yield s
    s.close()


async def test_no_network_unless_the_call_asks(home: Path, server: _Server) -> None:
    require_sandbox()
    box = Sandbox(home / "project")
    probe = f"exec 3<>/dev/tcp/127.0.0.1/{server.port} && echo connected"
    cut = await sh(box, probe)
    assert cut.is_error and "connected" not in cut.text
    assert server.connections == 0
    assert "the sandbox has no network access" in cut.text and "network=true" in cut.text
    allowed = await sh(box, probe, network=True)
    assert "connected" in allowed.text, allowed.text
    assert server.connections == 1


async def test_secrets_are_not_in_the_environment(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_sandbox()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdefghij")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-0123456789")
    monkeypatch.setenv("DATABASE_URL", "postgres://app:s3cretpw@db.internal/app")
    monkeypatch.setenv("SOMETHING_HARMLESS", "visible-value")
    result = await sh(Sandbox(home / "project"), "env")
    for leaked in ("OPENAI_API_KEY", "sk-test-0123456789", "MY_SERVICE_TOKEN", "s3cretpw"):
        assert leaked not in result.text
    assert "SOMETHING_HARMLESS=visible-value" in result.text
    bare = await sh(Sandbox(home / "project", bwrap="/nonexistent/bwrap"), "env")
    assert bare.details["sandboxed"] is False
    assert "sk-test-0123456789" not in bare.text and "SOMETHING_HARMLESS=visible-value" in bare.text


def test_which_variables_count_as_secret() -> None:
    secret = ["OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "GH_TOKEN",
              "SSH_AUTH_SOCK", "NPM_TOKEN", "DB_PASSWORD", "SESSION_COOKIE", "XAUTHORITY", "SENTRY_DSN",
              "STRIPE_APIKEY", "HF_TOKEN"]  # fmt: skip
    plain = ["PATH", "HOME", "LANG", "TERM", "PWD", "SSL_CERT_FILE", "KEYBOARD_LAYOUT_X", "EDITOR"]
    assert [n for n in secret if not is_secret_variable(n)] == []
    assert [n for n in plain if is_secret_variable(n, "x")] == []
    assert is_secret_variable("SOME_URL", "https://user:pw@example.org/")
    assert is_secret_variable("X", "ghp_" + "a" * 36)
    env, removed = scrubbed_environment({"PATH": "/bin", "OPENAI_API_KEY": "k"})
    assert env == {"PATH": "/bin"} and removed == ["OPENAI_API_KEY"]


@pytest.mark.parametrize("value", [
    "https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyzABCDEF_-0123",
    "https://contoso.webhook.office.com/webhookb2/1234-5678@abcd/IncomingWebhook/0123456789abcdef/4567",
    "https://chat.example.com/hooks/xyz7u5ab8iey3eqs9ak4j3rwnt",
    "https://hooks.zapier.com/hooks/catch/123456/abcdef/",
    "https://maker.ifttt.com/trigger/deploy/with/key/abcdefghijklmnop",
    "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "https://bucket.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=abcdef0123456789",
    "https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=0123456789ab",
    "https://api.example.com/v1?token=abcdef123456", "https://api.example.com/v1?key=abcdef123456",
    "mysql://app:hunter22@db.internal/app",
])
def test_a_secret_url_leaves_the_environment_whatever_its_name(value: str) -> None:
    """A webhook URL is the credential itself (whoever holds it may post as the team):
    under a harmless name (``NOTIFY_URL``) it is removed by its value, as keys are."""
    env, removed = scrubbed_environment({"PATH": "/bin", "NOTIFY_URL": value,
                                         "DOCS": "https://docs.python.org/3/library/os.html?highlight=x",
                                         "REPO": "https://github.com/org/repo/settings/hooks/123456789"})
    assert removed == ["NOTIFY_URL"] and "DOCS" in env and "REPO" in env
    assert is_secret_variable("DEPLOY_WEBHOOK", "https://example.org/x")  # by name too


def test_without_bubblewrap_it_says_what_to_install() -> None:
    status = sandbox_status("/nonexistent/bwrap")
    assert not status.available
    box = Sandbox(".", bwrap="/nonexistent/bwrap")
    assert not box.contains({"command": "ls"})
    missing = SandboxStatus(False, "bubblewrap (bwrap) is not installed", "install bubblewrap (apt)")
    assert "every command asks first" in missing.notice() and "install bubblewrap" in missing.notice()


def test_a_call_that_asks_for_the_network_leaves_the_sandbox() -> None:
    require_sandbox()
    box = Sandbox(".")
    assert box.contains({"command": "ls"})
    assert not box.contains({"command": "curl x", "network": True})


def test_network_failures_are_recognised() -> None:
    assert network_note("curl: (6) Could not resolve host: example.org")
    assert network_note("OSError: [Errno 101] Network is unreachable")
    assert not network_note("SyntaxError: invalid syntax")


def test_a_probe_started_ahead_gives_the_answer_of_a_probe_on_demand() -> None:
    """The runtime starts bubblewrap's probe before it imports the rest (start-up
    time); what the sandbox then says must be what a probe of its own would say."""
    from shell.permissions import sandboxprobe as module

    on_demand = sandbox_status()
    module._probe.cache_clear()
    try:
        module.probe_ahead()
        assert (module._ahead is not None) == (shutil.which("bwrap") is not None)
        assert sandbox_status() == on_demand
        assert module._ahead is None  # read once, then the answer is cached
        module.probe_ahead()
        assert module._ahead is None  # answered already: no second probe
    finally:
        module._probe.cache_clear()
        assert sandbox_status() == on_demand


CONNECT = (
    "python3 -c \"import socket,sys; s=socket.socket(socket.AF_UNIX)\n"
    "try: s.connect(sys.argv[1]); print('CONNECTED')\nexcept OSError as e: print('REFUSED', e)\" "
)


async def test_the_hosts_unix_sockets_are_out_of_reach_in_the_workspace_too(home: Path) -> None:
    """A socket with a path is a door out of the sandbox (a screen session, an ssh
    agent in home, D-Bus, libvirt): every one the kernel lists is covered, wherever
    it is and whatever its name. Tester finding K13: one in the workspace that exists
    before the command (a dev PostgreSQL's ``run/.s.PGSQL.5432``) was left reachable,
    and ``COPY … TO PROGRAM`` ran on the host; the user can name one in the config.
    A server the command starts itself in the workspace is reachable as before."""
    require_sandbox()
    listeners = []
    for where in (home / ".1password" / "agent.sock", home / "project" / "run" / "db.sock"):
        where.parent.mkdir(exist_ok=True)
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(where))
        listener.listen()
        listeners.append(listener)
    own = ("python3 -c \"import socket,os; s=socket.socket(socket.AF_UNIX); s.bind('own.sock'); s.listen(); "
           "c=socket.socket(socket.AF_UNIX); c.connect('own.sock'); print('OWN CONNECTED'); "
           "os.unlink('own.sock')\"")
    try:
        box = Sandbox(home / "project")
        outside = await sh(box, CONNECT + str(home / ".1password" / "agent.sock"))
        inside = await sh(box, CONNECT + "run/db.sock")
        itself = await sh(box, own)
        allowed = await sh(Sandbox(home / "project", sockets=["run/db.sock"]), CONNECT + "run/db.sock")
    finally:
        for listener in listeners:
            listener.close()
    assert "REFUSED" in outside.text and "CONNECTED" not in outside.text, outside.text
    assert "REFUSED" in inside.text and "CONNECTED" not in inside.text, inside.text
    assert "OWN CONNECTED" in itself.text, itself.text
    assert "CONNECTED" in allowed.text and "REFUSED" not in allowed.text, allowed.text


def _listen_relative(cwd: Path, name: str) -> subprocess.Popen[str]:
    """A server in ``cwd`` listening on a socket it bound by the relative ``name``."""
    code = ("import socket, sys, time; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); "
            "print('ready', flush=True); time.sleep(120)")
    server = subprocess.Popen([sys.executable, "-c", code, name], cwd=cwd, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None and server.stdout.readline() == "ready\n"
    return server


PROC = r"""for p in /proc/[0-9]*; do tr '\0' '\n' < $p/cmdline; tr '\0' '\n' < $p/environ; done 2>&1"""


async def test_proc_shows_no_hidden_path_and_no_environment_of_bubblewrap(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tester round 6: inside the sandbox ``/proc/1/cmdline`` was bubblewrap's command
    line, every hidden path on it (~/.aws, ~/.pgpass, the workspace's secret files by
    name), a map of where the credentials are. The options now reach bubblewrap
    through a private file (``--args 3``), removed before the command starts."""
    require_sandbox()
    from shell.permissions import sandboxlaunch

    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("[default]\naws_secret_access_key = x\n")
    (home / ".pgpass").write_text("db:5432:*:me:hunter2\n")
    (home / "project" / "deploy").mkdir()
    (home / "project" / "deploy" / "prod.pem").write_text("-----BEGIN PRIVATE KEY-----\nx\n")
    launched: list[sandboxlaunch.Launch] = []
    real_launch = sandboxlaunch.launch

    def spy(*args: Any, **kwargs: Any) -> sandboxlaunch.Launch:
        launched.append(real_launch(*args, **kwargs))
        return launched[-1]

    monkeypatch.setattr(sandboxlaunch, "launch", spy)
    box = Sandbox(home / "project")
    result = await sh(box, PROC)
    assert not result.is_error, result.text
    seen = result.text.split("\n[exit code")[0]  # what the command read, not the notes after it
    assert "--args" in seen and "/proc/[0-9]*" in seen, "bubblewrap's command line was read"
    for name in (".aws", ".pgpass", ".netrc", ".ssh", "prod.pem", "agent-shell-launch", "--ro-bind"):
        assert name not in seen, (name, seen)
    assert "deploy/prod.pem" in result.text, "the secret file was hidden all the same (the note names it)"
    [started] = launched
    assert not exists(started.folder) and not started.fds, "the private folder and descriptors are gone"


@pytest.mark.parametrize("when", ["after listing", "after the command line was made"])
async def test_a_hidden_path_that_vanishes_before_bubblewrap_starts_does_not_fail_the_command(
    home: Path, when: str
) -> None:
    """A path listed for hiding that vanished before bubblewrap started failed the
    command ("Can't mkdir … Read-only file system"; seen between parallel temporary
    homes). Gone after listing: not bound. Gone after the command line was made:
    bubblewrap fails before the command starts, and the sandbox is set up again once.
    A command that only says what bubblewrap says is not run twice."""
    require_sandbox()
    folder, file = home / "vanishing", home / "vanishing.txt"

    class Vanishing(Sandbox):
        def hidden_paths(self) -> list[Path]:
            found = super().hidden_paths()
            if when == "after listing":
                self.remove()
            return found

        def wrap(self, argv: Any, **kwargs: Any) -> list[str]:
            args = super().wrap(argv, **kwargs)
            if when != "after listing":
                self.remove()
            return args

        def remove(self) -> None:
            shutil.rmtree(folder, ignore_errors=True)
            file.unlink(missing_ok=True)

    folder.mkdir()
    file.write_text("x")
    box = Vanishing(home / "project", hidden=[folder, file])
    result = await sh(box, "echo ran >> ran.txt; echo ok")
    assert not result.is_error, result.text
    assert (home / "project" / "ran.txt").read_text() == "ran\n", "the command ran once"
    assert ("set up again" in result.text) == (when != "after listing"), result.text
    lie = "echo ran >> lied.txt; echo \"bwrap: Can't mkdir /x: nope\" >&2; exit 1"
    liar = await sh(Sandbox(home / "project"), lie)
    assert liar.is_error and liar.details["exit_code"] == 1
    assert (home / "project" / "lied.txt").read_text() == "ran\n", "a command that failed is not run again"
    assert "set up again" not in liar.text


async def test_a_blocked_workspace_socket_is_named_with_the_line_that_opens_it(home: Path) -> None:
    """K13 left a blocked workspace socket failing with "Connection refused" and no word
    of the sandbox: the user would look for a database that is down. The result names
    the socket and the config line that opens it (not the network, which would not help);
    a command that does not touch it, or a sandbox where it is open, says nothing. A
    server that bound its socket by a relative name (the kernel lists it so) is covered too."""
    require_sandbox()
    where = home / "project" / "run" / ".s.PGSQL.5432"
    where.parent.mkdir()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(where))
    listener.listen()
    relative = _listen_relative(home / "project", "run/rel.sock")
    try:
        box = Sandbox(home / "project")
        refused = await sh(box, CONNECT + "run/.s.PGSQL.5432; exit 2")
        by_name = await sh(box, CONNECT + "run/rel.sock")
        quiet = await sh(box, "echo hi")
        box = Sandbox(home / "project", sockets=["run/.s.PGSQL.5432"])
        opened = await sh(box, CONNECT + "run/.s.PGSQL.5432")
    finally:
        listener.close()
        relative.kill()
        relative.wait()
    assert "REFUSED" in refused.text, refused.text
    assert "blocked the unix sockets run/.s.PGSQL.5432, run/rel.sock in the workspace" in refused.text
    assert '[sandbox] sockets = ["run/.s.PGSQL.5432"]' in refused.text, refused.text
    assert "network=true" not in refused.text, refused.text
    assert "REFUSED" in by_name.text and "CONNECTED" not in by_name.text, by_name.text
    assert "socket" not in quiet.text, quiet.text
    assert "CONNECTED" in opened.text and "blocked" not in opened.text, opened.text
