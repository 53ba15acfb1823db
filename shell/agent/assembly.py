"""``shell.agent.assembly`` is :mod:`shell.core.assembly` (moved to the bottom layer,
where middleware can use it too; this alias keeps older imports working)."""

import sys

from shell.core import assembly

sys.modules[__name__] = assembly
