"""Finding D14 through the console script and bubblewrap: the files an ``.envrc`` runs by
``eval "$(cat F)"``, ``source <(cat F)``, after a ``cd DIR &&``, and through a glob in a
``for f in DIR/*.sh; do source "$f"; done`` loop cannot be rewritten (nor a new one made in
that loop's folder) by ``auto`` mode's unasked commands: direnv runs them, as the user, the
next time they enter the folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_hook_configs_cli import run

ENVRC = ('eval "$(cat tools/x.sh)"\ncd sub && source y.sh; cd ..\n'
         'for f in tools/rc.d/*.sh; do source "$f"; done\nsource <(cat tools/p.sh)\n')
NAMED = ["tools/x.sh", "sub/y.sh", "tools/rc.d/a.sh", "tools/p.sh"]


def test_what_an_envrc_runs_through_eval_cat_a_cd_or_a_glob_loop_stays_as_it_was(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    (workspace / ".envrc").write_text(ENVRC)
    for name in [*NAMED, "other.sh", "sub/z.sh"]:
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text("export A=1\n")
    plant = " ".join(f"{n} tools/rc.d/b.sh other.sh sub/z.sh" if n == NAMED[-1] else n for n in NAMED)
    run(run_cli, script, f"for f in {plant}; do echo id >> $f; done; true")
    for name in NAMED:
        assert (workspace / name).read_text() == "export A=1\n", name
    assert not (workspace / "tools" / "rc.d" / "b.sh").exists()  # a new file the loop would source
    assert (workspace / "other.sh").read_text().endswith("id\n")  # named by nothing
    assert (workspace / "sub" / "z.sh").read_text().endswith("id\n")
