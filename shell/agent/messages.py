"""``shell.agent.messages`` is :mod:`shell.core.messages` (the names moved to the bottom layer;
this alias keeps older imports working and the objects identical)."""

import sys

from shell.core import messages

sys.modules[__name__] = messages
