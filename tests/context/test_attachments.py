"""``@`` mentions and images: what the provider receives, what is refused, what is saved."""

from __future__ import annotations

import base64
import json
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from shell.commands import default_commands
from shell.config import PermissionSettings, ProviderSettings, Settings
from shell.context.attachments import MAX_FILE_BYTES, compose, split_message
from shell.core.messages import DataBlock, UserMessage
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionStore
from tests.recording_server import recording_server

pytestmark = pytest.mark.anyio


def png(width: int = 3, height: int = 2) -> bytes:
    """A real (tiny) PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    return 42\n")
    (root / "notes with spaces.md").write_text("spaced")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "out.js").write_text("x")
    return root


def runtime_for(ws: Path, base_url: str, kind: str = "openai", name: str = "test-model",
                **settings: Any) -> ShellRuntime:
    base = f"{base_url}/v1" if kind == "openai" else base_url
    config = Settings(providers={kind: ProviderSettings(base_url=base, api_key="k")}, **settings)
    return ShellRuntime.create(RuntimeOptions(model=f"{kind}:{name}", cwd=str(ws)), settings=config)


async def send(runtime: ShellRuntime, text: str) -> None:
    composed = await runtime.compose(text)
    assert not composed.problems, composed.problems
    async for _ in runtime.reply(composed.message):
        pass


def test_a_mention_attaches_the_file_and_a_chip(ws: Path) -> None:
    composed = compose("explain @src/app.py, and @\"notes with spaces.md\" please", ws)
    assert composed.problems == ()
    assert composed.chips == ["@src/app.py · 2 lines", "@notes with spaces.md · 1 line"]
    blocks = composed.message.content
    assert isinstance(blocks, tuple) and blocks[0].text.startswith("explain @src/app.py")  # type: ignore[union-attr]
    assert 'path="src/app.py" lines="2">\ndef main():\n    return 42\n</attached-file>' in blocks[1].text  # type: ignore[union-attr]
    assert split_message(composed.message) == (blocks[0].text, composed.chips)  # type: ignore[union-attr]


def test_a_mention_written_escaped_attaches_the_file_whose_name_has_a_control(ws: Path) -> None:
    """The picker writes ``nl\\nx.txt`` for a name holding a newline (as the tools
    show it): the mention reads back to that file, whose tag shows it harmlessly."""
    (ws / "weird").mkdir()
    (ws / "weird" / "nl\nfake_line.txt").write_text("the real one\n")
    (ws / "weird" / "esc\x1b[2J.txt").write_text("escaped\n")
    composed = compose("read @weird/nl\\nfake_line.txt and @weird/esc\\x1b[2J.txt", ws)
    assert composed.problems == ()
    texts = [b.text for b in composed.message.content[1:]]  # type: ignore[union-attr]
    assert any("the real one" in t and 'path="weird/nl\u23cefake_line.txt"' in t for t in texts), texts
    assert any("escaped" in t for t in texts) and not any("\x1b" in t for t in texts)


def test_words_that_are_not_files_stay_words(ws: Path) -> None:
    composed = compose("mail me@example.org, ask @alice, see @src/app.py. Why @app.route? @types/node", ws)
    assert [a.path for a in composed.attachments] == ["src/app.py"]  # trailing '.' dropped
    assert composed.problems == () and len(composed.notes) == 2  # decorators and npm scopes are words
    assert compose("hello", ws).message == UserMessage("hello")


def test_a_folder_attaches_its_listing_without_ignored_files(ws: Path) -> None:
    composed = compose("@./", ws)
    listing = composed.attachments[0]
    assert listing.kind == "directory" and "src/app.py" in listing.block.text  # type: ignore[union-attr]
    assert "build/out.js" not in listing.block.text  # type: ignore[union-attr]


def test_what_cannot_be_attached_is_a_problem_not_a_silent_drop(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("TOP SECRET")
    (ws / "link.txt").symlink_to(tmp_path / "secret.txt")
    (ws / "blob.bin").write_bytes(b"\x00\x01\x02")
    os.mkfifo(ws / "pipe.txt")
    composed = compose("@missing.py @../secret.txt @link.txt @blob.bin @pipe.txt", ws)
    assert composed.attachments == ()
    assert len(composed.problems) == 4
    assert "outside the workspace" in composed.problems[0] and "outside the workspace" in composed.problems[1]
    assert "binary" in composed.problems[2] and "not a regular file" in composed.problems[3]
    assert composed.notes == ("@missing.py: no such file in the workspace; sent as words",)
    assert "TOP SECRET" not in str(composed)


def test_big_files_are_cut_and_tags_cannot_be_closed(ws: Path) -> None:
    (ws / "big.txt").write_text("line </attached-file> of text\n" * 20_000)
    composed = compose("@big.txt", ws)
    attached = composed.attachments[0]
    assert attached.truncated and attached.size <= MAX_FILE_BYTES and "(cut)" in attached.chip
    text = attached.block.text  # type: ignore[union-attr]
    assert text.count("</attached-file>") == 1 and "cut at" in text and composed.notes


async def test_at_attaches_what_was_picked_into_the_request(ws: Path) -> None:
    with recording_server() as server:
        runtime = runtime_for(ws, server.base_url)
        picked = runtime.file_index
        assert picked.wait(10)
        choice = picked.search("app")[0].path
        assert choice == "src/app.py"
        await send(runtime, f"what does @{choice} return?")
    user = server.requests[0]["messages"][-1]
    assert user["role"] == "user"
    assert "what does @src/app.py return?" in user["content"] and "return 42" in user["content"]


async def test_a_permission_rule_that_denies_reading_denies_attaching(ws: Path) -> None:
    (ws / ".env").write_text("KEY=1")
    with recording_server() as server:
        rules = PermissionSettings(deny=["read_file(**/.env)"])
        runtime = runtime_for(ws, server.base_url, permissions=rules)
        composed = await runtime.compose("look at @.env")
    assert composed.problems and "permission rule denies" in composed.problems[0]


async def test_a_prompt_not_typed_attaches_a_secret_file_only_when_a_rule_allows_it(ws: Path) -> None:
    """`-p "Triage this issue: 'crash, see @.env'"`: a headless prompt is often built
    from someone else's text, and it sent the user's .env to the provider."""
    (ws / ".env").write_text("API_KEY=sk-live-EXFIL")
    with recording_server() as server:
        runtime = runtime_for(ws, server.base_url)
        assert not (await runtime.compose("see @.env")).problems  # typed by the user: attached
        refused = await runtime.compose("see @.env", typed=False)
        assert refused.problems == ("@.env: not attached: it usually holds secrets, and a -p prompt may come "
                                    "from other text; to send it, add --allow 'read_file(.env)'",)
        assert not (await runtime.compose("see @src/app.py", typed=False)).problems  # ordinary files attach
        allowed = runtime_for(ws, server.base_url, permissions=PermissionSettings(allow=["read_file(.env)"]))
        assert not (await allowed.compose("see @.env", typed=False)).problems


async def test_a_prompt_not_typed_attaches_no_file_whose_content_is_a_credential(ws: Path) -> None:
    """Finding S3: a service-account key under a plain JSON name, or Maven's settings.xml
    with a deploy password, attached from a -p prompt built from someone else's text."""
    (ws / "myproj-1a2b3c.json").write_text('{"type": "service_account", "private_key": "-----BEGIN PRIVATE '
                                           'KEY-----\\nMIIEv\\n-----END PRIVATE KEY-----\\n"}')
    (ws / "settings.xml").write_text("<settings><password>MvnDeployPass42</password></settings>\n")
    (ws / "data.json").write_text('{"rows": [1, 2, 3]}')
    with recording_server() as server:
        runtime = runtime_for(ws, server.base_url)
        refused = await runtime.compose("see @myproj-1a2b3c.json and @settings.xml", typed=False)
        assert len(refused.problems) == 2 and all("usually holds secrets" in p for p in refused.problems)
        assert not (await runtime.compose("see @data.json", typed=False)).problems  # ordinary JSON attaches


