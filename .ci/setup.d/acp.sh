#!/usr/bin/env bash
# The TypeScript reference implementation of the Agent Client Protocol
# (npm @agentclientprotocol/sdk, formerly @zed-industries/agent-client-protocol):
# tests/acp/test_ts_client.py runs its client with node against `agent-shell acp`,
# so a second, independent implementation checks ours. Installed into .ci/node
# (git-ignored); under CI=true that test fails (never skips) when it is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v node >/dev/null || { echo "acp.sh: node is required (Node.js 20+)" >&2; exit 1; }
npm install --prefix .ci/node --no-audit --no-fund --loglevel=error @agentclientprotocol/sdk@2.4.0
test -f .ci/node/node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js
echo "acp: $(node -p "require('./.ci/node/node_modules/@agentclientprotocol/sdk/package.json').version") .ci/node/node_modules/@agentclientprotocol/sdk"
