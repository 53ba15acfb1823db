"""What the workspace walk costs with a ``.gitignore`` and in a deep folder (J9, J10).

``walk_entries`` runs before and after every sandboxed command (the rewind capture)
and for ``@``, grep and glob. Before r10-ignore it tried every rule of every
``.gitignore`` on every path and re-matched every ancestor prefix of each folder
(rules x paths, depth squared); now each ``.gitignore`` is grouped once and the
rules that apply are carried down the walk. The old algorithm is rebuilt here
(:class:`OldIgnore`, the same path walk) so both run in one process, interleaved:

- *realistic*: 20,000 files, a 300-line Node+Python-like ``.gitignore``;
- *hostile*: 1,000 files, 2,000 rules ``*nomatch_N*.tmp`` (none match);
- *deep*: one chain of 400 empty folders;
and, for scale, the new walk on no ``.gitignore`` and on a 1,500-level chain.
Medians of the rounds, seconds per walk.

    python benchmarks/ignore_walk.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.tools.ignore import (
    DIR_FLAGS,
    GlobMatcher,
    IgnoreRule,
    glob_to_regex,
    parse_ignore_file,
    walk_entries,
)


class OldIgnore:
    """The matcher as it was: every rule of every ancestor's ``.gitignore`` on every path."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.by_dir: dict[str, list[tuple[IgnoreRule, GlobMatcher]]] = {}

    def rules_in(self, rel_dir: str) -> list[tuple[IgnoreRule, GlobMatcher]]:
        rules = self.by_dir.get(rel_dir)
        if rules is None:
            try:
                text = (self.root / rel_dir / ".gitignore").read_text()
            except OSError:
                text = ""
            rules = [(r, glob_to_regex(r.pattern, braces=False)) for r in parse_ignore_file(text, rel_dir)]
            self.by_dir[rel_dir] = rules
        return rules

    def ignored(self, rel: str, is_dir: bool) -> bool:
        if rel.rsplit("/", 1)[-1] == ".git":
            return True
        parts = rel.split("/")[:-1]
        chains = [self.rules_in("")] + [self.rules_in("/".join(parts[: k + 1])) for k in range(len(parts))]
        verdict = False
        for rules in chains:
            for rule, regex in rules:
                if rule.dir_only and not is_dir:
                    continue
                sub = rel
                if rule.base:
                    if not rel.startswith(rule.base + "/"):
                        continue
                    sub = rel[len(rule.base) + 1 :]
                if regex.match(sub if rule.anchored else sub.rsplit("/", 1)[-1]) is not None:
                    verdict = not rule.negate
        return verdict


def old_walk(root: Path) -> int:
    matcher, count, stack = OldIgnore(root), 0, [""]
    while stack:
        rel = stack.pop()
        with os.scandir(root / rel if rel else root) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in entries:
            sub = f"{rel}/{entry.name}" if rel else entry.name
            is_dir = entry.is_dir(follow_symlinks=False)
            if matcher.ignored(sub, is_dir):
                continue
            if is_dir:
                stack.append(sub)
            else:
                count += 1
    return count


def new_walk(root: Path) -> int:
    return sum(1 for _ in walk_entries(root, root))


REALISTIC = """node_modules/
jspm_packages/
bower_components/
dist/
build/
coverage/
.nyc_output
.next
.nuxt
.cache
.parcel-cache
*.log
npm-debug.log*
yarn-debug.log*
yarn-error.log*
*.pid
*.seed
*.pid.lock
*.tgz
.env
.env.local
.env.*.local
__pycache__/
*.py[cod]
*$py.class
*.so
.Python
develop-eggs/
downloads/
eggs/
.eggs/
lib64/
parts/
sdist/
var/
wheels/
*.egg-info/
.installed.cfg
*.egg
MANIFEST
*.manifest
*.spec
pip-log.txt
htmlcov/
.tox/
.nox/
.coverage
.coverage.*
nosetests.xml
coverage.xml
*.cover
.hypothesis/
.pytest_cache/
*.mo
*.pot
local_settings.py
db.sqlite3
instance/
.webassets-cache
.scrapy
docs/_build/
target/
.ipynb_checkpoints
.python-version
celerybeat-schedule
*.sage.py
.venv
venv/
ENV/
/site
.mypy_cache/
.dmypy.json
.pyre/
**/logs/*.gz
/out-*/
!keep.log
""" + "".join(f"*.gen{n}\nartifact_{n}\ntmp{n}/\n**/cache{n}\n/build{n}\n" for n in range(45))


