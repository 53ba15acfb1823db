#!/usr/bin/env bash
# bubblewrap (bwrap): the sandbox run_shell commands run in on Linux
# (shell/permissions/sandbox.py). tests/permissions/test_sandbox.py, the run_shell
# tests and the attack replays in tests/cli/test_attacks.py use it and fail under
# CI=true when it is missing or cannot create namespaces.
set -euo pipefail
if ! command -v bwrap >/dev/null; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq bubblewrap >/dev/null
fi
echo "bubblewrap: $(command -v bwrap) ($(bwrap --version))"
if ! bwrap --die-with-parent --unshare-all --ro-bind / / --dev /dev --proc /proc -- /bin/true; then
    echo "warning: bubblewrap is installed but cannot create namespaces here; the sandbox tests will fail" >&2
fi
