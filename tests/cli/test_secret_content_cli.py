"""Finding S3 through the real console script and bubblewrap: files whose names say
nothing but whose content is a credential (a service-account key, Rails' database.yml
and Maven's settings.xml with passwords, a ``.env`` saved without its dot) printed to the
model by a sandboxed command in auto mode, unasked; read_file showed them unasked."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli

KEY = ('{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvSAKEYBODY\\n'
       '-----END PRIVATE KEY-----\\n", "client_email": "a@p.iam.gserviceaccount.com"}\n')
FILES = {
    "myproj-1a2b3c.json": KEY,
    "config/database.yml": "production:\n  adapter: postgresql\n  password: Zq7pL0ngProdPass\n",
    "settings.xml": "<settings><server><id>x</id><password>MvnDeployPass42</password></server></settings>\n",
    "sentry.properties": "defaults.org=acme\nauth.token=sntrysSentryTok3n99\n",
    "env.production": "API_KEY=sk-NODOT-EXFIL-1234\n",
}
PLAIN = {"package.json": '{"name": "plain-json-readable"}\n',
         "gradle.properties": "org.gradle.jvmargs=-Xmx2g-plain-gradle\n"}
LEAKS = ("MIIEvSAKEYBODY", "Zq7pL0ngProdPass", "MvnDeployPass42", "sntrysSentryTok3n99",
         "sk-NODOT-EXFIL-1234")


def _auto_workspace(cli_env: dict[str, str], workspace: Path, files: dict[str, str]) -> None:
    """Auto mode in the user's config, and ``files`` written into the workspace."""
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[permissions]\nmode = "auto"\n')
    for rel, text in files.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)


def test_credentials_under_plain_names_are_hidden_from_commands_and_read_file_asks(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    _auto_workspace(cli_env, workspace, {**FILES, **PLAIN})
    # names no file (a command line naming one asks): what a model told to look around runs
    command = "find . -type f | sort | xargs cat; grep -r password . ; echo end-of-command"
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}, "id": "c1"},
                             {"name": "read_file", "args": {"path": "settings.xml"}, "id": "c2"}]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--approve", "never", "--no-session",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    for leaked in LEAKS:
        assert leaked not in r.stdout, r.stdout
    assert "end-of-command" in r.stdout  # the command ran, unasked
    assert "plain-json-readable" in r.stdout and "plain-gradle" in r.stdout  # the rest reads as ever
    events = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    asked = [e["call_id"] for e in events if e.get("type") == "ApprovalRequested"]
    assert asked == ["c2"]  # read_file asked (and --approve never refused it); the command ran unasked
    for rel, text in FILES.items():  # the user's files are untouched
        assert (workspace / rel).read_text() == text


OPENSSH = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
           "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
           "QyNTUxOQAAACNOTESKEYBODYNOTESKEYBODYNOTESKEYBODYNOTESKEYBODYAAAAmHNlY3\n"
           "-----END OPENSSH PRIVATE KEY-----\n")
PUTTY = ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n"
         "AAAAC3NzaC1lZDI1NTE5AAAAIPUBLICPART\nPrivate-Lines: 1\nAAAAIPUTTYPRIVATEBODY0123456789\n")
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAmdPEMKEYBODYmdPEMKEYBODYmdPEMKEYBODYmdPEMKEYBODY\n"
       "-----END RSA PRIVATE KEY-----\n")
KEYED = {
    "notes.txt": "deploy notes\n\n" + OPENSSH,
    "config.yaml": "deploy:\n  host: x\n  key: |\n" + "".join(f"    {line}\n" for line in PEM.splitlines()),
    "docs/servers.md": "# Servers\n\nThe PuTTY key:\n\n" + PUTTY,
}
NAMED_ONLY = {  # a document naming the format, and a test's fixture in source code: read as ever
    "docs/keys.md": "A key starts with `-----BEGIN RSA PRIVATE KEY-----`: keep it out of git. MD-READABLE\n",
    "tests/test_keys.py": f"FIXTURE = '''{PEM}'''  # PY-READABLE\n",
}


def test_a_private_key_in_a_file_of_any_other_name_is_hidden_from_commands_and_read_file_asks(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """Round 18: a private key block (PEM, OpenSSH, PuTTY) pasted into notes.txt, a YAML
    config or a Markdown page was read by name only, and printed to the model unasked."""
    require_sandbox()
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[permissions]\nmode = "auto"\n')
    for rel, text in {**KEYED, **NAMED_ONLY}.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)
    command = "find . -type f | sort | xargs cat; echo end-of-command"
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}, "id": "c1"},
                             {"name": "read_file", "args": {"path": "notes.txt"}, "id": "c2"}]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--approve", "never", "--no-session",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    for leaked in ("NOTESKEYBODY", "PEMKEYBODY", "PUTTYPRIVATEBODY", "deploy notes", "host: x"):
        assert leaked not in r.stdout, r.stdout
    assert "end-of-command" in r.stdout and "MD-READABLE" in r.stdout and "PY-READABLE" in r.stdout
    events = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert [e["call_id"] for e in events if e.get("type") == "ApprovalRequested"] == ["c2"]
    for rel, text in KEYED.items():
        assert (workspace / rel).read_text() == text


