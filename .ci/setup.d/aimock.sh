#!/usr/bin/env bash
# aimock (npm @copilotkit/aimock, binary `llmock`): the local mock LLM server that
# tests/providers/test_aimock.py starts to check the OpenAI, Anthropic and Ollama
# providers against real wire formats. Installed into .ci/node (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v npm >/dev/null || { echo "aimock.sh: npm is required (install Node.js 20+)" >&2; exit 1; }
npm install --silent --no-audit --no-fund --prefix .ci/node @copilotkit/aimock
test -x .ci/node/node_modules/.bin/llmock
echo "aimock: $(.ci/node/node_modules/.bin/llmock --help >/dev/null 2>&1 && echo ok) .ci/node/node_modules/.bin/llmock"
