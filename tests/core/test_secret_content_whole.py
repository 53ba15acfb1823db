"""A content-judged file is read whole (up to its kind's cap), not its first 64 KB: a
Helm chart's copied values.yaml runs 50-150 KB and sets its password anywhere, a runbook
gets a key pasted at its end (tester round 21, D10)."""

from __future__ import annotations

from pathlib import Path

from shell.core.secretcontent import MAX_BYTES, MAX_TEXT, secret_content_why

PAD = "# " + "x" * 98 + "\n"
BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n" * 8
KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + BODY + "-----END OPENSSH PRIVATE KEY-----\n"


def test_a_password_set_at_the_end_of_a_big_values_file_counts(tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text("image: nginx\n" + PAD * 700 + "auth:\n  postgresPassword: Zq8wXe3rTy6uIo1p\n")
    assert 64 * 1024 < values.stat().st_size < MAX_BYTES
    assert secret_content_why(str(values)) == "a password or token set in it"
    values.write_text("image: nginx\n" + PAD * 700 + "auth:\n  existingSecret: my-db\n")
    assert secret_content_why(str(values)) == ""


def test_a_key_pasted_at_the_end_of_a_long_note_counts(tmp_path: Path) -> None:
    notes = tmp_path / "big-notes.md"
    notes.write_text("# notes\n" + PAD * 800 + KEY)
    assert 64 * 1024 < notes.stat().st_size < MAX_TEXT
    assert secret_content_why(str(notes)) == "a private key"


def test_a_compose_file_with_its_password_last_counts(tmp_path: Path) -> None:
    compose = tmp_path / "docker-compose.yml"
    db = "  db:\n    environment:\n      POSTGRES_PASSWORD: Dc83hdPq2LmXz7\n"
    compose.write_text("services:\n" + PAD * 700 + db)
    assert secret_content_why(str(compose)) != ""


def test_a_home_settings_file_with_a_token_past_64_kb_counts(tmp_path: Path) -> None:
    from shell.permissions.configsniff import holds_credentials

    settings = tmp_path / ".config" / "tool" / "settings.yaml"
    settings.parent.mkdir(parents=True)
    settings.write_text("theme: dark\n" + PAD * 700 + "api_token: Ht83hdPq2LmXz7RtQ9\n")
    assert holds_credentials(str(settings))
