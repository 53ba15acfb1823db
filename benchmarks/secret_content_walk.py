"""What reading files for a credential by content costs the workspace walk.

``SecretFileIndex.find`` lists the workspace before a sandboxed command and hides
secret files: by name, and by content for the kinds :func:`shell.core.secretcontent.looked_into`
names (r18: also a private key block in a text file of any name, ``notes.txt``,
``config.yaml``, a ``.md``). Each verdict is kept by the file's size, mtime, ctime and
inode, so only a fresh index (agent-shell's start) or changed files read anything; a later
walk looks at each file read for its content again (one ``lstat``: a key written into a
file in place leaves its folder's listing as it was, r19). Shown: a fresh walk and a
later walk of the same index (its third: the second marks what the first judged), over a
made-up repository of 2,000 files (1,200 ``.py``, 300 ``.md``, 250 ``.txt``, 150 ``.yaml``,
100 ``.json``), median milliseconds (wall and CPU) of ``--rounds``.

    python benchmarks/secret_content_walk.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions.secretfiles import SecretFileIndex

KINDS = {".py": 1200, ".md": 300, ".txt": 250, ".yaml": 150, ".json": 100}


def make(root: Path) -> None:
    n = 0
    for ext, count in KINDS.items():
        for i in range(count):
            folder = root / f"pkg{n % 40}"
            folder.mkdir(exist_ok=True)
            (folder / f"f{i}{ext}").write_text(f"line {i}\n" * (40 + i % 200))
            n += 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make(root)
        time.sleep(0.2)  # files written long before the walk (a verdict on a file changed
        # less than RACY_NS before it is not kept, and the files are read again)
        fresh, cpu, again = [], [], []
        for _ in range(rounds):
            from shell.core import secretcontent

            secretcontent._verdicts.clear()
            index = SecretFileIndex([root])
            start, used = time.perf_counter(), time.process_time()
            found = index.find()
            fresh.append((time.perf_counter() - start) * 1e3)
            cpu.append((time.process_time() - used) * 1e3)
            index.find()
            start = time.perf_counter()
            index.find()
            again.append((time.perf_counter() - start) * 1e3)
        wall, used = statistics.median(fresh), statistics.median(cpu)
        print(f"2,000 files: fresh walk {wall:.1f} ms wall, {used:.1f} ms CPU;"
              f" again {statistics.median(again):.2f} ms (found {len(found.paths)})")


if __name__ == "__main__":
    main()
