"""The options each quiet git subcommand may be given (findings S1, S6, S8): the lists
:mod:`.gitquiet` reads a command against with :func:`.gitoptions.operands`.

Each list holds only options that print names, ids, counts or status and lay out
nothing: ``commit -v`` (the staged patch), ``status -v``, ``tag -n`` (a lightweight
tag's blob), ``config --blob``/``--file``, ``restore --source``, ``diff -U0``/
``--patch-with-stat``/``--word-diff`` are left off on purpose, and so is every option not
checked; a command with one asks while a deny rule names content git holds. Adding an
option here is a claim that it cannot print a file's contents.
"""

from __future__ import annotations

from .gitoptions import Options, options

STATUS = options(
    ("--ahead-behind -b --branch --long --no-ahead-behind --no-column --no-renames --null -q --quiet "
     "--renames -s --short --show-stash -u -z"),
    optional="--color --column --find-renames --ignore-submodules --ignored --porcelain --untracked-files")
"""Not ``-v`` (the staged patch)."""
COMMIT = options(
    ("-a --all --allow-empty --allow-empty-message --amend --branch --dry-run --long -n --no-edit "
     "--no-gpg-sign --no-post-rewrite --no-signoff --no-status --no-verify --null -o --only --porcelain -q "
     "--quiet --reset-author -S -s --short --signoff --status --verify -z"),
    valued="--author --cleanup --date --fixup -m --message --squash --trailer",
    optional="--gpg-sign --untracked-files")
"""Not ``-v`` (``commit --dry-run -v`` prints the staged patch: finding S8), ``-p``, ``-e``,
``-F``/``-C``/``-c``/``-t`` (a message or template read from elsewhere)."""
ADD = options(
    ("-A --all --dry-run -f --force --ignore-errors --ignore-missing --ignore-removal --intent-to-add -N "
     "-n --no-all --no-ignore-removal --refresh --renormalize --sparse -u --update -v --verbose"),
    valued="--chmod")
BRANCH = options(
    ("-a --all -C -c --copy -D -d --delete -f --force -i --ignore-case -l --list -M -m --move --no-abbrev "
     "--no-color --no-column --no-track --omit-empty -q --quiet -r --remotes --show-current -t "
     "--unset-upstream -v --verbose"),
    valued="--contains --merged --no-contains --no-merged --points-at --set-upstream-to --sort -u",
    optional="--abbrev --color --column --track")
TAG = options(
    ("-a --annotate --create-reflog -d --delete -f --force -i --ignore-case -l --list --no-column "
     "--no-sign --omit-empty -s --sign"),
    valued=("--cleanup --contains --local-user -m --merged --message --no-contains --no-merged --points-at "
            "--sort -u"),
    optional="--color --column")
"""Not ``-n`` (prints what a lightweight tag points at, a blob too), ``--format``, ``-F``."""
REMOTE = options("--add --delete --dry-run -f -n --no-fetch --no-tags --push --tags -v --verbose",
                 valued="-m -t", optional="--mirror")
INIT = options("--bare -q --quiet", valued="-b --initial-branch --object-format --ref-format",
               optional="--shared")
"""Not ``--template``, ``--separate-git-dir``."""
MOVE = options("--dry-run -f --force -k -n --sparse -v --verbose")
REMOVE = options("--cached --dry-run -f --force --ignore-unmatch -n -q --quiet -r --sparse")
CLEAN = options("-d --dry-run -f --force -n -q --quiet -X -x", valued="-e --exclude")
RESTORE = options("--ignore-unmerged --no-overlay --no-progress --overlay --progress -q --quiet -S --staged "
                  "-W --worktree")
"""Not ``--source``/``-s`` (another revision's files) nor ``--ignore-skip-worktree-bits``."""
CONFIG = options(
    ("--add --all --bool --bool-or-int --expiry-date --get --get-all --get-color --get-colorbool "
     "--get-regexp --get-urlmatch --global --includes --int -l --list --local --name-only --no-includes "
     "--null --path --remove-section --rename-section --replace-all --show-origin --show-scope --system "
     "--unset --unset-all --worktree -z"),
    valued="--comment --default --type")
"""Not ``--blob`` (any blob that parses as config prints: finding S1), ``--file``/``-f``,
``--edit``."""
UPDATE_INDEX = options("--ignore-missing --ignore-submodules -q --quiet --refresh --unmerged")
"""Only refreshing: ``--no-skip-worktree`` clears the marks that hide denied files from
``git diff``, ``--cacheinfo``/``--index-info`` stage any blob (findings S1, S2)."""
SWITCH = options(
    ("-d --detach --discard-changes -f --force --guess --ignore-other-worktrees -m --merge --no-guess "
     "--no-overwrite-ignore --no-progress --no-track --overwrite-ignore --progress -q --quiet -t"),
    valued="-B -b -C -c --conflict --create --force-create --orphan",
    optional="--track")