def make_tree(root: Path, dirs: int, per_dir: int, gitignore: str) -> None:
    if gitignore:
        (root / ".gitignore").write_text(gitignore)
    for d in range(dirs):
        folder = root / f"pkg{d}" / "src"
        folder.mkdir(parents=True)
        for f in range(per_dir):
            (folder / f"mod{f}.{'py' if f % 3 else 'js'}").write_text("")


def make_chain(root: Path, depth: int) -> None:
    fd = os.open(root, DIR_FLAGS)
    for _ in range(depth):
        os.mkdir("x", dir_fd=fd)
        child = os.open("x", DIR_FLAGS, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(os.open("bottom.txt", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
    os.close(fd)


def remove_chain(root: Path, depth: int) -> None:
    """Undo :func:`make_chain` level by level (``shutil.rmtree`` recurses once a level)."""
    fds = [os.open(root, DIR_FLAGS)]
    for _ in range(depth):
        fds.append(os.open("x", DIR_FLAGS, dir_fd=fds[-1]))
    os.unlink("bottom.txt", dir_fd=fds[-1])
    os.close(fds.pop())
    while fds:
        os.rmdir("x", dir_fd=fds[-1])
        os.close(fds.pop())


def timed(fn: Callable[[Path], int], root: Path) -> float:
    start = time.perf_counter()
    fn(root)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        trees = {name: base / name for name in ("realistic", "plain", "hostile", "deep", "deeper")}
        for path in trees.values():
            path.mkdir()
        make_tree(trees["realistic"], 400, 50, REALISTIC)
        make_tree(trees["plain"], 400, 50, "")
        make_tree(trees["hostile"], 20, 50, "".join(f"*nomatch_{n}*.tmp\n" for n in range(2_000)))
        make_chain(trees["deep"], 400)
        make_chain(trees["deeper"], 1_500)
        assert old_walk(trees["realistic"]) == new_walk(trees["realistic"])
        assert old_walk(trees["hostile"]) == new_walk(trees["hostile"])
        cases = [("realistic, 300 rules, 20k files", "realistic"),
                 ("hostile, 2,000 rules, 1k files", "hostile"), ("deep, 400 levels", "deep")]
        samples: dict[str, list[float]] = {}
        for _ in range(rounds):
            for label, key in cases:
                samples.setdefault(f"old {label}", []).append(timed(old_walk, trees[key]))
                samples.setdefault(f"new {label}", []).append(timed(new_walk, trees[key]))
            samples.setdefault("new, no .gitignore, 20k files", []).append(timed(new_walk, trees["plain"]))
            samples.setdefault("new, deep 1,500 levels", []).append(timed(new_walk, trees["deeper"]))
        remove_chain(trees["deep"], 400)
        remove_chain(trees["deeper"], 1_500)
        med = {k: statistics.median(v) for k, v in samples.items()}
        print(f"{rounds} rounds, median seconds per walk, load {os.getloadavg()[0]:.1f}")
        for label, _ in cases:
            old, new = med[f"old {label}"], med[f"new {label}"]
            print(f"  {label:34} old {old:8.3f} s   new {new:7.3f} s   old/new {old / new:7.1f}x")
        plain = med["new, no .gitignore, 20k files"]
        print(f"  {'no .gitignore, 20k files':34} new {plain:7.3f} s   realistic/none "
              f"{med['new realistic, 300 rules, 20k files'] / plain:.2f}x")
        print(f"  {'deep, 1,500 levels':34} new {med['new, deep 1,500 levels']:7.3f} s")


if __name__ == "__main__":
    main()
