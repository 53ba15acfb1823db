"""``python -m shell``: the same as the ``agent-shell`` console script."""

from .cli import run

run()
