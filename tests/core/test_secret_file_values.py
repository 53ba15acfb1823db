"""Which values of a secret file are redacted when its content reaches the model some
other way (git's object store, a copy): those that look like secrets, and no word of
ordinary output."""

from __future__ import annotations

from shell.core.secretfilevalues import secret_file_values, token_like

DOTENV = """\
# an old key, commented out: OLD_API_KEY=sk-old-0123456789abcdef
OPENAI_API_KEY=sk-proj-abcDEF0123456789xyzXYZ
export DB_PASSWORD="Tr0ub4dor and 3 horses"
STRIPE='sk_live_51Habcdefghijklmnop'
SESSION_SECRET=s3cr3t-value # set by ops
BUILD_ID=8f3a9c2e1b4d7a6f5e0c
NODE_ENV=production
PORT=3000
DEBUG=true
API_URL=https://api.example.com/v1
LOG_DIR=/var/log/my-app-2024
NODE_OPTIONS=--max-old-space-size=4096
S3_BUCKET=my-bucket-2024-prod
TOKEN_URL=https://oauth2.example.com/token
KEY_FILE=./secrets/prod-key-2024.pem
"""


def test_values_under_secret_names_and_tokens_are_taken() -> None:
    values = secret_file_values(DOTENV)
    assert "sk-proj-abcDEF0123456789xyzXYZ" in values
    assert "Tr0ub4dor and 3 horses" in values  # export, quotes: as the program reads it
    assert "sk_live_51Habcdefghijklmnop" in values  # a token under a harmless name
    assert "s3cr3t-value" in values  # the comment is not part of it
    assert "8f3a9c2e1b4d7a6f5e0c" in values  # random-looking, whatever its name
    assert "sk-old-0123456789abcdef" in values  # a key commented out is a key still


def test_ordinary_words_hosts_paths_and_urls_are_not() -> None:
    values = secret_file_values(DOTENV)
    for plain in ("production", "3000", "true", "https://api.example.com/v1", "/var/log/my-app-2024",
                  "--max-old-space-size=4096", "my-bucket-2024-prod", "https://oauth2.example.com/token",
                  "./secrets/prod-key-2024.pem"):
        assert plain not in values, plain
    assert not any("#" in v or v.startswith(("'", '"')) for v in values), values


def test_json_and_yaml_secret_files() -> None:
    key_body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
    service_account = (
        '{\n  "type": "service_account",\n  "project_id": "my-project-123456",\n'
        f'  "private_key": "-----BEGIN PRIVATE KEY-----\\n{key_body}\\n-----END PRIVATE KEY-----\\n",\n'
        '  "client_email": "bot@my-project-123456.iam.gserviceaccount.com"\n}\n'
    )
    values = secret_file_values(service_account)
    assert f"-----BEGIN PRIVATE KEY-----\\n{key_body}\\n-----END PRIVATE KEY-----\\n" in values
    assert "service_account" not in values
    yaml = "production:\n  password: hunter2-but-longer\n  host: db.internal\n"
    assert secret_file_values(yaml) == ["hunter2-but-longer"]


def test_a_private_keys_lines_each_count() -> None:
    """``git log -p`` prints a key file line by line, ``+`` before each: the whole
    block is not in that output, its lines are."""
    lines = ["MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
             "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK"]
    pem = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----\n"
    values = secret_file_values(pem)
    assert all(line in values for line in lines)
    assert "-----END RSA PRIVATE KEY-----" not in values


def test_shapes_find_what_no_name_says() -> None:
    netrc = "machine github.com login bob password gh-pass-0123456789\n"
    url = "DATABASE_URL=postgres://app:Zq9-wLx-77pP@db.internal:5432/app\n"
    assert "gh-pass-0123456789" in secret_file_values(netrc)
    assert "Zq9-wLx-77pP" in secret_file_values(url)


def test_token_like() -> None:
    assert token_like("ghp_0123456789abcdefABCDEF")
    assert not token_like("short1")
    assert not token_like("two words 0123456789")
    assert not token_like("production-database")  # no digit
    assert not token_like("./build/output-2024-01")
    assert not token_like("release-2024-11-29-hotfix")  # words and a date: a name
    assert token_like("123e4567-e89b-12d3-a456-426614174000")


def test_a_short_value_under_a_secret_name_is_taken_with_its_name_only() -> None:
    """Finding P16: short dev passwords are the common case; alone, "root" or "admin1"
    would turn every such word of a command's output into [REDACTED]."""
    text = ('DB_PASSWORD=hunter2\nexport PGPASSWORD="root"\n  password: admin1 # dev\n'
            '"api_token": "ab12",\nAUTH_ENABLED=true\nREDIS_PASSWORD=$PW_1\nDB_PWD=pw\nNODE_ENV=prod\n')
    values = secret_file_values(text)
    assert values == ["DB_PASSWORD=hunter2", 'PGPASSWORD="root', "password: admin1", 'api_token": "ab12']
    assert "hunter2" not in values and "root" not in values