def test_the_grep_tool_leaves_out_files_whose_content_is_a_credential(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """grep over a tree ran unasked and left out secret files by name only: a key pasted
    into notes.txt, or a service-account key saved as myproj-1a2b3c.json, was printed."""
    for rel, text in {**KEYED, "myproj-1a2b3c.json": KEY, "docs/plain.md": "KEYBODY-PLAIN\n"}.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)
    call = {"name": "grep", "args": {"pattern": "KEYBODY|PRIVATE", "path": "."}, "id": "g"}
    turns = [{"tool_calls": [call]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--approve", "never", "--no-session",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    for leaked in ("NOTESKEYBODY", "PEMKEYBODY", "PUTTYPRIVATEBODY", "MIIEvSAKEYBODY"):
        assert leaked not in r.stdout, r.stdout
    assert "KEYBODY-PLAIN" in r.stdout and "4 files that usually hold secrets" in r.stdout, r.stdout


def test_a_key_a_command_writes_into_an_existing_file_is_hidden_from_the_next_command(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """The sandbox's walk keeps each folder's listing by the folder's ctime, which a write
    into a file does not move: a key a command wrote into ``notes.txt`` in place (same size,
    its mtime put back) was read by the next command, unasked, while grep and read_file
    refused it. The key comes from a source file (not read for keys: a test's fixture)."""
    require_sandbox()
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[permissions]\nmode = "auto"\n')
    (workspace / "fixture.py").write_text(OPENSSH)
    (workspace / "notes.txt").write_text("x" * len(OPENSSH) + "NOTES-TAIL-TEXT\n")
    write = ('t=$(stat -c %y notes.txt); dd if=fixture.py of=notes.txt conv=notrunc status=none; '
             'touch -d "$t" notes.txt; echo wrote-it')
    calls = [{"name": "run_shell", "args": {"command": write}, "id": "c1"},
             {"name": "run_shell", "args": {"command": "grep -r TAIL . ; echo end-of-second"}, "id": "c2"}]
    turns = [{"tool_calls": calls[:1]}, {"tool_calls": calls[1:]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--approve", "never", "--no-session",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    ends = {e["call_id"]: json.dumps(e.get("result")) for e in map(json.loads, r.stdout.splitlines())
            if e.get("type") == "ToolExecutionEnd"}
    assert "wrote-it" in ends["c1"] and "end-of-second" in ends["c2"], r.stdout  # both ran, unasked
    notes = (workspace / "notes.txt").read_text()
    assert notes.startswith("-----BEGIN OPENSSH PRIVATE KEY-----") and len(notes) == len(OPENSSH) + 16
    assert "NOTES-TAIL-TEXT" not in ends["c2"], ends["c2"]  # notes.txt read as empty


MANIFESTS = {  # finding A13: where Kubernetes, compose, .NET and Ansible projects keep credentials
    "k8s/db-secret.yaml": ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n"
                           "  password: S2I4M2hkUHEyTG1YejdSdFp6\nstringData:\n"
                           "  api-token: K8s83hdPq2LmXz7RtZz\n"),
    "docker-compose.yml": "services:\n  db:\n    image: postgres\n    environment:\n"
                          "      POSTGRES_PASSWORD: Dc83hdPq2LmXz7RtZz\n",
    "deploy/compose.yaml": "services:\n  db:\n    environment:\n      - MYSQL_PASSWORD=Dm83hdPq2LmXz7RtZz\n",
    "appsettings.json": ('{"ConnectionStrings": {"Default": '
                         '"Server=db;User Id=sa;Password=As83hdPq2LmXz7RtZz;"}}\n'),
    "ansible/group_vars/all.yml": "vault_password: Av83hdPq2LmXz7RtZz\n",
    "web.config": ('<configuration><connectionStrings><add name="db" '  # finding C10: the .NET Framework twin
                   'connectionString="Server=db;User Id=sa;Password=Wc83hdPq2LmXz7RtZz;" />'
                   "</connectionStrings></configuration>\n"),
    "k8s/list.yaml": ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  stringData:\n"
                      "    token: Kl83hdPq2LmXz7RtZz\n"),
    "chart/values.yaml": "postgresql:\n  auth:\n    postgresPassword: Hv83hdPq2LmXz7RtZz\n",
}
MANIFEST_LEAKS = ("S2I4M2hkUHEyTG1YejdSdFp6", "K8s83hdPq2LmXz7RtZz", "Dc83hdPq2LmXz7RtZz",
                  "Dm83hdPq2LmXz7RtZz", "As83hdPq2LmXz7RtZz", "Av83hdPq2LmXz7RtZz", "Wc83hdPq2LmXz7RtZz",
                  "Kl83hdPq2LmXz7RtZz", "Hv83hdPq2LmXz7RtZz")
MANIFESTS_PLAIN = {  # a deployment, a compose file taking its password from the environment, a tutorial
    "k8s/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: DEPLOY-READABLE\n",
    "other/docker-compose.yml": "services:\n  db:\n    environment:\n"
                                "      POSTGRES_PASSWORD: ${PG_PASSWORD}  # COMPOSE-READABLE\n",
    "docs/k8s.md": "A Secret looks like:\n\nkind: Secret\ndata:\n  password: TUTORIAL-READABLE\n",
}


def test_kubernetes_secrets_compose_and_connection_string_passwords_are_hidden_and_read_file_asks(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    _auto_workspace(cli_env, workspace, {**MANIFESTS, **MANIFESTS_PLAIN})
    command = "find . -type f | sort | xargs cat; echo end-of-command"
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}, "id": "c1"},
                             {"name": "read_file", "args": {"path": "k8s/db-secret.yaml"}, "id": "c2"},
                             {"name": "read_file", "args": {"path": "appsettings.json"}, "id": "c3"}]},
             "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--approve", "never", "--no-session",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    for leaked in MANIFEST_LEAKS:
        assert leaked not in r.stdout, leaked
    assert "end-of-command" in r.stdout
    for readable in ("DEPLOY-READABLE", "COMPOSE-READABLE", "TUTORIAL-READABLE"):
        assert readable in r.stdout, readable
    events = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert [e["call_id"] for e in events if e.get("type") == "ApprovalRequested"] == ["c2", "c3"]
