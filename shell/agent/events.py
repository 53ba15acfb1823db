"""``shell.agent.events`` is :mod:`shell.core.events` (the names moved to the bottom layer;
this alias keeps older imports working and the objects identical)."""

import sys

from shell.core import events

sys.modules[__name__] = events
