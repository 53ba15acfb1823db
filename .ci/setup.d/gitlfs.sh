#!/usr/bin/env bash
# git-lfs: the Git LFS tests (tests/sessions/test_git_lfs.py: LFS objects kept for
# /rewind, said when removed, checked after a command) run real git-lfs in the
# sandbox, and fail under CI=true when it is missing.
set -euo pipefail
if ! command -v git-lfs >/dev/null; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq git-lfs >/dev/null
fi
echo "git-lfs: $(command -v git-lfs) ($(git-lfs version))"
