"""Secrets never reach session files or exports."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from shell.agent import Agent, AssistantMessage, TextBlock, ToolCallBlock
from shell.core.messages import DataBlock, ToolResultMessage, UserMessage
from shell.core.tools import tool
from shell.providers.scripted import ScriptedModel
from shell.sessions import Redactor, SessionRecorder, SessionStore, export_markdown, load_session, redact
from shell.sessions.redact import REDACTED, secret_values

SAMPLES = {
    "openai": "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t",
    "anthropic": "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv",
    "github": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "github_pat": "github_pat_11ABCDEFG0abcdefghijklmnop",
    "aws": "AKIAIOSFODNN7EXAMPLE",
}


@pytest.mark.parametrize("kind", SAMPLES)
def test_pattern_secrets_are_redacted(kind: str) -> None:
    secret = SAMPLES[kind]
    out = Redactor().text(f"the key is {secret}.")
    assert secret not in out and out == f"the key is {REDACTED}."


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def", "eyJhbGciOiJIUzI1NiJ9",
         "Authorization: Bearer"),
        ("api_key=hunter2hunter2&x=1", "hunter2hunter2", "api_key="),
        ('{"api_key": "s3cr3t-value"}', "s3cr3t-value", '"api_key": "'),
        ("export OPENAI_API_KEY='zzzzzzzzzz'", "zzzzzzzzzz", "OPENAI_API_KEY="),
        ("DB_PASSWORD: correct-horse-battery-9", "correct-horse", "DB_PASSWORD: "),
        ("password = 'no-digits-but-quoted'", "digits", "password = '"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "MIIEow", ""),
    ],
)
def test_shapes_of_assignments_and_headers(text: str, gone: str, kept: str) -> None:
    out = Redactor().text(text)
    assert gone not in out and kept in out and REDACTED in out


@pytest.mark.parametrize(
    "text",
    [
        "Ask the task runner; the tokenizer splits tokens. Risk-free sk-8 skis. AKIA is short.",
        "token = self._next_token()\npassword = getpass.getpass()\napi_key = os.environ['API_KEY']",
        "if token == expected: return secret_value",
        "See https://github.com/org/repo/settings/hooks/123456789 and .git/hooks/pre-commit, "
        "https://docs.python.org/3/library/os.html?highlight=environ#os.environ",
    ],
)
def test_ordinary_text_and_code_are_left_alone(text: str) -> None:
    assert Redactor().text(text) == text


def test_secret_values_from_the_environment_and_config() -> None:
    env = {
        "MY_SERVICE_TOKEN": "tok-1234567890", "SHORT_KEY": "abc", "PATH": "/usr/bin:/bin",
        "VLLM": "vllm-secret-value", "DB_PASSWORD": "pa55word-long", "HOME_DIR_SECRET": "",
    }
    settings = SimpleNamespace(providers={
        "vllm": SimpleNamespace(
            api_key_env="VLLM", api_key="inline-key-123", headers={"X-Auth": "Bearer hdr-tok-99"}
        ),
    })
    values = secret_values(env, settings)
    assert set(values) == {
        "tok-1234567890", "vllm-secret-value", "pa55word-long", "inline-key-123", "hdr-tok-99"
    }
    r = Redactor.from_environment(settings, env)
    assert r.text("a vllm-secret-value b tok-1234567890 c abc") == f"a {REDACTED} b {REDACTED} c abc"


def test_redact_function_uses_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZZ_TEST_TOKEN", "value-that-is-secret")
    assert redact("x value-that-is-secret y") == f"x {REDACTED} y"


@tool
async def env_dump() -> str:
    """Prints the environment."""
    return "OPENAI_API_KEY=sk-live-0123456789abcdefghij\nMY_APP_TOKEN=plain-env-value-42"


@pytest.mark.anyio
async def test_secrets_are_redacted_in_the_file_and_the_export(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_APP_TOKEN", "plain-env-value-42")
    agent = Agent(ScriptedModel([
        AssistantMessage((ToolCallBlock("c1", "env_dump", {}),)),
        AssistantMessage((TextBlock("Token plain-env-value-42 and key sk-live-0123456789abcdefghij"),
                          ToolCallBlock("c2", "env_dump", {"token": "plain-env-value-42"}))),
        "done",
    ], delay=0.001, chunk_size=3), tools=[env_dump])
    with SessionRecorder(store, agent, checkpoint_interval=0.0) as rec:
        async for _ in rec.record(agent.reply("my key is sk-ant-api03-0123456789abcdefXYZ")):
            pass
    raw = rec.path.read_text()
    for secret in ("plain-env-value-42", "sk-live-0123456789abcdefghij", "sk-ant-api03-0123456789abcdefXYZ"):
        assert secret not in raw
    assert '"kind":"checkpoint"' in raw and REDACTED in raw
    loaded = load_session(rec.path)
    exported = export_markdown(loaded)
    assert "plain-env-value-42" not in exported and REDACTED in exported
    # an export of the live (unredacted) history is redacted too
    live = export_markdown(agent.messages)
    assert "plain-env-value-42" not in live and "sk-live-0123456789abcdefghij" not in live


def test_data_blocks_are_not_touched(tmp_path: Path) -> None:
    payload = b"api_key=abcdefghijkl sk-ant-0123456789abcdefghij"
    m = ToolResultMessage("c", "n", (DataBlock("application/octet-stream", payload),))
    assert Redactor().message(m) == m
    u = UserMessage("api_key=abc123defghi")
    assert Redactor().message(u) == UserMessage(f"api_key={REDACTED}")


@tool
def read_config() -> str:
    """Reads the config."""
    return "DB_HOST=db.internal\nDB_PASSWORD=Tr0ub4dor-and-3-horses\nurl: postgres://admin:S3cretPassw0rd@db/app"


@pytest.mark.anyio
async def test_a_password_redacted_in_a_result_stays_redacted_when_the_model_repeats_it(
    store: SessionStore,
) -> None:
    """The answer "the password is Tr0ub4dor-and-3-horses" has no name to go by: the
    value was caught by its context in the tool result, and is caught after it too
    (finding J3), in the session file, its search and the export."""
    agent = Agent(ScriptedModel([
        AssistantMessage((ToolCallBlock("c1", "read_config", {}),)),
        "The password is Tr0ub4dor-and-3-horses and the admin one S3cretPassw0rd.",
    ], delay=0.001, chunk_size=5), tools=[read_config])
    with SessionRecorder(store, agent, checkpoint_interval=0.0) as rec:
        async for _ in rec.record(agent.reply("what is the db password?")):
            pass
    raw = rec.path.read_text()
    assert "Tr0ub4dor-and-3-horses" not in raw and "S3cretPassw0rd" not in raw
    assert f"The password is {REDACTED} and the admin one {REDACTED}." in raw
    assert "db.internal" in raw  # the rest of the result is kept
    exported = export_markdown(agent.messages)
    assert "Tr0ub4dor-and-3-horses" not in exported and "S3cretPassw0rd" not in exported


def test_what_one_redactor_learns_stays_with_it() -> None:
    first = Redactor()
    assert first.text("password: correct-horse-battery") == f"password: {REDACTED}"
    assert first.text("it was correct-horse-battery") == f"it was {REDACTED}"
    assert Redactor().text("it was correct-horse-battery") == "it was correct-horse-battery"
    assert first.text("password: short1") == f"password: {REDACTED}"
    assert first.text("short1 alone") == "short1 alone"  # under 8 characters: too common to learn


def test_a_flood_of_passwords_is_learned_only_up_to_a_bound() -> None:
    """Each learned value recompiles the redactor: thousands of ``password=…`` lines,
    each repeated later, would make every later message cost seconds. Past the bound
    a value is still redacted where its context shows it."""
    from shell.core.secrets import MAX_LEARNED

    r = Redactor(patterns=True)
    r.text("\n".join(f"password=Secret{i:06d}xyz" for i in range(5_000)))
    assert len(r.values) == MAX_LEARNED
    assert r.text("it was Secret000000xyz") == f"it was {REDACTED}"  # learned first (sorted)
    assert r.text("password=Another-one-9") == f"password={REDACTED}"


@pytest.mark.parametrize("hidden", ["\u200b", "\u00ad", "\u2060", "\u200b\u00ad\ufeff"])
def test_a_key_with_invisible_characters_between_its_letters_is_redacted_whole(hidden: str) -> None:
    """The receiver drops U+200B or a soft hyphen, so the key is still the key: it must
    not be stored whole because an invisible character sits between its letters."""
    key = "ghp_FAKE16C7e42F292c6912E7710c838347Ae178B4a"
    for spaced in (key[:6] + hidden + key[6:], key[:34] + hidden + key[34:]):
        out = redact(f"token {spaced} end")
        assert out == f"token {REDACTED} end", out


def test_ordinary_text_with_invisible_characters_stays_as_it_is() -> None:
    text = "family 👨\u200d👩\u200d👧, co\u00adoperate, word\u200bjoin, ok"
    assert redact(text) == text
