"""An MCP tool's path arguments meet the checks a built-in file tool's ``path`` does,
whatever the server named them (``paths``, ``file``, ``uri: file://…``, ``source``…):
secret files and deny rules on reading (J16), what runs later and the workspace
boundary, past allow rules (J14), the boundary for read-only tools too (J15)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from shell.core.tools import Tool
from shell.permissions.mcppaths import mcp_paths
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.tools.mcp import McpTool
from shell.tools.mcp_config import McpServerSpec
from shell.tools.mcp_identity import ToolIdentities

READS = {"readOnlyHint": True, "openWorldHint": False}
WRITES = {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "secrets").mkdir(parents=True)
    (ws / ".git").mkdir()
    (ws / ".env").write_text("API_KEY=sk-live\n")
    (ws / "README").write_text("readme\n")
    (ws / "secrets" / "plan.txt").write_text("plan\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("other project\n")
    return ws


def fs_tool(name: str, annotations: dict[str, Any], schema: dict[str, Any] | None = None) -> McpTool:
    server = SimpleNamespace(spec=McpServerSpec("fs", origin="config"), identities=ToolIdentities())
    info = {"name": name, "annotations": annotations,
            "inputSchema": schema or {"type": "object", "properties": {}}}
    return McpTool(server, info)  # type: ignore[arg-type]


def policy(root: Path, *, allow: list[str] = (), deny: list[str] = (),  # type: ignore[assignment]
           **kw: Any) -> PermissionPolicy:
    rules, problems = parse_rules({"allow": list(allow), "deny": list(deny)}, "cli")
    assert not problems
    return PermissionPolicy(root, cli_rules=rules, user_config=root.parent / "config.toml", **kw)


def action(p: PermissionPolicy, t: Tool, **args: Any) -> str:
    return p.decide(t, args).action


def test_path_arguments_are_found_under_any_path_like_name_and_file_uris_decoded() -> None:
    args = {"paths": ["a", "./b"], "file": "c", "sourcePath": "d", "out_dir": "e",
            "uri": "file:///tmp/x%20y/.env", "link": "https://example.com/.env", "query": "f",
            "edits": [{"path": "g", "text": "h"}], "note": "file:.env", "count": 3}
    assert mcp_paths(args) == ["a", "./b", "c", "d", "e", "/tmp/x y/.env", "g", ".env"]
    schema = {"properties": {"where": {"type": "string", "format": "uri"},
                             "many": {"type": "array", "items": {"format": "path"}}}}
    assert mcp_paths({"where": "w", "many": ["m"], "other": "o"}, schema) == ["w", "m"]


# -- J16: secret files and deny rules on reading ------------------------------------------


def test_a_secret_file_under_any_argument_name_asks(root: Path) -> None:
    p, allowed = policy(root), policy(root, allow=["fs__*"])
    cat, many, uri = fs_tool("cat", READS), fs_tool("cat_many", READS), fs_tool("cat_uri", READS)
    for t, args in [(cat, {"file": ".env"}), (many, {"paths": ["README", "./.env"]}),
                    (uri, {"uri": f"file://{root}/.env"}), (uri, {"uri": f"file://{root}/%2Eenv"})]:
        assert p.decide(t, args).action == "ask", args
        assert ".env" in p.decide(t, args).reason
        assert allowed.decide(t, args).action == "ask", args  # a wildcard rule does not reach secrets
    assert action(p, cat, file="README") == "allow"  # a read-only tool of a configured server
    assert action(p, many, paths=["README"]) == "allow"
    assert action(p, uri, uri="https://example.com/.env") == "allow"  # not a local path


def test_a_deny_on_reading_holds_for_every_mcp_argument_name(root: Path) -> None:
    p = policy(root, deny=["read_file(secrets/**)"], allow=["fs__*"])
    cat, many, write = fs_tool("cat", READS), fs_tool("cat_many", READS), fs_tool("write_file", WRITES)
    for t, args in [(cat, {"file": "secrets/plan.txt"}), (many, {"paths": ["README", "secrets/plan.txt"]}),
                    (write, {"path": "secrets/plan.txt", "content": "x"})]:
        verdict = p.decide(t, args)
        assert verdict.action == "deny", args
        assert "secrets/plan.txt" in verdict.reason and "deny read_file(secrets/**)" in verdict.reason
    assert action(p, cat, file="README") == "allow"


def test_a_write_capable_mcp_tool_given_a_secret_file_asks_even_under_an_allow_rule(root: Path) -> None:
    write = fs_tool("write_file", WRITES)
    verdict = policy(root, allow=["fs__*"]).decide(write, {"file": ".env", "content": "x"})
    assert verdict.action == "ask" and "may read it" in verdict.reason
    assert action(policy(root, mode="bypass"), write, file=".env", content="x") == "allow"


def test_more_paths_than_are_checked_ask_rather_than_pass_unchecked(root: Path) -> None:
    many = fs_tool("cat_many", READS)
    paths = ["README"] * 200 + [".env"]
    assert action(policy(root), many, paths=[f"{p}{i}" for i, p in enumerate(paths)]) == "ask"


# -- J14: what runs later and the workspace boundary, for tools that may write --------------


def test_a_write_capable_mcp_tool_touching_what_runs_later_asks_whatever_a_rule_says(root: Path) -> None:
    write = fs_tool("write_file", WRITES)
    move = fs_tool("move_file", WRITES)
    for p in (policy(root, allow=["fs__*"]), policy(root, allow=["fs__write_file", "fs__move_file"],
                                                     mode="accept-edits"), policy(root, mode="auto")):
        for args in [{"path": ".git/config", "content": "[core]\n\tfsmonitor = id"},
                     {"path": ".git/hooks/pre-commit"}, {"file": ".envrc"},
                     {"paths": ["README", ".vscode/tasks.json"]}, {"uri": f"file://{root}/.git/config"}]:
            verdict = p.decide(write, args)
            assert verdict.action == "ask", (p.mode, args)
            assert verdict.reason.startswith("fs__write_file would change "), verdict.reason
        assert p.decide(move, {"source": "README", "destination": ".envrc"}).action == "ask"
    assert action(policy(root, allow=["fs__*"]), write, path="notes.txt", content="x") == "allow"
    assert action(policy(root, mode="bypass"), write, path=".git/config", content="x") == "allow"


def test_a_write_capable_mcp_tool_reaching_outside_the_workspace_asks_under_an_allow_rule(root: Path) -> None:
    write, move = fs_tool("write_file", WRITES), fs_tool("move_file", WRITES)
    p = policy(root, allow=["fs__*"])
    home = root.parent / "home" / ".bashrc"
    for t, args in [(write, {"path": str(home), "content": "x"}), (write, {"path": "../other/planted.txt"}),
                    (write, {"filename": "sub/../../other/x"}), (write, {"uri": f"file://{home}"}),
                    (move, {"source": "README", "destination": str(home)})]:
        verdict = p.decide(t, args)
        assert verdict.action == "ask", args
        assert "outside the workspace" in verdict.reason
    p.added_dirs.append(root.parent / "other")
    assert action(p, write, path="../other/planted.txt") == "allow"  # a directory added to the workspace
    assert action(policy(root, mode="bypass"), write, path=str(home)) == "allow"


# -- J15: the boundary for read-only tools too -------------------------------------------------


def test_a_read_only_mcp_tool_reading_outside_the_workspace_asks_as_read_file_does(root: Path) -> None:
    read, many = fs_tool("read_file", READS), fs_tool("cat_many", READS)
    other = root.parent / "other" / "notes.txt"
    for p in (policy(root), policy(root, allow=["fs__*"]), policy(root, mode="auto")):
        for t, args in [(read, {"path": str(other)}), (read, {"path": "../other/notes.txt"}),
                        (many, {"paths": ["README", "../other/notes.txt"]}), (read, {"path": f"file://{other}"})]:
            verdict = p.decide(t, args)
            assert verdict.action == "ask", (p.mode, args)
            assert f"would read {other}" in verdict.reason or "read ../other/notes.txt (" in verdict.reason
            assert "outside the workspace" in verdict.reason
        assert action(p, read, path="README") == "allow"  # readOnlyHint lowers the ask inside it
    assert action(policy(root, mode="bypass"), read, path=str(other)) == "allow"


# -- write rules: `deny write_file(...)` holds for an MCP tool's paths under any name --------------


ENV_ARGS = [{"path": ".env"}, {"file": ".env"}, {"target": "sub/.env"}, {"dest": ".env"},
            {"paths": ["README", "sub/.env"]}, {"edits": [{"file": "sub/.env", "text": "x"}]},
            {"options": {"output": {"filename": ".env"}}}]


@pytest.mark.parametrize("deny", ["write_file(**/.env)", "edit_file(**/.env)", "fs__write_file(**/.env)",
                                  "fs__*(**/.env)"])
@pytest.mark.parametrize("mode", ["default", "auto", "bypass"])
def test_a_deny_on_writing_stops_an_mcp_writer_whatever_it_calls_the_path(
    root: Path, deny: str, mode: str
) -> None:
    write = fs_tool("write_file", WRITES)
    p = policy(root, deny=[deny], allow=["fs__*"], mode=mode)
    for args in [*ENV_ARGS, {"uri": f"file://{root}/.env"}, {"uri": f"file://{root}/sub/%2Eenv"}]:
        verdict = p.decide(write, {**args, "content": "API_KEY=mine"})
        assert verdict.action == "deny", (mode, args, verdict.reason)
        assert f"deny {deny}" in verdict.reason and "was not run" in verdict.reason
    p.asking = False  # approvals off: deny rules hold
    assert p.decide(write, {"target": ".env"}).action == "deny"
    assert action(p, write, target="notes.txt", content="x") == "allow"


def test_a_write_rule_stops_an_untrusted_servers_read_only_claim_but_not_a_trusted_reader(root: Path) -> None:
    claims = fs_tool("cat", READS)
    claims.hints_trusted = False  # a server the user did not configure: its readOnlyHint is a claim
    trusted = fs_tool("cat", READS)
    p = policy(root, deny=["write_file(secrets/**)"], allow=["fs__*"])
    assert p.decide(claims, {"file": "secrets/plan.txt"}).action == "deny"
    assert p.decide(trusted, {"file": "secrets/plan.txt"}).action == "allow"  # reading is not writing


def test_an_allow_rule_on_an_mcp_tools_paths_covers_a_call_only_if_it_covers_every_path(root: Path) -> None:
    write = fs_tool("copy", WRITES)
    p = policy(root, allow=["fs__copy(docs/**)"])
    assert action(p, write, source="docs/a.md", destination="docs/b.md") == "allow"
    verdict = p.decide(write, {"source": "docs/a.md", "destination": "src/b.py"})
    assert verdict.action == "ask" and "allowed by" not in verdict.reason


def test_too_many_paths_run_in_bypass_only_while_no_deny_rule_could_cover_one(root: Path) -> None:
    write = fs_tool("write_many", WRITES)
    many = [f"f{i}.txt" for i in range(100)] + [".env"]
    assert action(policy(root, mode="bypass"), write, paths=many) == "allow"
    verdict = policy(root, mode="bypass", deny=["write_file(**/.env)"]).decide(write, {"paths": many})
    assert verdict.action == "ask" and "not checked one by one" in verdict.reason
    assert action(policy(root, mode="plan"), write, paths=many) == "deny"  # plan still refuses writing


# -- approvals off: an MCP tool still meets the workspace's boundary --------------------------------


def test_with_approvals_off_an_mcp_tool_reaching_outside_the_workspace_still_asks(root: Path) -> None:
    """A built-in tool's path outside meets the fence at run time whatever the policy said;
    an MCP tool's server has no fence, so the policy's question is kept (not bypass)."""
    write, read = fs_tool("write_file", WRITES), fs_tool("read_file", READS)
    home = root.parent / "home" / ".bashrc"
    for p in (policy(root), policy(root, allow=["fs__*"]), policy(root, mode="auto")):
        p.asking = False
        notes = str(root.parent / "other" / "notes.txt")
        for t, args in [(write, {"path": str(home), "content": "x"}), (write, {"dest": "../other/x"}),
                        (write, {"uri": f"file://{home}"}), (read, {"file": notes}),
                        (write, {"paths": [f"f{i}" for i in range(100)]})]:
            verdict = p.decide(t, args)
            assert verdict.action == "ask", (p.mode, args, verdict.reason)
            assert "Approvals are off" in verdict.reason
        # inside the workspace, approvals off means what it says, as for the built-in tools
        assert action(p, write, path=".git/config", content="x") == "allow"
        assert action(p, write, file="notes.txt", content="x") == "allow"
    bypass = policy(root, mode="bypass")  # bypass uses paths outside on purpose (README: modes)
    bypass.asking = False
    assert action(bypass, write, path=str(home), content="x") == "allow"


def test_a_rule_naming_the_path_argument_covers_every_path_an_mcp_tool_is_given(root: Path) -> None:
    """`path=` in a rule is the path, whatever the server calls it: `deny fs__*(path=**/.env)`
    stops `file: .env` and a `.env` given beside an innocent `path`."""
    write = fs_tool("copy", WRITES)
    p = policy(root, deny=["fs__*(path=**/.env)"], mode="bypass")
    for args in [{"file": ".env"}, {"path": "notes.txt", "dest": "sub/.env"}, {"uri": f"file://{root}/.env"}]:
        assert action(p, write, **args) == "deny", args
    assert action(p, write, path="notes.txt", dest="b.txt") == "allow"
    allowed = policy(root, allow=["fs__copy(path=docs/**)"])
    assert action(allowed, write, path="docs/a.md", dest="docs/b.md") == "allow"
    assert action(allowed, write, path="docs/a.md", dest="src/b.py") == "ask"
