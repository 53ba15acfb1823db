"""Finding Q26 through the console script: the trust question for a project's
``allow = ["fetch_url(domain:*.github.io)"]`` said the rule allows requests to
``*.github.io`` with no question, but not what ``--allow``, the config and "always" say
of the same rule: every name there is anyone's, ``attacker.github.io`` included. The
one place the rule comes from someone else now says it too."""

from __future__ import annotations

from pathlib import Path

from .conftest import RunCli


def test_the_trust_question_warns_of_a_wildcard_on_a_shared_host(run_cli: RunCli, workspace: Path) -> None:
    project = workspace / ".agent-shell"
    project.mkdir()
    (project / "permissions.toml").write_text(
        'allow = ["fetch_url(domain:*.github.io)", "fetch_url(domain:docs.python.org)"]\n')
    r = run_cli("trust")  # no terminal: shows, does not trust
    assert r.returncode == 2, r.stderr
    lines = [line.strip() for line in r.stdout.splitlines()]
    shared = next(line for line in lines if "allow fetch_url(domain:*.github.io)" in line)
    assert shared.startswith("! ") and "attacker.github.io" in shared, r.stdout
    assert "Name the host itself instead (domain:yourname.github.io)" in shared, r.stdout
    own = next(line for line in lines if "allow fetch_url(domain:docs.python.org)" in line)
    assert "attacker" not in own and "Warning" not in own, r.stdout  # one host: no warning
