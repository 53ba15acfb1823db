"""``shell.agent.model`` is :mod:`shell.core.model` (the names moved to the bottom layer;
this alias keeps older imports working and the objects identical)."""

import sys

from shell.core import model

sys.modules[__name__] = model
