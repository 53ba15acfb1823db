"""Which values of an MCP server's settings are its keys (finding Q4): those the secrets
policy would call secret by name, a URL's password, a secret query parameter, the
argument after a secret-named flag; not ``${VAR}`` references nor ordinary settings."""

from __future__ import annotations

from shell.config import MCPServerSettings
from shell.core.mcpsecrets import server_secret_values


def test_keys_by_name_url_query_and_flag_and_nothing_else() -> None:
    entry = {"command": "srv", "args": ["--api-key", "flagvalue123", "--token=eqvalue456", "--port", "8080",
                                        "--db", "mysql://u:argpass789@h/db"],
             "env": {"SERVICE_TOKEN": "envtoken12345", "DB_URL": "postgres://admin:urlpass321@h/x",
                     "NODE_ENV": "production", "GITHUB_TOKEN": "${GITHUB_TOKEN}"},
             "url": "https://h/mcp?token=querytok987&region=eu-west-1",
             "headers": {"Authorization": "Bearer hdrbearer654", "X-Tenant": "acme-corp-tenant"}}
    found = server_secret_values(entry)
    assert found == {"flagvalue123", "eqvalue456", "argpass789", "envtoken12345", "urlpass321", "querytok987",
                     "Bearer hdrbearer654", "hdrbearer654"}
    settings = MCPServerSettings(url="https://h/mcp", headers={"X-Api-Key": "settingskey111"})
    assert server_secret_values(settings) == {"settingskey111"}
