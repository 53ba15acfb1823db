#!/usr/bin/env bash
# MCP servers written by others that tests/tools/test_mcp.py talks to. Under CI=true
# those tests fail (never skip) when a server is missing, so this must succeed.
#   mcp-server-time (PyPI): in the test extra already; installed again here so this
#     script also works on its own in any virtual environment.
#   @modelcontextprotocol/server-everything (npm): into .ci/node (git-ignored); the
#     tests run it with node over stdio and over streamable HTTP on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."

python -m pip install -q mcp-server-time
command -v node >/dev/null || { echo "mcp.sh: node is required for server-everything" >&2; exit 1; }
npm install --prefix .ci/node --no-audit --no-fund --loglevel=error \
    @modelcontextprotocol/server-everything@2026.8.31
test -f .ci/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js
