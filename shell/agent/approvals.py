"""``shell.agent.approvals`` is :mod:`shell.core.approvals` (the names moved to the bottom layer;
this alias keeps older imports working and the objects identical)."""

import sys

from shell.core import approvals

sys.modules[__name__] = approvals
