"""Finding D6's rest through the console script and bubblewrap: a hook that moves into a
folder it spells through a command (``cd "$(git rev-parse --show-toplevel)/tools"``,
``cd "$(dirname "$0")/../.."``, husky's ``cd "$(dirname -- "$0")/../web"``), chained ``cd``s,
and lefthook's ``root:`` key (a command run in that folder): the script it runs there cannot
be rewritten by ``auto`` mode's unasked commands; the user's next commit would run it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_hook_configs_cli import SCRIPT, committed, run
from .test_named_scripts_cli import PLANT, kept


def test_scripts_behind_a_known_folder_a_chained_cd_or_lefthooks_root_stay_as_they_were(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    texts = {"tools/top.sh": SCRIPT, "scripts/chained.sh": SCRIPT, "web/hk.sh": SCRIPT,
             "frontend/scripts/lint.sh": SCRIPT, "scripts/other.sh": SCRIPT,
             ".husky/pre-commit": 'cd "$(dirname -- "$0")/../web" && ./hk.sh\n',
             "lefthook.yml": 'pre-commit:\n  commands:\n    lint:\n      root: "frontend/"\n'
                             '      run: ./scripts/lint.sh\n'}
    committed(workspace, texts)
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text('#!/bin/sh\ncd "$(git rev-parse --show-toplevel)/tools" && ./top.sh\n'
                    'cd "$(dirname "$0")/../.." && cd scripts && ./chained.sh\n')
    hook.chmod(0o755)
    run(run_cli, script, PLANT)
    kept(workspace, ["tools/top.sh", "scripts/chained.sh", "web/hk.sh", "frontend/scripts/lint.sh"], texts)
    assert (workspace / "scripts" / "other.sh").read_text().endswith("touch PWNED\n")  # named by nothing


def test_a_script_behind_a_cd_the_reader_cannot_follow_stays_as_it_was(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """``cd "$DIR" && ./lint.sh``: where it leads is known only when it runs, so the file the
    words name in each folder one level down is guarded (more kept, none missed)."""
    require_sandbox()
    texts = {"frontend/lint.sh": SCRIPT, "frontend/other.sh": SCRIPT,
             ".husky/pre-commit": 'DIR=frontend\ncd "$DIR" && ./lint.sh\n'}
    committed(workspace, texts)
    run(run_cli, script, PLANT)
    kept(workspace, ["frontend/lint.sh"], texts)
    assert (workspace / "frontend" / "other.sh").read_text().endswith("touch PWNED\n")  # named by nothing