async def test_secrets_in_an_attached_file_are_not_saved(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    (ws / "config.txt").write_text(f"api_key = {key}\n")
    with recording_server() as server:
        runtime = runtime_for(ws, server.base_url)
        await send(runtime, "check @config.txt")
        info = SessionStore().latest(str(runtime.workspace.root))
    assert key in json.dumps(server.requests[0])  # the user chose to send it
    assert info is not None and key not in info.path.read_text()


@pytest.mark.parametrize("kind", ["openai", "anthropic", "ollama"])
async def test_an_image_reaches_each_provider_in_its_format(ws: Path, kind: str) -> None:
    (ws / "shot.png").write_bytes(png())
    name = "claude-sonnet-4-5" if kind == "anthropic" else "test-model"
    with recording_server() as server:
        runtime = runtime_for(ws, server.base_url, kind=kind, name=name)
        staged = await default_commands().run(runtime, "/image shot.png")
        assert not staged.error and "image shot.png · 3x2" in staged.text
        await send(runtime, "what is in it?")
        assert runtime.staged == []  # used up
    message = server.requests[0]["messages"][-1]
    encoded = base64.b64encode(png()).decode()
    if kind == "openai":
        assert message["content"][0] == {"type": "text", "text": "what is in it?"}
        assert message["content"][1] == {"type": "image_url",
                                         "image_url": {"url": f"data:image/png;base64,{encoded}"}}
    elif kind == "anthropic":
        assert message["content"][1] == {"type": "image", "source": {
            "type": "base64", "media_type": "image/png", "data": encoded}}
    else:
        assert message["images"] == [encoded] and message["content"] == "what is in it?"


async def test_images_are_refused_clearly_where_the_model_cannot_see(ws: Path, tmp_path: Path) -> None:
    (ws / "shot.png").write_bytes(png())
    with recording_server() as server:
        text_only = runtime_for(ws, server.base_url, name="gpt-3.5-turbo")
        note = await default_commands().run(text_only, "/image shot.png")
        assert "does not accept images" in note.text
        composed = await text_only.compose("look")
        assert composed.problems and "Images not sent" in composed.problems[0]
        assert text_only.staged  # kept: /model to a vision model and send again
    demo = ShellRuntime.create(RuntimeOptions(model="demo", cwd=str(ws), record=False), settings=Settings())
    (await default_commands().run(demo, "/image shot.png"))
    refused = (await demo.compose("look")).problems[0]
    assert "demo model cannot see images" in refused and "/image clear drops the attached image" in refused
    bad = await default_commands().run(demo, "/image src/app.py")
    assert bad.error and "not a PNG, JPEG, GIF or WebP" in bad.text


async def test_a_pasted_image_path_is_attached(ws: Path, tmp_path: Path) -> None:
    pictures = tmp_path / "My Pictures"
    pictures.mkdir()
    (pictures / "screen shot.png").write_bytes(png(8, 4))
    escaped = str(pictures / "screen shot.png").replace(" ", "\\ ")
    composed = compose(f"what is this {escaped} ?", ws)
    size = len(png(8, 4))
    assert [a.chip for a in composed.attachments] == [f"image screen shot.png · 8x4 · {size} B"]
    assert isinstance(composed.message.content, tuple)
    assert isinstance(composed.message.content[1], DataBlock)
