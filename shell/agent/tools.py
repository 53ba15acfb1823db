"""``shell.agent.tools`` is :mod:`shell.core.tools` (the names moved to the bottom layer;
this alias keeps older imports working and the objects identical)."""

import sys

from shell.core import tools

sys.modules[__name__] = tools
