"""The sandbox ``run_shell`` commands run in: bubblewrap on Linux.

Approving a command should approve *that command*, not everything it could do
to the machine. Under :class:`Sandbox` a command sees:

- the whole file system **read-only**, except the workspace and a private,
  empty ``/tmp`` (gone when the command ends), which it may write;
- inside the workspace, what runs later as the user (:mod:`.runslater`, the same
  list the file tools ask about: git hooks and config, ``.mcp.json``,
  ``.agent-shell/``, ``.envrc``, ``.vscode/``, ``.idea/``, ``.pre-commit-config.yaml``,
  ``.npmrc``, ``.cargo/``, a venv's ``*.pth`` and the like, at any depth)
  stays read-only and pinned in place, and what a command creates there anyway is
  moved out of the workspace after it ends and reported: a command must not plant
  a hook that runs the next time the *user* types ``git commit``;
- **no** key files: ``~/.ssh``, ``~/.aws``, ``~/.gnupg``, ``~/.config/gh``,
  ``~/.netrc`` and the like (:data:`SECRET_PATHS`), the shell's own config and
  data dirs (sessions, the trust store), the user's runtime dir (the ssh and gpg
  agents, D-Bus) and container engine sockets are replaced by empty ones;
- **no secret files of the workspace**: each file there that the one secrets
  policy calls secret-looking (``.env``, ``*.pem``, ``id_ed25519``…) reads as an
  empty read-only file, found by a bounded, cached search
  (:mod:`.secretfiles`), except what a call the user approved named;
- **no network** (its own network namespace with only a loopback) unless the
  call asked for it with ``network=true`` and the policy allowed that;
- **no credentials in git's config** (a remote URL's token, ``extraHeader``; in the
  workspace's repositories, ``~/.gitconfig``, the outside repository of a worktree or
  subfolder workspace, :mod:`.gitoutside`): the command reads a copy without them
  (:mod:`.gitcreds`), nor MCP servers' keys in ``.mcp.json`` (:mod:`.mcpshown`);
- **no secrets in its environment** (:func:`scrubbed_environment`: provider keys,
  any variable whose name or value looks like a secret: :mod:`shell.core.secrets`);
- **no map of what is hidden**: bubblewrap reads these walls from a private file,
  not its command line (``/proc/1/cmdline``: :mod:`.sandboxlaunch`);
- its own PID namespace: when the command ends, times out or is cancelled,
  every process it started ends with it, ``setsid`` and double forks included
  (``--die-with-parent``, and the namespace dies with its first process).

Where bubblewrap is missing (or cannot create namespaces, as in some containers)
commands run as before, without these walls, but still without the secret
variables; :func:`sandbox_status` says why and what to install, and the
permission policy asks before every ``run_shell`` (:meth:`Sandbox.contains`).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shell.core.programs import which, writable_by_commands

from . import gitmarks, gitquiet, paths
from .credentialvars import credential_paths
from .emptyfile import empty_file
from .gitcreds import ScrubbedConfigs, global_configs, included_configs
from .gitexclude import exclude_binds
from .githistory import tracked_denied
from .gitoutside import OutsideGit, outside_git
from .gitstaged import StagedCopies
from .homedirs import home_dirs
from .homesecrets import found_in_config, home_stores, startup_files
from .homewalk import HomeFiles, HomeFound, home_args
from .hosthidden import PRIVATE_TEMP, SYSTEM_SECRET_PATHS, linked_into, outermost, own_dirs, own_temp, under
from .hostsockets import host_sockets
from .laternames import RERERE_OFF
from .mcpshown import mcp_binds
from .offlinenote import network_note as network_note  # re-exported: run_shell imports the sandbox
from .sandboxenv import scrubbed_environment
from .sandboxlimits import Limits, default_limits
from .sandboxprobe import INSTALL_HINT as INSTALL_HINT  # re-exported: callers import the sandbox
from .sandboxprobe import SandboxStatus, sandbox_status
from .sandboxprobe import probe_ahead as probe_ahead
from .sandboxprobe import sandbox_available as sandbox_available
from .sandboxprobe import will_sandbox as will_sandbox
from .secretfiles import SecretFileIndex, SecretFiles
from .secretwords import named_secret_files
from .shadowmodules import shadowed_names
from .unreachable import closed_to_commands

if TYPE_CHECKING:  # imported by prepare() and after() at the first command, not while starting
    from . import gitflags, gitobjects, gitrefs, gitsequencer, pathswaps
    from .laterconfigs import Configs
    from .runslater import Guard, Planted
    from .writedeny import Wildcards

AFTER_SCALE = 10
"""How much further than the search before a command the check after it may walk."""

MAX_REVEALS = 64
"""Approvals to show named secret files that no command used yet (the oldest go first)."""

class Sandbox:
    """How ``run_shell`` wraps a command for one workspace.

    ``hidden`` and ``writable`` add paths to the defaults, and ``sockets`` names the
    host sockets commands may reach (the config's ``[sandbox]`` table); ``bwrap``
    picks the binary (default: on ``PATH``)."""

    def __init__(
        self,
        workspace: str | os.PathLike[str],
        *,
        hidden: Sequence[str | os.PathLike[str]] = (),
        writable: Sequence[str | os.PathLike[str]] = (),
        sockets: Sequence[str | os.PathLike[str]] = (),
        bwrap: str | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.workspace = paths.real_root(workspace)
        self.limits = limits if limits is not None else default_limits()
        """The resource limits every command starts under, here or bare (:mod:`.sandboxlimits`)."""
        self.extra_hidden = [self.workspace / Path(p).expanduser() for p in hidden]
        """``[sandbox] hide``, a relative entry the workspace's (finding P8: it was kept relative)."""
        self.writable = [paths.real_root(p) for p in writable]
        self.sockets = [Path(os.path.realpath(self.workspace / Path(p).expanduser())) for p in sockets]
        """Host sockets the user lets commands reach (``[sandbox] sockets``; relative to the
        workspace): every other one the kernel lists, in the workspace too, is covered."""
        self.added: list[Path] = []
        """Directories added to the workspace (``--add-dir``): writable, searched for secrets."""
        self.own_files: list[Path] = []
        """The shell's own files outside its dirs, hidden from commands: the config file
        this run loaded (``--config FILE``)."""
        self.bwrap = bwrap
        self.git_configs = ScrubbedConfigs()  # git configs, .mcp.json without credentials (.gitcreds)
        self.secret_index = SecretFileIndex(  # its secret files, hidden (.secretfiles)
            [self.workspace], modules=self._module_names)
        self.home_files = HomeFiles()  # and those of the other projects under home (.homewalk)
        writable_by_commands(self.workspace, *self.writable)  # no program of ours is found there
        self._flags: gitflags.Flags | None = None  # index flags before the command (.gitflags)
        self._flags_seen: gitflags.Flags = {}
        self._marks = gitmarks.NONE  # skip-worktree bits set on what it hides (.gitmarks)
        self.may_write_hidden: Callable[[Path], bool] = lambda _: False  # brought along to git's version?
        self.unmarked = gitmarks.recover()  # a crashed session's bits cleared; what the result says of them
        self._refs: gitrefs.Snapshot = {}  # git refs before the command (.gitrefs)
        self._ref_files: gitrefs.RefCache | None = None  # ref files as last read (made at the first command)
        self._todos: gitsequencer.Todos = {}  # a rebase's exec lines before it (.gitsequencer)
        self._configs: Configs = {}  # pyproject.toml, .eslintrc.json … before it (.laterconfigs)
        self._strategies: gitsequencer.Strategies = {}  # and its merge strategy
        self._objects: gitobjects.Snapshot = {}  # loose git objects' stamps (.gitobjects)
        self._objects_seen: gitobjects.Snapshot = {}  # as the last check after a command saw them
        self._unwritten: list[Path] = []  # named by write rules, missing before the command
        self._ruled: set[Path] = set()  # what wildcard write rules covered before it (.writewalls)
        self._held: list[pathswaps.Held] = []  # the folders above what it holds, as they were (.pathswaps)
        self.staged = StagedCopies()  # git's staged copies, shown in their place (.gitstaged)
        self.shown_copies: Mapping[Path, str] = {}  # those the last command was shown (.gitstopped)
        self._reveals: OrderedDict[str, tuple[str, ...]] = OrderedDict()
        self._reveal_lock = threading.Lock()
        self.denied_reads: Callable[[], Sequence[Path]] = lambda: ()
        """The paths deny rules on reading name (``read_file(secrets/**)``): hidden (the policy answers)."""
        self.denied_writes: Callable[[], Sequence[Path]] = lambda: ()
        """The paths deny and ask rules on writing name (``write_file(secrets/**)``), and
        ``write_wildcards`` those with a wildcard: read-only for commands (the policy answers)."""
        self.write_wildcards: Callable[[], Wildcards | None] = lambda: None
        self.nothing_asks: Callable[[], bool] = lambda: False
        """Whether calls that would ask run unasked (bypass, approvals off): then a command
        that names a secret file sees it, as the skipped question would have allowed."""

    def add_dir(self, directory: str | os.PathLike[str]) -> Path:
        """Make ``directory`` part of the workspace for commands (writable, secrets hidden)."""
        path = paths.resolve(directory, self.workspace)
        if not under(path, [self.workspace, *self.added]):
            self.added.append(path)
            writable_by_commands(path)
            self.secret_index.set_roots([self.workspace, *self.added])
        return path

    def _module_names(self) -> frozenset[str]:
        """The names a new workspace module must not take (.shadowmodules): the host's, and those
        of the workspace's virtualenvs, the walk's last ones at any depth too (finding D8)."""
        last = self.secret_index.last
        envs = [p.parent for p in (last.runs_later if last is not None else ()) if p.name == "pyvenv.cfg"]
        return shadowed_names([self.workspace, *self.added], envs)

    # -- secret files and what runs later ----------------------------------------------
    def prepare(self) -> tuple[SecretFiles, Guard]:
        """Before a command: the secret files to hide and the walls around what runs
        later (both from one walk of the workspace; see :mod:`.runslater`)."""
        from . import gitflags, gitobjects, gitrefs, gitsequencer, pathswaps, runslater, writewalls
        from .laterconfigs import config_files, snapshot_configs

        found = self.secret_files()
        self.staged.copies([*found.paths, *self.home_secrets().files])  # git runs here, not in wrap()
        walls = runslater.guard(self.roots(), found.runs_later, self.outside_git(), self.writable,
                                found.modules)
        self._flags = self._flags_seen = gitflags.flags(walls.gitdirs, self._flags_seen)
        self._refs = gitrefs.snapshot(walls.gitdirs, self._ref_cache())
        self._todos = gitsequencer.todos(walls.gitdirs)
        self._configs = snapshot_configs(config_files(self.secret_index, self.roots()))
        self._strategies = gitsequencer.strategies(walls.gitdirs)
        self._objects = gitobjects.snapshot(walls.gitdirs, self._objects_seen)
        self._unwritten = writewalls.missing(self.denied_writes(), [*self.roots(), *self.writable])
        self._ruled = writewalls.wildcard_matches(self.secret_index, self.write_wildcards(), self.roots())
        held = {pathswaps.RULE: [*self.denied_writes(), *self.denied_reads()], pathswaps.SECRET: found.paths,
                pathswaps.LATER: walls.readonly, pathswaps.GIT: list(self._objects)}
        self._held = pathswaps.hold(held, self.roots())
        return found, walls

    def after(self, before: Guard, started_ns: int) -> tuple[list[Planted], str]:
        """After a command ended: what it created or changed that runs later, moved
        out of the workspace into a quarantine folder of ours (hidden from commands),
        and why the check did not reach everywhere (empty when it did). Its walk may
        go :data:`AFTER_SCALE` times further than the one before a command."""
        from . import gclog, gitobjects, gitrefs, gitsequencer, pathswaps, quarantine, runslater, writewalls
        from .laterconfigs import config_files, put_back_configs

        swapped = pathswaps.undo(self._held, self.roots())  # first: the checks below see the tree put back
        self.unmark()
        found = self.secret_index.find(scale=AFTER_SCALE, in_place=False)
        made = writewalls.wildcard_matches(self.secret_index, self.write_wildcards(), self.roots())
        now = runslater.guard(self.roots(), found.runs_later, before.outside, self.writable, found.modules)
        missed = "" if found.complete else found.why_incomplete.replace(
            "; files in the rest are not hidden", "")
        created = [*self._unwritten, *writewalls.created_since(made, self._ruled, started_ns)]
        refs, self._refs = self._refs, {}
        todos, self._todos = self._todos, {}
        strategies, objects, self._strategies, self._objects = self._strategies, self._objects, {}, {}
        refs_now = gitrefs.reread(refs, self._ref_cache())
        forged, self._objects_seen = gitobjects.check(objects)
        unhidden = (swapped + self._unhide() + gitrefs.undo_replace(refs, refs_now)
                    + gitrefs.changed(refs, before.gitdirs, refs_now) + gitsequencer.drop_new_execs(todos)
                    + gitsequencer.put_back_strategies(strategies) + forged
                    + writewalls.move_created(created, self.roots())
                    + gclog.remove_new(before.gitdirs, started_ns))  # git prints it raw, later
        folder = quarantine.new_folder()  # in the shell's data dir, which commands cannot see
        configs, self._configs, roots = self._configs, {}, self.roots()
        planted = put_back_configs(configs, config_files(self.secret_index, roots), folder, roots, started_ns)
        moved = now.watched != before.watched or now.modules != before.modules
        if moved or not runslater.same_links(before, now):
            planted = runslater.check(before, now, folder, started_ns) + planted
        quarantine.record(folder, planted)  # where each came from, for /quarantine
        return planted + unhidden, missed

    def mark_hidden(self, hidden: Sequence[Path], files: Sequence[Path]) -> str:
        """Before a command: what git tracks under ``hidden`` that a deny rule on reading or
        ``[sandbox] hide`` names, and the secret ``files`` bound over empty, marked skip-worktree
        (:mod:`.gitmarks`); why not ("" when done). Not a secret file shown as its staged copy
        (one whose staged text holds no values: :meth:`.StagedCopies.shown`): git sees it
        unchanged, and marked, ``git add .envrc`` would fail."""
        self.unmark()  # a second try of the same command marks anew
        named = set(self.named_hidden())
        copies = self.shown_copies = self.staged.shown(files)
        wanted = [p for p in hidden if p in named and under(p, self.binds())]
        wanted += [f for f in files if f not in copies]
        self._marks, problem = gitmarks.mark(wanted, self.may_write_hidden, sorted(named), copies)
        if self._marks and self._flags is not None:  # the bits are ours, not the command's (.gitflags)
            from . import gitflags

            self._flags = self._flags_seen = gitflags.flags(list(self._flags), self._flags_seen)
        return problem

    def unmark(self) -> None:
        """Clear the bits :meth:`mark_hidden` set (all of them, and only them); what the
        user must know of them goes to :attr:`unmarked`."""
        marks, self._marks = self._marks, gitmarks.NONE
        if marks:
            self.unmarked += gitmarks.unmark(marks)

    def named_hidden(self) -> list[Path]:
        """What deny rules on reading and ``[sandbox] hide`` name, resolved as in :meth:`hidden_paths`."""
        out = []
        for path in [*self.denied_reads(), *self.extra_hidden]:
            try:
                out.append(paths.resolve(path, self.workspace))
            except (OSError, paths.BadPath):
                continue
        return out

    def _unhide(self) -> list[Planted]:
        """Index flags the command set to hide its changes from ``git status`` and
        ``git diff`` (skip-worktree, assume-unchanged), cleared (see :mod:`.gitflags`)."""
        from . import gitflags

        before, self._flags = self._flags, None
        return [] if before is None else gitflags.unhide(before)

    def _ref_cache(self) -> gitrefs.RefCache:
        """The ref files as last read, made at the first command (:mod:`.gitrefs` and
        what runs later are imported then, not while the shell starts)."""
        from . import gitrefs

        if self._ref_files is None:
            self._ref_files = gitrefs.RefCache()
        return self._ref_files

    def outside_git(self) -> list[OutsideGit]:
        """The repositories whose git directory git uses for a root but keeps outside
        the roots (a linked worktree, a repository's subfolder: :mod:`.gitoutside`)."""
        found = [outside_git(root) for root in self.roots()]
        return list(dict.fromkeys(o for o in found if o is not None))

    def binds(self) -> list[Path]:
        """What commands may write: the workspace, the folders added to it, ``[sandbox] writable``."""
        return [self.workspace, *self.added, *self.writable]

    def roots(self) -> list[Path]:
        """The workspace and the directories added to it, as the walk sees them."""
        return list(self.secret_index.roots)

    def secret_files(self) -> SecretFiles:  # search for secret-looking files now (cached per folder)
        return self.secret_index.find()

    def secrets_searched(self) -> SecretFiles:  # the last search's (searching now if none)
        return self.secret_index.last or self.secret_index.find()

    def home_secrets(self) -> HomeFound:
        """Walk home for the other projects' secret files now (cached per folder: :mod:`.homewalk`)."""
        outside = self.outside_git()
        gitdirs = [g for o in outside for g in (o.gitdir, o.common)]
        return self.home_files.find([*self.roots(), *self.writable], gitdirs, [o.top() for o in outside])

    def reveal(self, call_id: str, names: Sequence[str]) -> None:
        """The user approved the call ``call_id`` after being told it names these
        secret files: that call sees the files they name (see :meth:`take_reveal`)."""
        with self._reveal_lock:
            self._reveals[call_id] = tuple(names)
            while len(self._reveals) > MAX_REVEALS:
                self._reveals.popitem(last=False)

    def take_reveal(self, call_id: str, command: str) -> tuple[str, ...]:
        """What :meth:`reveal` allowed for this call (once), or what it names when nothing asks."""
        with self._reveal_lock:
            shown = self._reveals.pop(call_id, ())
        if not shown and self.nothing_asks():
            shown = tuple(named_secret_files(command))
        return shown

    @property
    def status(self) -> SandboxStatus:
        return sandbox_status(self.bwrap)

    @property
    def available(self) -> bool:
        return self.status.available

    def contains(self, args: Mapping[str, Any]) -> bool:
        """Whether a ``run_shell`` call with these arguments stays inside the sandbox
        (it runs under bubblewrap and did not ask for the network). The policy's
        ``auto`` mode runs such calls unasked and asks for the rest."""
        return self.available and not bool(args.get("network"))

    def hidden_paths(self) -> list[Path]:
        """What a command must not see, as it exists now (missing paths need no hiding)."""
        wanted: list[Path] = []
        for home in home_dirs():
            wanted.extend(home_stores(home))
            # a workspace inside ~/.config (~/.config/nvim) keeps its own files: the
            # secret-file index judges them; one holding home does not
            own = [b for b in (self.workspace, *self.added) if not paths.within(home, b)]
            # git's configs (~/.gitconfig-work an include names) get a copy without credentials
            # instead (:meth:`wall_args`): hidden, git fails on the include
            gits = {str(p) for p in (*global_configs(), *included_configs(global_configs()))}
            wanted.extend(p for p in found_in_config(home)
                          if not under(p, own) and os.path.realpath(p) not in gits)
            # a dotfiles repository's own files behind home's links (~/.bashrc -> this
            # workspace's bashrc) stay readable: the secret-file index judges them, and
            # what runs later keeps them read-only (an empty bind would read as a change to git)
            wanted.extend(p for p in startup_files(home) if not linked_into(p, own) and not under(p, own))
        wanted.extend(own_dirs())
        wanted.extend(self.own_files)
        wanted.extend(own_temp([self.workspace, *self.added, *self.writable]))
        wanted.extend([*map(Path, SYSTEM_SECRET_PATHS), *credential_paths()])  # KUBECONFIG's, wherever
        runtime_dir = os.environ.get("XDG_RUNTIME_DIR")
        if runtime_dir:
            wanted.append(Path(runtime_dir))
        agent = os.environ.get("SSH_AUTH_SOCK")
        if agent:
            wanted.append(Path(agent))
        # in the workspace too: a socket there before the command is a server outside the
        # sandbox (a dev database's, which runs COPY … TO PROGRAM as its owner); one a test
        # suite starts in the command is bound later, in the sandbox's own namespace
        wanted.extend(s for s in host_sockets(roots=[self.workspace, *self.added])
                      if Path(os.path.realpath(s)) not in self.sockets)
        wanted.extend(self.extra_hidden)
        wanted.extend(self.denied_reads())
        private = PRIVATE_TEMP  # replaced by empty ones already
        binds = [self.workspace, *self.added, *self.writable]
        found: list[Path] = []
        for path in wanted:
            if not os.path.lexists(path):  # most of the list: cheap to rule out before resolving
                continue
            try:
                real = paths.resolve(path, self.workspace)  # a symlink loop does not raise
            except (OSError, paths.BadPath):
                continue
            if not real.exists():
                continue
            if real == self.workspace or real in self.workspace.parents:
                continue  # the user works in there: hiding it would hide the workspace
            if (under(real, private) and not under(real, binds)) or closed_to_commands(real, binds):
                continue  # the command could not open it anyway: no mount (.unreachable)
            found.append(real)
        return outermost(found)

    def wrap(
        self,
        argv: Sequence[str],
        *,
        network: bool = False,
        secrets: SecretFiles | None = None,
        shown: Sequence[Path] = (),
        hidden: Sequence[Path] | None = None,
        walls: Guard | None = None,
    ) -> list[str]:
        """The bubblewrap command line that runs ``argv`` in the sandbox.

        ``secrets`` (default: a search now) are bound over with an empty read-only
        file (git's staged copy for a file git tracks: see :mod:`.gitstaged`),
        except those in ``shown`` (named by a call the user approved);
        ``hidden`` is :meth:`hidden_paths` when the caller has it already (empty folders and
        files, whatever git tracks there: :meth:`mark_hidden` tells git to leave those as
        staged, and ``confine`` does that before it calls this); ``walls``
        (default: from that search) keep what runs later read-only."""
        bwrap = self.bwrap or which("bwrap") or "bwrap"
        ws = str(self.workspace)
        args = [bwrap, "--die-with-parent", "--new-session", "--unshare-all"]
        if network:
            args.append("--share-net")
        args += ["--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                 "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--bind", ws, ws]  # fmt: skip
        for path in [*self.added, *self.writable]:  # -try (source and place are one): gone is no error
            if path.exists():
                args += ["--bind-try", str(path), str(path)]
        hidden = self.hidden_paths() if hidden is None else hidden
        found = self.secret_files() if secrets is None else secrets
        whole = found.hidden_whole(shown)  # an editor's local history: one bind, where git tracks nothing
        tracked = set(tracked_denied(whole)) if whole else set()  # else file by file (staged copies):
        hidden = [*hidden, *(w for w in whole if w not in tracked)]  # empty, a commit deleted them (P9)
        for path in hidden:  # looked at again: one that vanished since it was listed would fail bwrap
            if path.is_dir():  # an empty folder: git leaves what it tracks there as staged (.gitmarks)
                args += ["--tmpfs", str(path), "--remount-ro", str(path)]
            elif os.path.lexists(path):
                args += ["--ro-bind", "/dev/null", str(path)]
        if walls is None:
            from . import runslater

            walls = runslater.guard(self.roots(), found.runs_later, self.outside_git(), self.writable,
                                found.modules)
        args += self.wall_args(walls, hidden)
        for path in self.readonly_paths(hidden):  # after the walls: a pin inside one stays read-only
            args += ["--ro-bind-try", str(path), str(path)]
        hide = self.hideable(found, hidden, shown)
        staged = self.staged.shown(hide)  # one holding values reads empty (X11)
        for path in hide:  # last: also inside .agent-shell/
            args += ["--ro-bind", staged.get(path) or empty_file(), str(path)]
        files = [p for p in hidden if p.is_file() and under(p, self.binds())]
        shown_mcp, untracked = mcp_binds(self.roots(), hidden, self.staged, self.git_configs)  # no keys
        args += shown_mcp
        for view, exclude in exclude_binds([*(p for p in hide if p not in staged), *files, *untracked]):
            args += ["--ro-bind", view, str(exclude)]  # what git must leave untracked (.gitexclude)
        home = self.home_files.last or self.home_secrets()
        args += home_args(home, staged=self.staged, configs=self.git_configs, empty=empty_file(),
                          hidden=hidden, binds=[self.workspace, *self.added, *self.writable])
        args += ["--chdir", ws, "--", *argv]
        return args

    def wall_args(self, walls: Guard, hidden: Sequence[Path]) -> list[str]:
        """bwrap arguments for :class:`Guard`: git directories bound onto themselves
        first (pinned, still writable), then what runs later read-only, shallow
        before deep (a writable bind inside a read-only one would reopen it)."""
        opened = [p for repo in walls.outside for p in repo.writable() if not under(p, hidden)]
        binds = [self.workspace, *self.added, *self.writable, *opened]
        args: list[str] = []
        for path in opened:  # what git writes for a checkout whose repository is outside
            args += ["--bind-try", str(path), str(path)]
        outside = [g for repo in walls.outside for g in (repo.gitdir, repo.common)]
        for path in walls.pins:
            if under(path, binds) and not under(path, hidden) and os.path.isdir(path):
                args += ["--bind-try", str(path), str(path)]
        configs = set(walls.configs)
        bound: set[Path] = set()
        for path in sorted(walls.readonly, key=lambda p: len(p.parts)):
            if under(path, hidden) or not os.path.exists(path):
                continue
            if under(path, binds):
                shown = self.git_configs.copy_for(path) if path in configs else None
                args += ["--ro-bind" if shown else "--ro-bind-try", shown or str(path), str(path)]
                bound.add(path)
            elif path in configs and under(path, outside):  # read-only already; without credentials
                shown = self.git_configs.copy_for(path)
                if shown is not None:
                    args += ["--ro-bind", shown, str(path)]
                    bound.add(path)
        users = global_configs()
        # ~/.gitconfig (an insteadOf rule may hold a token) and what any config includes
        # (~/.gitconfig-work, a file beside .git/config): git reads those too. Only what
        # lies in the home directory or the workspace: an include a hostile repository
        # names (/proc/self/environ) is not read by us on its behalf.
        homes = [Path(os.path.realpath(os.path.expanduser("~"))), *binds, *(r.top() for r in walls.outside)]
        included = [p for p in included_configs([*configs, *users]) if under(p, homes)]
        for path in [*users, *included]:
            shown = None if path in bound or under(path, hidden) else self.git_configs.copy_for(path)
            if shown is not None:
                args += ["--ro-bind", shown, str(path)]
        return args

    def readonly_paths(self, hidden: Sequence[Path] = ()) -> list[Path]:
        """What write rules name outright that a command could otherwise write (it exists,
        in the workspace or a writable dir, not hidden already): bound read-only."""
        out: list[Path] = []
        for path in [*self.denied_writes(), *self._ruled]:
            if os.path.lexists(path) and under(path, self.binds()) and not under(path, hidden):
                out.append(path)
        return sorted(dict.fromkeys(out), key=lambda p: len(p.parts))

    def hideable(self, found: SecretFiles, hidden: Sequence[Path], shown: Sequence[Path] = ()) -> list[Path]:
        """The secret files of ``found`` that get an empty file bound over them: not
        those shown to this call, not those already inside a hidden directory or the
        private ``/tmp``, and only those that still exist (bwrap would create them)."""
        private, binds = [Path("/tmp"), Path("/var/tmp")], self.binds()
        out = []
        for path in found.paths:
            if path in shown or under(path, hidden) or (under(path, private) and not under(path, binds)):
                continue
            if os.path.isfile(path):
                out.append(path)
        return out

    def environment(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for a sandboxed command: scrubbed, with its own tmp and caches."""
        env, _ = scrubbed_environment(environ)
        # Python's compiled caches go to the command's private /tmp: a __pycache__ in
        # the workspace runs instead of the source later, so commands get none there
        env.update(TMPDIR="/tmp", XDG_CACHE_HOME="/tmp/.cache", PYTHONPYCACHEPREFIX="/tmp/.cache/pycache")
        env.pop("XDG_RUNTIME_DIR", None)
        env = gitmarks.with_git_config(gitmarks.kept_in_sparse_checkouts(env), *RERERE_OFF)
        return gitquiet.without_notes(env)
