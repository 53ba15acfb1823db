"""Environments inside the workspace that the user activates later, as themselves:
a virtualenv a sandboxed command creates is kept only as ``python -m venv`` and pip
write it (tester finding K1), and a conda or pixi environment (a folder holding
``conda-meta/``) is guarded like a virtualenv (K7). Against the real bubblewrap and
the real ``python -m venv``."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import sys
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.newvenv import is_shim
from shell.permissions.policy import PermissionPolicy
from shell.permissions.venvpip import pip_wrote
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

from ..sandboxing import require_sandbox
from .later_ws import later_workspace, sh

pytestmark = pytest.mark.anyio

PYTHON = os.path.realpath(sys.executable)
"""The interpreter itself (not this test run's venv), what the sandboxed commands run:
CI's venv is in a clone under /tmp, which the sandbox replaces with an empty one."""

PIP_SHIM = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from pip._internal.cli.main import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""
UV_SHIM = """#!{python}
# -*- coding: utf-8 -*-
import sys
from pytest import console_main
if __name__ == "__main__":
    if sys.argv[0].endswith("-script.pyw"):
        sys.argv[0] = sys.argv[0][:-11]
    elif sys.argv[0].endswith(".exe"):
        sys.argv[0] = sys.argv[0][:-4]
    sys.exit(console_main())
"""
SH_LAUNCHER = """#!/bin/sh
'''exec' "{python}" "$0" "$@"
' '''
# -*- coding: utf-8 -*-
import re
import sys
from black import patched_main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(patched_main())
"""


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-envs-")


def test_console_scripts_as_pip_and_uv_write_them_are_shims_and_nothing_else_is() -> None:
    py = "/p/.venv/bin/python3"
    for template in (PIP_SHIM, UV_SHIM, SH_LAUNCHER):
        assert is_shim(template.format(python=py).encode(), {py}), template
    hostile = [
        PIP_SHIM.format(python="/usr/bin/python3"),  # not the venv's own python
        PIP_SHIM.format(python=py).replace("import re\n", "import os; os.system('id')\n"),
        PIP_SHIM.format(python=py).replace("sys.exit(main())", "sys.exit(__import__('os').system('id'))"),
        PIP_SHIM.format(python=py).replace("re.sub(", "__import__('os').system('id') or re.sub("),
        PIP_SHIM.format(python=py) + "import os\n",
        UV_SHIM.format(python=py).replace('sys.argv[0][:-4]', 'exec("import os")'),
        SH_LAUNCHER.format(python=py).replace("'''exec'", "touch /tmp/x; '''exec'"),
        f"#!{py}\ntouch /tmp/x\n",
        b"\xff\xfe".decode("latin-1"),
    ]
    for text in hostile:
        assert not is_shim(text.encode(), {py}), text


async def test_a_new_virtualenv_keeps_only_what_venv_and_pip_write(ws: Path) -> None:
    """The finding's repro: a hand-made `.venv` (a pyvenv.cfg, an `activate` and a
    `python` that run a planted line) and a real `python -m venv` whose activate got
    a line more. What venv wrote (its python links, the other activate scripts) stays; the
    rest is moved out (a pip shim too: this venv has no pip), and the result says how to put
    it back."""
    require_sandbox()
    pip = PIP_SHIM.format(python=f"{ws}/.venv2/bin/python3")
    (ws.parent / "pip.txt").write_text(pip)
    evil = pip.replace("import re\n", "import os; os.system('touch /tmp/x')\n")
    (ws.parent / "evil.txt").write_text(evil)
    result = await sh(ws, "mkdir -p .venv/bin && printf 'home = /usr/bin\\n' > .venv/pyvenv.cfg && "
                          "printf 'touch /tmp/PWNED\\n' > .venv/bin/activate && "
                          "printf '#!/bin/sh\\ntouch /tmp/PWNED\\nexec /usr/bin/python3 \"$@\"\\n' "
                          "> .venv/bin/python "
                          f"&& {PYTHON} -m venv --without-pip .venv2 && "
                          "echo 'touch /tmp/PWNED2' >> .venv2/bin/activate && "
                          f"cp {ws.parent / 'pip.txt'} .venv2/bin/pip && "
                          f"cp {ws.parent / 'evil.txt'} .venv2/bin/git "
                          "&& echo made")
    assert "made" in result.text, result.text
    assert sorted(result.details["quarantined"]) == [
        ".venv/bin/activate", ".venv/bin/python", ".venv2/bin/activate", ".venv2/bin/git", ".venv2/bin/pip"]
    assert not (ws / ".venv" / "bin" / "activate").exists()
    assert not (ws / ".venv2" / "bin" / "activate").exists()
    kept = sorted(os.listdir(ws / ".venv2" / "bin"))
    assert {"activate.fish", "activate.csh", "Activate.ps1", "python", "python3"} <= set(kept), kept
    assert os.readlink(ws / ".venv2" / "bin" / "python").startswith("python")  # venv's own link
    assert "not what python -m venv writes for it" in result.text
    assert "to keep it: /quarantine restore, or sh -c " in result.text


async def test_a_new_virtualenv_as_venv_writes_it_is_kept_whole(ws: Path) -> None:
    """With a prompt of its own, and with copies of the interpreter (``--copies``)."""
    require_sandbox()
    result = await sh(ws, f"{PYTHON} -m venv --without-pip --prompt 'my app' .venv && "
                          f"{PYTHON} -m venv --without-pip --copies copied && echo made")
    assert "made" in result.text and not result.details.get("quarantined"), result.text
    assert "my app" in (ws / ".venv" / "bin" / "activate").read_text()
    assert not (ws / "copied" / "bin" / "python3").is_symlink()
    assert sorted(os.listdir(ws / "copied" / "bin")) == sorted(os.listdir(ws / ".venv" / "bin"))


async def test_a_virtualenv_uv_makes_is_kept_when_the_same_uv_is_found_outside_the_workspace(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """uv's activate scripts are its own: they are compared with what the same uv
    writes (found on PATH, outside the workspace); an added line is still put aside."""
    require_sandbox()
    found = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    if not os.access(found, os.X_OK):
        pytest.skip("uv is not installed (pip install -e '.[test]' installs it)")
    tools = ws.parent / "tools"
    tools.mkdir()
    shutil.copy2(found, tools / "uv")  # a copy: the test run's venv may lie under /tmp, hidden in the sandbox
    found = str(tools / "uv")
    monkeypatch.setenv("PATH", f"{tools}:/usr/bin:/bin")
    python = PYTHON
    result = await sh(ws, f"{found} venv --python {python} .venv && {found} venv --python {python} "
                          "--prompt other second && echo 'touch /tmp/x' >> second/bin/activate.fish && "
                          "echo made")
    assert "made" in result.text, result.text
    assert result.details.get("quarantined") == ["second/bin/activate.fish"], result.text
    assert {"activate", "activate.fish", "activate_this.py"} <= set(os.listdir(ws / ".venv" / "bin"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no uv to check with: its activate scripts are put aside
    result = await sh(ws, f"{found} venv --python {python} third && echo made")
    assert "third/bin/activate" in result.details.get("quarantined", []), result.text
    assert "uv made it" in result.text and (ws / "third" / "bin" / "python").is_symlink()


async def test_a_new_virtualenv_whose_pyvenv_cfg_names_the_workspace_is_put_aside(ws: Path) -> None:
    """``home`` is where Python looks for its standard library: one in the workspace
    is code a command wrote, run by the venv's python."""
    require_sandbox()
    result = await sh(ws, f"{PYTHON} -m venv --without-pip .venv && mkdir lib && "
                          f"sed -i 's|^home = .*|home = {ws}/lib|' .venv/pyvenv.cfg && echo made")
    assert "made" in result.text, result.text
    assert sorted(result.details["quarantined"]) == [".venv/bin", ".venv/pyvenv.cfg"]


async def test_an_existing_virtualenvs_bin_stays_read_only_and_its_packages_writable(ws: Path) -> None:
    """A venv made before (here outside the sandbox) is as it was: its bin/ cannot
    change, its site-packages can (pip install of a package without programs works)."""
    require_sandbox()
    venv.EnvBuilder(with_pip=False).create(ws / ".venv")
    site = next((ws / ".venv" / "lib").glob("python*/site-packages"))
    result = await sh(ws, "echo 'touch /tmp/x' >> .venv/bin/activate; "
                          f"echo 'x = 1' > {site}/mod.py && echo wrote")
    assert "wrote" in result.text and (site / "mod.py").exists(), result.text
    assert "touch" not in (ws / ".venv" / "bin" / "activate").read_text()


async def test_pip_can_add_console_scripts_to_an_existing_virtualenv_and_nothing_else(ws: Path) -> None:
    """An existing venv's bin/ is pinned with each entry read-only: a console script
    as pip writes it (here copied in, as pip would) is kept, any other new program is
    moved out, and a replaced python link is put back."""
    require_sandbox()
    venv.EnvBuilder(with_pip=False, symlinks=True).create(ws / ".venv")
    python = os.readlink(ws / ".venv" / "bin" / "python")
    (ws.parent / "tool.txt").write_text(UV_SHIM.format(python=f"{ws}/.venv/bin/python"))
    (ws.parent / "evil.txt").write_text(UV_SHIM.format(python="/usr/bin/python3"))
    result = await sh(ws, f"cp {ws.parent / 'tool.txt'} .venv/bin/pytest && cp {ws.parent / 'evil.txt'} "
                          ".venv/bin/git && ln -sf /bin/sh .venv/bin/python; mv .venv/bin .venv/b2; "
                          "echo x >> .venv/bin/activate; echo done")
    assert "done" in result.text, result.text
    assert (ws / ".venv" / "bin" / "pytest").exists() and not (ws / ".venv" / "bin" / "git").exists()
    assert os.readlink(ws / ".venv" / "bin" / "python") == python
    assert "x" not in (ws / ".venv" / "bin" / "activate").read_text().splitlines()
    assert sorted(result.details["quarantined"]) == [".venv/bin/git", ".venv/bin/python"], result.text
    # a flood past what the walls bind one by one: every new entry is still judged
    result = await sh(ws, "for i in $(seq 300); do cp .venv/bin/pytest .venv/bin/t$i; done; "
                          f"cp {ws.parent / 'evil.txt'} .venv/bin/zz-git; echo done")
    assert "done" in result.text and result.details["quarantined"] == [".venv/bin/zz-git"], result.text
    assert (ws / ".venv" / "bin" / "t300").exists()


def _conda_env(ws: Path, rel: str) -> Path:
    env = ws / rel
    (env / "conda-meta").mkdir(parents=True)
    (env / "conda-meta" / "history").write_text("==> 2026-11-29 <==\n")
    (env / "bin").mkdir()
    (env / "bin" / "python").write_text("#!/bin/sh\n")
    (env / "etc" / "conda" / "activate.d").mkdir(parents=True)
    return env


async def test_conda_and_pixi_environments_are_guarded_like_a_virtualenv(ws: Path) -> None:
    """The finding's repro: `conda activate ./env`, `pixi run` and `pixi shell` source
    each `etc/conda/activate.d/*.sh` and put `bin/` first in PATH: what exists cannot
    change, what appears is moved out."""
    require_sandbox()
    env = _conda_env(ws, "env")
    pixi = _conda_env(ws, ".pixi/envs/default")
    (pixi / "etc" / "conda" / "activate.d").rmdir()
    result = await sh(ws, "mkdir -p .pixi/envs/default/etc/conda/activate.d && "
                          "echo 'touch /tmp/P' > .pixi/envs/default/etc/conda/activate.d/x.sh; "
                          "echo 'touch /tmp/C' > env/etc/conda/activate.d/x.sh; "
                          "mkdir -p env/etc/conda/deactivate.d && "
                          "echo 'touch /tmp/D' > env/etc/conda/deactivate.d/y.sh; "
                          "printf '#!/bin/sh\\ntouch /tmp/PY\\n' > env/bin/python; "
                          "echo x > .pixi/envs/default/bin/git; echo x > env/notes.txt; echo done")
    assert "done" in result.text, result.text
    assert (env / "bin" / "python").read_text() == "#!/bin/sh\n"
    assert not (env / "etc" / "conda" / "activate.d" / "x.sh").exists()
    assert not (pixi / "bin" / "git").exists()
    assert not list((pixi / "etc").rglob("*.sh")) and not (env / "etc" / "conda" / "deactivate.d").exists()
    assert (env / "notes.txt").read_text() == "x\n"  # the rest of the environment is not frozen
    assert ".pixi/envs/default/etc/conda/activate.d" in result.details["quarantined"], result.text
    assert "conda activate" in result.text


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_file_edits_in_a_conda_environment_ask(tmp_path: Path, mode: str) -> None:
    from shell.permissions.policy import PermissionPolicy
    from shell.permissions.rules import parse_rules
    from shell.tools.builtin import builtin_tools
    from shell.tools.workspace import Workspace

    rules, _ = parse_rules({"allow": ["write_file", "edit_file(**)"]}, "user")
    p = PermissionPolicy(tmp_path, mode=mode, user_rules=rules, user_config=tmp_path / "c.toml")
    tools = {t.name: t for t in builtin_tools(Workspace(tmp_path))}
    _conda_env(tmp_path, ".conda")
    (tmp_path / "tools" / "etc" / "conda" / "activate.d").mkdir(parents=True)
    for path in [".conda/bin/git", ".conda/etc/conda/activate.d/x.sh", ".conda/etc/conda/deactivate.d/x.sh",
                 ".conda/conda-meta/history", ".conda/lib/python3.12/site-packages/x.pth"]:
        verdict = p.decide(tools["write_file"], {"path": path, "content": ""})
        assert verdict.action == "ask", path
    for path in [".conda/notes.txt", "tools/etc/conda/activate.d/x.sh", "tools/bin/x"]:
        assert p.decide(tools["write_file"], {"path": path, "content": ""}).action == "allow", path


async def test_a_console_script_named_after_a_program_no_package_provides_is_put_aside(ws: Path) -> None:
    """A shim is two lines, but the module it imports is whatever the same command wrote
    into site-packages: a `bin/git` shim ran that module at the user's next `git` once
    the venv was active, in a new venv and in an existing one (L3); so did a pip shim in a
    venv with no pip."""
    require_sandbox()
    venv.EnvBuilder(with_pip=False, symlinks=True).create(ws / ".venv")
    site = next((ws / ".venv" / "lib").glob("python*/site-packages")).relative_to(ws)
    for name, env in (("old.txt", ".venv"), ("new.txt", "env2")):
        shim = UV_SHIM.format(python=f"{ws}/{env}/bin/python")
        (ws.parent / name).write_text(shim.replace("pytest", "gitx").replace("console_main", "main"))
    (ws.parent / "pip.txt").write_text(PIP_SHIM.format(python=f"{ws}/env2/bin/python"))
    result = await sh(ws, f"echo 'def main(): open(\"/tmp/pwn\", \"w\")' > {site}/gitx.py && "
                          f"cp {ws.parent / 'old.txt'} .venv/bin/git && "
                          f"{PYTHON} -m venv --without-pip env2 && cp {ws.parent / 'new.txt'} env2/bin/ls && "
                          f"cp {ws.parent / 'new.txt'} env2/bin/tail && "
                          f"cp {ws.parent / 'new.txt'} env2/bin/mytool && "
                          f"cp {ws.parent / 'pip.txt'} env2/bin/pip3 && echo made")
    assert "made" in result.text, result.text
    # tail: a system program that is no Python script (if this machine has it where systems keep them)
    tail = ["env2/bin/tail"] if shutil.which("tail") in ("/usr/bin/tail", "/bin/tail") else []
    planted = sorted([".venv/bin/git", "env2/bin/ls", "env2/bin/pip3", *tail])
    assert sorted(result.details["quarantined"]) == planted, result.text
    assert (ws / "env2" / "bin" / "mytool").exists()  # a name of its own: a console script like any


async def test_a_shim_named_like_a_program_on_your_path_or_pip_must_be_that_program(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`rg` in ~/.cargo/bin or /opt/homebrew/bin is as much the user's program as one in
    /usr/bin: a venv shim of that name importing a module the same command wrote ran it
    as the user once the venv was active; so did a `pip` shim that imports no pip (M2).
    A shim of the package the user's own program runs (`black`) and one standing for a
    pyenv shim stay; a shim of pip's own entry point in a venv with no pip does not."""
    require_sandbox()
    home = ws.parent
    (home / ".cargo" / "bin").mkdir(parents=True)
    (home / ".pyenv" / "shims").mkdir(parents=True)
    programs = {
        home / ".cargo" / "bin" / "rg": "#!/bin/sh\necho rg\n",
        home / ".cargo" / "bin" / "black": "#!/usr/bin/python3\nimport sys\nfrom black import patched_main\n"
                                           "if __name__ == '__main__':\n    sys.exit(patched_main())\n",
        home / ".pyenv" / "shims" / "mytool": (f"#!/usr/bin/env bash\nset -e\nprogram=\"${{0##*/}}\"\n"
                                               f"exec \"{home}/.pyenv/libexec/pyenv\" exec \"$program\"\n"),
    }
    for path, text in programs.items():
        path.write_text(text)
        path.chmod(0o755)
    monkeypatch.setenv("PATH", f"{home}/.cargo/bin:{home}/.pyenv/shims:{os.environ['PATH']}")
    python = f"{ws}/env2/bin/python"
    evil = UV_SHIM.format(python=python).replace("pytest", "rgx").replace("console_main", "main")
    launcher = "'''exec' \"{python}\" \"$0\" \"$@\"\n' '''\n"
    black = SH_LAUNCHER.replace("#!/bin/sh", "#!" + python).replace(launcher, "")
    texts = {"evil.txt": evil, "pip.txt": PIP_SHIM.format(python=python), "black.txt": black,
             "mytool.txt": evil.replace("rgx", "mytool")}
    for name, text in texts.items():
        (home / name).write_text(text)
    copies = " && ".join(f"cp {home / src} env2/bin/{dst}" for src, dst in [
        ("evil.txt", "rg"), ("evil.txt", "black2"), ("evil.txt", "pip"), ("evil.txt", "pip3.99"),
        ("evil.txt", "rsync"), ("pip.txt", "pip3"), ("black.txt", "black"), ("mytool.txt", "mytool")])
    result = await sh(ws, f"{PYTHON} -m venv --without-pip env2 && {copies} && echo made")
    assert "made" in result.text, result.text
    assert sorted(result.details["quarantined"]) == ["env2/bin/pip", "env2/bin/pip3", "env2/bin/pip3.99",
                                                     "env2/bin/rg", "env2/bin/rsync"], result.text
    for kept in ("black", "black2", "mytool"):
        assert (ws / "env2" / "bin" / kept).exists(), kept


async def test_a_pip_shim_stays_only_where_the_venvs_own_pip_wrote_it(ws: Path) -> None:
    """`python -m venv` with pip (ensurepip, offline) keeps pip, pip3 and pip3.X: pip's
    RECORD lists them. A pip shim copied into a `--without-pip` venv, or into an existing
    venv without pip, imports whatever the command writes as `pip._internal`: moved out."""
    require_sandbox()
    venv.EnvBuilder(with_pip=False, symlinks=True).create(ws / ".old")
    for env in ("bare", ".old"):
        (ws.parent / f"{env}.txt").write_text(PIP_SHIM.format(python=f"{ws}/{env}/bin/python"))
    result = await sh(ws, f"{PYTHON} -m venv withpip && {PYTHON} -m venv --without-pip bare && "
                          f"cp {ws.parent / 'bare.txt'} bare/bin/pip && "
                          f"cp {ws.parent / '.old.txt'} .old/bin/pip3 && echo made")
    assert "made" in result.text, result.text
    moved = sorted(q for q in result.details["quarantined"] if "/bin/" in q)  # not setuptools' .pth (3.11)
    assert moved == [".old/bin/pip3", "bare/bin/pip"], result.text
    assert "whose own pip did not write it" in result.text, result.text
    version = "pip{}.{}".format(*sys.version_info[:2])
    for name in ("pip", "pip3", version):
        assert (ws / "withpip" / "bin" / name).exists(), name


def _record_line(shim: str) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(shim.encode()).digest()).rstrip(b"=").decode()
    return f"../../../bin/pip,sha256={digest},{len(shim)}\n"


async def test_a_record_the_command_wrote_does_not_vouch_for_its_pip_shim(ws: Path) -> None:
    """Finding P13's repro: in a `--without-pip` venv that was there before, a command
    wrote a `pip._internal` of its own, a pip shim, and a `pip-99.0.dist-info/RECORD`
    listing that shim's hash: the shim was kept and the user's next `pip` ran its code.
    A RECORD the command wrote vouches for nothing: the shim is moved out."""
    require_sandbox()
    venv.EnvBuilder(with_pip=False, symlinks=True).create(ws / ".venv")
    site = next((ws / ".venv" / "lib").glob("python*/site-packages")).relative_to(ws).as_posix()
    shim = PIP_SHIM.format(python=f"{ws}/.venv/bin/python")
    (ws.parent / "pip.txt").write_text(shim)
    (ws.parent / "RECORD.txt").write_text(_record_line(shim))
    result = await sh(ws, f"mkdir -p {site}/pip/_internal/cli {site}/pip-99.0.dist-info && "
                          f"echo 'def main(): pass' > {site}/pip/_internal/cli/main.py && "
                          f"cp {ws.parent / 'RECORD.txt'} {site}/pip-99.0.dist-info/RECORD && "
                          f"cp {ws.parent / 'pip.txt'} .venv/bin/pip && echo made")
    assert "made" in result.text, result.text
    assert ".venv/bin/pip" in result.details["quarantined"], result.text
    assert not (ws / ".venv" / "bin" / "pip").exists()


def test_a_record_there_before_the_command_still_vouches(tmp_path: Path) -> None:
    """pip's own RECORD, older than the command, keeps the shim it lists; the same
    RECORD changed after the command started does not."""
    env = tmp_path / "env"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env)
    shim = PIP_SHIM.format(python=f"{env}/bin/python")
    info = next((env / "lib").glob("python*/site-packages")) / "pip-24.0.dist-info"
    info.mkdir()
    (info / "RECORD").write_text(_record_line(shim))
    written = max(os.lstat(info / "RECORD").st_ctime_ns, os.lstat(info).st_ctime_ns)
    assert pip_wrote(env / "bin" / "pip", shim.encode(), written + 1)
    assert not pip_wrote(env / "bin" / "pip", shim.encode(), written)
    assert not pip_wrote(env / "bin" / "pip", shim.encode() + b"\n", written + 1)


async def test_tox_and_nox_virtualenvs_are_guarded_like_a_dot_venv(ws: Path) -> None:
    """Finding N1's repro: real venvs in ``.tox/py``, ``.nox/tests`` (and one a command
    could make in a cache) were never reached by the walk, so a command planted a
    ``.pth`` and ``sitecustomize.py`` (Python runs them at the user's next ``tox``), a
    ``bin/pytest`` and a line in ``activate``, and read ``.tox/.env`` in full. Now their
    ``bin/`` is read-only, what appears in it or in their ``site-packages`` is moved out,
    and their secret files read as empty; a ``.venv`` beside them is guarded as before."""
    require_sandbox()
    envs = (".tox/py", ".nox/tests", ".mypy_cache/env", ".venv")
    for env in envs:
        venv.EnvBuilder(with_pip=False, symlinks=True).create(ws / env)
    (ws / ".tox" / ".env").write_text("TOX_KEY=sk-proj-TOXSECRET0123456789abcdef\n")
    (ws / ".tox" / "py" / ".env").write_text("ENV_KEY=sk-proj-ENVSECRET0123456789abcdef\n")
    sites = {env: next((ws / env / "lib").glob("python*/site-packages")).relative_to(ws).as_posix()
             for env in envs}
    plant = "; ".join(f"echo 'import os' > {site}/evil.pth" for site in sites.values())
    result = await sh(ws, f"{plant}; echo 'import os' > {sites['.tox/py']}/sitecustomize.py; "
                          "printf '#!/bin/sh\\ntouch /tmp/PWNED\\n' > .tox/py/bin/pytest; "
                          "for e in .tox/py .nox/tests .mypy_cache/env .venv; do "
                          "echo touch >> $e/bin/activate; done; "
                          "find .tox -maxdepth 2 -type f -name '.e*' -exec cat {} +; echo done")
    assert "done" in result.text, result.text
    assert "SECRET" not in result.text
    quarantined = set(result.details["quarantined"])
    assert {f"{site}/evil.pth" for site in sites.values()} <= quarantined, result.text
    assert f"{sites['.tox/py']}/sitecustomize.py" in quarantined
    for env in envs:
        assert not list((ws / env / "lib").glob("python*/site-packages/evil.pth")), env
        assert "touch" not in (ws / env / "bin" / "activate").read_text(), env
    assert not (ws / ".tox" / "py" / "bin" / "pytest").exists()


def installed(site: Path, dist: str, files: dict[str, str], programs: tuple[str, ...] = ()) -> None:
    """A distribution as pip installs it: its files, and a RECORD listing them and its programs."""
    info = site / f"{dist}.dist-info"
    info.mkdir(parents=True)
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    rows = [f"{name},sha256=x,1" for name in files] + [f"../../../bin/{p},sha256=x,1" for p in programs]
    (info / "RECORD").write_text("\n".join([*rows, f"{dist}.dist-info/RECORD,,"]) + "\n")


async def test_the_packages_an_existing_virtualenvs_programs_run_are_read_only(ws: Path) -> None:
    """Finding Q6: every program of bin/ imports its package from site-packages
    (``from pip._internal.cli.main import main``), where a command added code that the
    user's next pip ran. pip's and setuptools' files, and those of each distribution with
    a program in bin/, are read-only; another package stays writable, and a new one can
    be installed."""
    require_sandbox()
    venv.EnvBuilder(with_pip=False).create(ws / ".venv")
    site = next((ws / ".venv" / "lib").glob("python*/site-packages"))
    installed(site, "pip-24.0", {"pip/__init__.py": "", "pip/_internal/cli/main.py": "main = 0\n"}, ("pip",))
    installed(site, "setuptools-70.0", {"setuptools/__init__.py": "", "pkg_resources/__init__.py": ""})
    installed(site, "tool-1.0", {"tool/__init__.py": "", "_tool_core.py": ""}, ("tool",))
    installed(site, "lib-1.0", {"lib/__init__.py": ""})
    guarded = ["pip/__init__.py", "pip/_internal/cli/main.py", "pip-24.0.dist-info/RECORD",
               "setuptools/__init__.py", "pkg_resources/__init__.py", "tool/__init__.py", "_tool_core.py"]
    before = {name: (site / name).read_text() for name in guarded}
    writes = "; ".join(f"echo 'import os' >> {site}/{name}" for name in [*guarded, "lib/__init__.py"])
    result = await sh(ws, f"{writes}; mkdir {site}/newpkg && echo 'x = 1' > {site}/newpkg/__init__.py; true")
    assert {name: (site / name).read_text() for name in guarded} == before, result.text
    assert (site / "lib" / "__init__.py").read_text() == "import os\n"
    assert (site / "newpkg" / "__init__.py").read_text() == "x = 1\n"


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_a_file_edit_of_a_package_a_venvs_programs_run_asks(ws: Path, mode: str) -> None:
    venv.EnvBuilder(with_pip=False).create(ws / ".venv")
    site = next((ws / ".venv" / "lib").glob("python*/site-packages"))
    installed(site, "pip-24.0", {"pip/__init__.py": ""}, ("pip",))
    installed(site, "lib-1.0", {"lib/__init__.py": ""})
    policy = PermissionPolicy(ws, mode=mode, user_config=ws.parent / "c.toml")
    tools = {t.name: t for t in builtin_tools(Workspace(ws))}
    for name, action in (("pip/__init__.py", "ask"), ("lib/__init__.py", "allow")):
        path = str((site / name).relative_to(ws))
        found = policy.decide(tools["write_file"], {"path": path, "content": "import os\n"})
        assert found.action == action, (name, found.reason)
    found = policy.decide(tools["write_file"], {"path": str((site / "pip/__init__.py").relative_to(ws)),
                                                "content": "x\n"})
    assert "your next pip" in found.reason
