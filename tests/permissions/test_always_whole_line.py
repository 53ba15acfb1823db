""""Always" for a command that runs an arbitrary program elsewhere (a container, a pod,
another machine, a project runner) keeps the whole line, as it does for interpreters
(finding G15's residual: ``docker run --rm alpine ls`` proposed ``docker run:*``, any
image with any host mount). A kept line is exact: its ``*`` and ``?`` are not wildcards."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.core.tools import Tool
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    return tmp_path / "ws"


@pytest.fixture
def sh(root: Path) -> Tool:
    return {t.name: t for t in builtin_tools(Workspace(root))}["run_shell"]


def suggest(root: Path, sh: Tool, line: str) -> tuple[str, ...]:
    return PermissionPolicy(root, load_project=False).suggest(sh, {"command": line})


def allowed_by(root: Path, sh: Tool, rule: str, line: str) -> str:
    rules, problems = parse_rules({"allow": [rule]}, "user")
    assert not problems
    return PermissionPolicy(root, user_rules=rules, load_project=False).decide(sh, {"command": line}).action


@pytest.mark.parametrize("line", [
    "docker run --rm alpine ls", "docker exec web ls", "docker compose run app pytest",
    "docker container run alpine ls", "podman run -v /:/host alpine ls", "nerdctl run alpine ls",
    "kubectl exec -it pod -- ls", "kubectl run x --image=alpine", "kubectl debug node/x",
    "ssh host ls", "ssh ls", "ssh -p 22 host uptime", "sudo apt install x", "mosh host",
    "lxc exec box ls", "vagrant ssh -c ls", "gcloud compute ssh vm", "uv run --with rich x.py",
    "uvx ruff check", "docker -H tcp://h ps", "flatpak run org.x.App", "nix run nixpkgs#hello",
])
def test_always_keeps_the_whole_line_for_what_runs_any_program(root: Path, sh: Tool, line: str) -> None:
    assert suggest(root, sh, line) == (f"run_shell({line})",)
    rule = f"run_shell({line})"
    assert allowed_by(root, sh, rule, line) == "allow"  # the kept rule works for the call approved
    assert allowed_by(root, sh, rule, line.replace(" ls", " rm -rf /host")) == ("allow" if " ls" not in line
                                                                                 else "ask")


@pytest.mark.parametrize(("line", "rule"), [
    ("docker ps -a", "run_shell(docker ps:*)"), ("docker logs web", "run_shell(docker logs:*)"),
    ("kubectl get pods", "run_shell(kubectl get:*)"),
    ("kubectl describe pod x", "run_shell(kubectl describe:*)"),
    ("uv run pytest -q", "run_shell(uv run pytest:*)"),
    ("poetry run ruff check .", "run_shell(poetry run ruff:*)"),
    ("bundle exec rspec", "run_shell(bundle exec rspec:*)"), ("git status", "run_shell(git status:*)"),
    ("npm test", "run_shell(npm test:*)"), ("uv sync", "run_shell(uv sync:*)"),
])
def test_what_only_looks_or_names_its_program_keeps_a_prefix(
    root: Path, sh: Tool, line: str, rule: str
) -> None:
    assert suggest(root, sh, line) == (rule,)
    assert allowed_by(root, sh, rule, line) == "allow"


def test_a_kept_line_is_exact_its_wildcards_are_literal(root: Path, sh: Tool) -> None:
    line = "find . -name '*.py'"
    (rule,) = suggest(root, sh, line)
    assert rule == "run_shell(find . -name '[*].py')"
    assert allowed_by(root, sh, rule, line) == "allow"
    # as a wildcard, `*` would have covered a -delete slipped in between
    assert allowed_by(root, sh, rule, "find . -name 'x' -delete -name '.py'") == "ask"
    assert allowed_by(root, sh, rule, "find . -name 'a.py'") == "ask"
    docker = "docker run --rm alpine sh -c 'ls /x?'"
    (rule,) = suggest(root, sh, docker)
    assert allowed_by(root, sh, rule, docker) == "allow"
    assert allowed_by(root, sh, rule, "docker run --rm alpine sh -c 'ls /xy'") == "ask"
