"""Finding D14's tool hooks through the console script and bubblewrap: the scripts pixi's
``[activation]`` lists and devbox.json's ``shell.init_hook`` names (run in the user's shell
at ``pixi shell``/``devbox shell`` and, through an ``.envrc``'s hook, at every ``cd``), and
devbox.json itself when it has an init_hook, cannot be rewritten by ``auto`` mode's unasked
commands; a change of pixi's ``[activation]`` table (a new script, ``BASH_ENV``) is set back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_hook_configs_cli import run

PIXI = ('[project]\nname = "x"\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n\n'
        '[activation]\nscripts = ["scripts/act.sh"]\n')
DEVBOX = '{"packages": [], "shell": {"init_hook": ["source scripts/dbx.sh"]}}\n'


def test_what_pixi_activation_and_devbox_init_hook_run_stays_as_it_was(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    envrc = 'eval "$(pixi shell-hook)"\neval "$(devbox generate direnv --print-envrc)"\n'
    (workspace / ".envrc").write_text(envrc)
    (workspace / "pixi.toml").write_text(PIXI)
    (workspace / "devbox.json").write_text(DEVBOX)
    (workspace / "scripts").mkdir()
    for name in ("act.sh", "dbx.sh", "other.sh"):
        (workspace / "scripts" / name).write_text("export A=1\n")
    command = ("for f in scripts/act.sh scripts/dbx.sh scripts/other.sh; do echo id >> $f; done; "
               "sed -i 's/init_hook\": \\[/init_hook\": [\"id\", /' devbox.json; "
               "printf '[activation.env]\\nBASH_ENV = \"scripts/other.sh\"\\n' >> pixi.toml; true")
    run(run_cli, script, command)
    for name in ("act.sh", "dbx.sh"):
        assert (workspace / "scripts" / name).read_text() == "export A=1\n", name
    assert (workspace / "devbox.json").read_text() == DEVBOX
    assert "BASH_ENV" not in (workspace / "pixi.toml").read_text()
    assert (workspace / "scripts" / "other.sh").read_text().endswith("id\n")  # named by nothing