"""Not ``-p``, ``--pathspec-from-file``; where it goes is judged by its operand."""
RESET = options("--hard --intent-to-add --keep --merge --mixed -N --no-refresh -q --quiet --refresh --soft")
"""Not ``-p``; where it goes is judged by its operands."""
STASH_PUSH = options("-a --all --include-untracked -k --keep-index --no-keep-index -q --quiet -S --staged -u",
                     valued="-m --message")
QUIET_ONLY = options("-q --quiet")
SYMBOLIC_REF = options("-d --delete --no-recurse -q --quiet --recurse --short")
FETCH = options(
    ("-4 -6 -a --all --append --atomic --auto-gc --auto-maintenance --dry-run -f --force --ipv4 --ipv6 -k "
     "--keep --multiple -n --no-auto-gc --no-auto-maintenance --no-progress --no-recurse-submodules "
     "--no-show-forced-updates --no-tags --no-write-fetch-head -P -p --porcelain --prefetch --progress "
     "--prune --prune-tags -q --quiet --refetch --set-upstream --show-forced-updates -t --tags --unshallow "
     "--update-shallow -v --verbose --write-fetch-head"),
    valued=("--deepen --depth --filter -j --jobs --negotiation-tip -o --server-option --shallow-exclude "
            "--shallow-since"))
"""Not ``--upload-pack`` (a program the model names)."""
PUSH = options(
    ("-4 -6 --all --atomic --branches -d --delete --dry-run -f --follow-tags --force --force-if-includes "
     "--ipv4 --ipv6 --mirror -n --no-atomic --no-follow-tags --no-force-if-includes --no-progress "
     "--no-thin --no-verify --porcelain --progress --prune -q --quiet --set-upstream --tags --thin -u -v "
     "--verbose --verify"),
    valued="-o --push-option",
    optional="--force-with-lease --recurse-submodules --signed")
"""Not ``--receive-pack``/``--exec`` (a program), nor ``--repo`` (a path)."""
DIFF_NAMES = options(
    ("-B -C --cached --compact-summary -D --exit-code --find-copies-harder --full-index "
     "--irreversible-delete -M --merge-base --name-only --name-status --no-color --no-ext-diff --no-patch "
     "--no-relative --no-renames --no-textconv --numstat --quiet -R --raw -s --shortstat --staged "
     "--summary -z"),
    valued="--diff-filter -l",
    optional=("--abbrev --break-rewrites --color --column --dirstat --find-copies --find-renames "
              "--ignore-submodules --relative --stat --stat-count --stat-graph-width --stat-name-width "
              "--stat-width"))
"""With one of :data:`.gitquiet.NAMES`, ``git diff`` prints names and counts of any
revisions. Not ``-U<n>``/``--unified``, ``--patch-with-stat``, ``--patch-with-raw``,
``--binary``, ``--word-diff``, ``--color-words``, ``-W``, ``--textconv``, ``--ext-diff``,
``--output``, ``--no-index``: each prints or writes contents (finding S6)."""
DIFF_PATCH = options(
    ("-b --exit-code --ignore-all-space --ignore-space-change --no-color --no-ext-diff --no-textconv "
     "--quiet -R -w"),
    optional="--color --column")
"""A patch of the work tree against the index: nothing that names a revision or the index
as a side (``--cached``, ``--merge-base``)."""
MOVES: dict[str, Options] = {
    "merge": options(("--abort --continue --ff --ff-only --log --no-commit --no-edit --no-ff --no-log "
                      "--no-stat --no-verify -n -q --quiet --quit --stat --squash -v --verbose"),
                     valued="-m --message -s --strategy -X --strategy-option"),
    "revert": options("--abort --continue --no-commit --no-edit -n -q --quit -s --signoff --skip",
                      valued="-m --mainline"),
    "pull": options(("--autostash --ff --ff-only --no-autostash --no-commit --no-edit --no-ff --no-rebase "
                     "--no-stat --no-tags --no-verify -n -p --prune -q --quiet -r --stat -t --tags -v "
                     "--verbose"),
                    optional="--rebase"),
}
"""``merge``, ``revert``, ``pull``: quiet only when every denied path git holds exists now,
so the sandbox hides it from the tree they lay out (``revert`` of the commit that deleted a
denied file lays it out again)."""

BY_SUBCOMMAND: dict[str, Options] = {
    "status": STATUS, "commit": COMMIT, "add": ADD, "branch": BRANCH, "tag": TAG, "remote": REMOTE,
    "init": INIT, "mv": MOVE, "rm": REMOVE, "clean": CLEAN, "restore": RESTORE, "config": CONFIG,
    "update-index": UPDATE_INDEX, "fetch": FETCH, "push": PUSH,
}
"""Subcommands judged by their options alone (``fetch``/``push``/``remote`` also by the
remotes they name)."""

__all__ = ["BY_SUBCOMMAND", "DIFF_NAMES", "DIFF_PATCH", "MOVES", "QUIET_ONLY", "RESET", "STASH_PUSH",
           "SWITCH", "SYMBOLIC_REF"]
