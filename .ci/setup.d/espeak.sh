#!/usr/bin/env bash
# espeak-ng: the offline speech engine behind the TTS middleware's default
# (shell/speech/espeak.py). tests/speech/test_espeak.py synthesises real audio with
# it and fails under CI=true when it is missing.
set -euo pipefail
if command -v espeak-ng >/dev/null; then
    echo "espeak: $(command -v espeak-ng) (already installed)"
    exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq espeak-ng >/dev/null
echo "espeak: $(command -v espeak-ng)"
