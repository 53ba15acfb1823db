"""Tests that need the real bubblewrap sandbox: they fail under ``CI=true`` when it
is missing (CI installs it: .ci/setup.d/bubblewrap.sh) and skip elsewhere."""

from __future__ import annotations

import os

import pytest

from shell.permissions.sandbox import sandbox_status


def require_sandbox() -> None:
    status = sandbox_status()
    if status.available:
        return
    message = f"the bubblewrap sandbox is needed: {status.notice()}"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)
