"""The home directory's credential stores a sandboxed command must not read.

Two parts, because no list of tools keeps up with the tools people install:

- :data:`SECRET_PATHS`, the known stores (cloud CLIs, registries, other agents' tokens,
  browser profiles, shell histories), hidden whether or not their names look secret
  (``~/.config/doctl/config.yaml`` holds a token under a harmless name);
- :func:`found_in_config`, a bounded look through ``~/.config``, ``~/.local/share``,
  ``~/.local/state`` (and the dot folders and dot files right in home) for files whose
  *name* the one secrets policy calls secret-looking (``auth.json``, ``credentials.toml``,
  ``token``, ``*.pem``, ``.env``…), that carry a token-ish word, or that are named
  like a history (``*_history``), so a tool nobody listed is still covered when it
  names its file the usual way;
- :data:`STARTUP_FILES`, the shells' interactive start-up files (``~/.bashrc``,
  ``~/.zshrc``, fish's ``config.fish`` and ``fish_variables``…): the most common place a
  developer exports API keys, so the environment scrub alone would be undone by
  ``grep KEY ~/.bashrc``. A sandboxed command needs none of them (``bash -c`` reads
  none), so they are hidden whole rather than copied with secret lines removed.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from shell.core.secretcontent import RACY_NS
from shell.core.secrets import is_secret_file

from .apphomes import editor_histories, mirrored_paths
from .configsniff import holds_credentials, reads
from .sourcedfiles import sourced_files

RC_STORES = (".wgetrc", ".wget2rc", ".config/wget", ".curlrc", ".config/.curlrc", ".mailrc", ".nailrc",
             ".esmtprc", ".lftprc", ".config/lftp/rc", ".config/yt-dlp/config", ".config/yt-dlp/config.txt",
             ".config/yt-dlp.conf", ".yt-dlp/config", ".yt-dlp/config.txt", "yt-dlp.conf", "yt-dlp.conf.txt",
             ".config/youtube-dl/config", ".config/youtube-dl.conf")  # fmt: skip
"""Download and mail tools' settings files that hold passwords in plain ``key value`` lines
(finding A3; lftp's ``open -u user,PASS host``, yt-dlp's ``--password PASS``): hidden
(:data:`SECRET_PATHS`)."""
VALUE_STORES = (*RC_STORES, ".netrc", ".authinfo", ".msmtprc", ".fetchmailrc", ".smbcredentials",
                ".git-credentials", ".pgpass")  # fmt: skip
"""Home's single-file stores whose values also go into the values net (:func:`value_stores`):
a copy printed elsewhere (an MCP server reading them as you, outside the sandbox) is
redacted, and an allowed ``fetch_url`` carrying one asks."""

SECRET_PATHS = (
    ".ssh", ".aws", ".gnupg", ".config/gh", ".config/hub", ".netrc", ".git-credentials",
    ".config/git/credentials", ".docker", ".kube", ".azure", ".config/gcloud", ".npmrc", ".yarnrc",
    ".yarnrc.yml", ".pypirc", ".pgpass", ".my.cnf", ".password-store", ".local/share/keyrings",
    ".vault-token", ".terraform.d", ".terraformrc", ".config/op", ".cargo/credentials",
    ".cargo/credentials.toml", ".gem/credentials", ".bundle/config", ".config/rclone", ".s3cfg", ".boto",
    ".m2/settings.xml", ".ivy2/.credentials", ".sbt/.credentials", ".nuget/NuGet/NuGet.Config",
    ".config/NuGet/NuGet.Config", ".mozilla", ".config/google-chrome", ".config/chromium",
    ".config/BraveSoftware", ".bash_history", ".zsh_history", ".python_history", ".psql_history",
    ".mysql_history", ".node_repl_history", ".lesshst", ".viminfo", ".Xauthority",
    # cloud, hosting and service CLIs whose files have harmless names
    ".config/glab-cli", ".config/doctl", ".fly", ".config/sops", ".config/age", ".wrangler",
    ".config/.wrangler", ".config/composer/auth.json", ".composer/auth.json", ".config/hcloud", ".oci",
    ".config/stripe", ".databrickscfg", ".sentryclirc", ".config/heroku", ".netlify", ".config/netlify",
    ".local/share/com.vercel.cli", ".railway", ".config/linode-cli", ".config/scw", ".pulumi",
    ".config/containers/auth.json", ".config/helm", ".ngrok2", ".config/ngrok", ".supabase",
    ".config/twilio-cli", ".bluemix", ".config/exoscale",
    # other agents and model tools: their OAuth tokens and API keys
    ".claude", ".claude.json", ".codex", ".gemini", ".cursor", ".continue", ".aider.conf.yml",
    ".config/github-copilot", ".config/anthropic", ".config/openai", ".config/gemini",
    ".huggingface", ".cache/huggingface/token", ".cache/huggingface/stored_tokens",
    ".gradle/gradle.properties", ".ollama/id_ed25519", ".config/configstore",
    # shell and REPL histories (typed passwords, `redis-cli AUTH`, `mongo -p`), beyond the
    # names :data:`_HISTORY` finds in home and its dot folders
    ".local/share/fish", ".config/fish/fish_history", ".local/share/atuin", ".config/atuin",
    ".local/share/nushell", ".config/nushell/history.txt", ".local/share/xonsh", ".local/state/elvish",
    ".local/share/nvim/shada", ".local/state/nvim/shada", ".mongodb", ".dbshell", ".mongoshrc.js",
    ".rediscli_history", ".sqlite_history", ".irb_history", ".ipython/profile_default/history.sqlite",
    ".julia/logs", ".local/share/ranger/history",
    # mail and chat clients' passwords in plain text
    ".authinfo", ".authinfo.gpg", ".msmtprc", ".config/msmtp", ".mbsyncrc", ".config/isync", ".fetchmailrc",
    ".offlineimaprc", ".config/offlineimap", ".muttrc", ".mutt", ".config/mutt", ".neomuttrc",
    ".config/neomutt",
    ".config/aerc", ".config/himalaya", ".getmail", ".purple", ".irssi", ".weechat", ".config/weechat",
    ".local/share/weechat", ".config/hexchat", ".smbcredentials", ".local/share/remmina", ".config/remmina",
    # tokens of tools and services under harmless names
    ".kaggle", ".dbt/profiles.yml", ".config/pip/pip.conf", ".pip/pip.conf", ".config/pip/pip.ini",
    ".circleci/cli.yml", ".wakatime.cfg", ".expo/state.json", ".config/filezilla", ".filezilla",
    ".snowsql/config", ".snowflake", ".cf/config.json", ".jfrog", ".config/jfrog", ".travis/config.yml",
    ".gist", ".config/Bitwarden CLI", ".config/Bitwarden", ".config/1Password", ".config/keybase",
    ".local/share/DBeaverData", ".local/share/kwalletd", ".ICEauthority",
    # Electron apps' profiles hold session cookies like a browser's; editors' global storage, tokens
    ".config/Slack", ".config/discord", ".config/Microsoft/Microsoft Teams", ".config/teams-for-linux",
    ".config/Signal", ".config/Element", ".config/Code/User/globalStorage",
    ".config/Code/User/workspaceStorage", ".config/Code - OSS/User/globalStorage",
    ".config/VSCodium/User/globalStorage", ".config/Cursor/User/globalStorage", ".vscode-server/data/User",
    ".cursor-server/data/User",
    # JetBrains IDEs keep their password database and its key in plain files (c.kdbx, c.pwd)
    ".config/JetBrains", ".config/sourcegraph",
    # model tools' keys under harmless names (llm's keys.json, aichat's and mods' configs…)
    ".config/io.datasette.llm", ".config/aichat", ".config/mods", ".config/shell_gpt", ".config/gptme",
    ".config/crush", ".local/share/crush", ".local/share/opencode", ".config/opencode", ".config/goose",
    ".codeium", ".tabnine", ".config/TabNine", ".cody", ".config/fabric", ".config/llm",
    # a mail client's saved passwords, password managers' sessions, service and VPN clients' keys
    ".thunderbird", ".lpass", ".config/lpass", ".local/share/lpass", ".config/openstack", ".mc",
    ".talos", ".config/openvpn", ".config/obs-studio/basic/profiles", ".config/syncthing",
    ".local/state/syncthing", ".config/spotify-tui", ".twilio-cli", ".local/state/lesshst",
    # finding L12: MySQL's login paths, Gitea's tea, Railway, Render, the jira CLIs (tokens in
    # plain text), conda's channel tokens (conda in a command uses its default channels)
    ".mylogin.cnf", ".config/tea", ".config/railway", ".render", ".config/jira", ".jira.d", ".condarc",
    # and more found by verifying it: Ansible's vault password files (they open every vault of
    # the project), nix's and cachix's tokens, Scaleway, Alibaba and Vultr keys, SVN's and CVS's
    # saved passwords, lftp's bookmarks, pgAdmin's saved servers, Postman's and Insomnia's
    # collections (tokens in them), Joplin's notes, qBittorrent's web password
    ".vault_pass.txt", ".vault_pass", ".ansible/vault_pass", ".ansible/vault_pass.txt",
    ".config/nix/nix.conf", ".config/cachix", ".scw", ".aliyun", ".vultr-cli.yaml", ".subversion/auth",
    ".cvspass", ".lftp",
    ".pgadmin", ".config/Postman", ".insomnia", ".config/Insomnia", ".config/joplin-desktop",
    ".config/qBittorrent",
    # secret managers' CLIs (one token opens every secret the user has), tunnels' secrets, bun's
    # registry token (finding Q25)
    ".doppler", ".infisical", ".cloudflared", ".bunfig.toml", ".config/pnpm/rc",
    # deleted files are still keys; browsers' caches hold logged-in pages; editors keep a copy
    # of every saved version of every file (.env files included) in their local history
    ".local/share/Trash", ".cache/google-chrome", ".cache/chromium", ".cache/mozilla",
    ".cache/BraveSoftware", ".config/Code/User/History", ".config/Code - OSS/User/History",
    ".config/VSCodium/User/History", ".config/Cursor/User/History",
    ".config/Code - OSS/User/workspaceStorage",
    ".config/VSCodium/User/workspaceStorage", ".config/Cursor/User/workspaceStorage",
    ".vscode-server/data/User/History",
    # finding S9: browsers beyond Chrome's and Chromium's (also found by what their folders hold,
    # :func:`.apphomes.profiles`), Telegram's session keys, podman's registry logins, backup
    # keys, chat apps, Steam's login, mail clients' mail and passwords
    ".config/microsoft-edge", ".config/microsoft-edge-beta", ".config/microsoft-edge-dev", ".config/vivaldi",
    ".config/vivaldi-snapshot", ".config/opera", ".config/opera-beta", ".config/opera-developer",
    ".config/google-chrome-beta", ".config/google-chrome-unstable", ".config/yandex-browser",
    ".config/yandex-browser-beta", ".cache/microsoft-edge", ".cache/vivaldi", ".cache/opera",
    ".cache/google-chrome-beta", ".cache/google-chrome-unstable", ".cache/yandex-browser",
    ".local/share/TelegramDesktop", ".local/share/containers/auth.json", ".config/borg", ".local/share/borg",
    ".config/restic", ".config/Mattermost", ".config/Wire", ".config/skypeforlinux",
    ".config/Element-Nightly",
    ".config/Rocket.Chat", ".config/zulip", ".local/share/Steam", ".steam", ".claws-mail",
    ".local/share/evolution", ".config/evolution", ".local/share/geary", ".config/geary",
    ".mozilla-thunderbird", ".local/share/mailspring", ".config/Mailspring", ".sylpheed-2.0",
    ".config/spotify/prefs",  # its autologin blob
    # finding A3: download and mail tools' rc files, credential stores by their manuals (wget's
    # `http_password`, curl's `user = "a:b"` and `oauth2-bearer`, s-nail's `smtp-auth-password`)
    *RC_STORES,
)  # fmt: skip
"""Relative to the home directory: hidden from sandboxed commands (credentials,
browser and chat apps' profiles with their cookies, shell and REPL histories that hold
typed secrets, mail clients' passwords)."""

SOURCED_DOTFILES = (
    ".secrets", ".exports", ".extra", ".localrc", ".bash_secrets", ".zsh_secrets", ".aliases", ".functions",
    ".path", ".bash_aliases", ".zsh_aliases", ".bash_functions", ".zsh_functions", ".bash_exports",
)  # fmt: skip
"""Relative to the home directory: the files dotfiles guides have the start-up files source,
often for keys (finding A3: ``export AWS_SECRET_ACCESS_KEY=…`` in ``~/.aliases``)."""

STARTUP_FILES = (
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bashrc.d", ".profile",
    ".profile.d", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".zshrc.d", ".config/zsh",
    ".oh-my-zsh/custom", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".xprofile", ".xsessionrc",
    ".pam_environment", ".config/environment.d", ".config/fish", ".config/nushell", ".config/xonsh",
    ".xonshrc", ".config/elvish", ".elvish/rc.elv", ".envrc", *SOURCED_DOTFILES,
)  # fmt: skip
"""Relative to the home directory: the shells' start-up files and folders (and the files
dotfiles guides source: :data:`SOURCED_DOTFILES`), hidden from sandboxed commands; so are
the other files the start-up files source (:mod:`.sourcedfiles`)."""

def home_stores(home: Path) -> list[Path]:
    """:data:`SECRET_PATHS` in ``home`` and in its snap and flatpak app homes, and every
    VS Code-like editor's local history (:mod:`.apphomes`), existing or not."""
    known = [home / rel for rel in SECRET_PATHS]
    return [*known, *mirrored_paths(home, SECRET_PATHS), *editor_histories(home)]


def value_stores(home: Path) -> list[Path]:
    """:data:`VALUE_STORES`, :data:`SOURCED_DOTFILES` and the other files the start-up
    files source that are files in ``home`` now: the values net's sources among home's
    stores (folders are not read for values): ``export AWS_SECRET_ACCESS_KEY=…`` in
    ``~/.aliases`` is redacted from a copy elsewhere, and an allowed ``fetch_url`` carrying
    it asks. (The shells' own start-up files are not: their exports are the environment's.)"""
    shells = {home / rel for rel in STARTUP_FILES if rel not in SOURCED_DOTFILES}
    sourced = [p for p in sourced_files(home) if p not in shells]
    stores = [*(home / rel for rel in (*VALUE_STORES, *SOURCED_DOTFILES)), *sourced]
    return [p for p in dict.fromkeys(stores) if os.path.isfile(p)]


_ZDOT = (".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout")


def startup_files(home: Path) -> list[Path]:
    """:data:`STARTUP_FILES` in ``home``, zsh's in ``$ZDOTDIR`` when it is set, and the
    files they source that hold keys (:func:`.sourcedfiles.sourced_files`)."""
    found = [home / rel for rel in STARTUP_FILES]
    zdotdir = os.environ.get("ZDOTDIR")
    if zdotdir and os.path.isabs(zdotdir):
        found.extend(Path(zdotdir) / name for name in _ZDOT)
    found.extend(sourced_files(home))
    return list(dict.fromkeys(found))


MAX_LOOKED_AT = 4_000
"""Entries :func:`found_in_config` reads at most in ``~/.config`` and home's dot folders,
and again in ``~/.local/share`` and ``~/.local/state``: an editor's or a browser's folder
can hold hundreds of thousands, and a command must not wait for them."""
LOCAL = (".local/share", ".local/state")
"""Where XDG tools keep data and state (opencode's ``auth.json``, zsh's ``history``):
looked through by name too, with a budget of their own so a big one starves no other."""
_DEPTH = 3
_SKIP = frozenset({
    "Code", "Code - OSS", "VSCodium", "Cursor", "google-chrome", "chromium", "BraveSoftware", "mozilla",
    "Slack", "discord", "Signal", "JetBrains", "libreoffice", "pulse", "node_modules", ".git", "cache",
    "Cache", "GPUCache", "share", "fontconfig", "dconf",
})  # fmt: skip
"""Big folders whose files are no CLI's credentials (browsers are hidden whole)."""
_LOCAL_SKIP = _SKIP | frozenset({
    "flatpak", "Steam", "icons", "fonts", "themes", "applications", "mime", "man", "locale",
    "containers", "virtualenvs", "pipx", "uv", "nvim", "Trash", "baloo", "tracker", "tracker3",
    "gnome-shell", "evolution", "akonadi", "kactivitymanagerd", "lutris", "bottles", "JetBrains",
    "gvfs-metadata", "zeitgeist", "recently-used.xbel", "mise", "rtx", "pnpm", "yarn", "go",
})  # fmt: skip
"""Also skipped in ``~/.local/share`` and ``~/.local/state``: apps, packages, caches."""
_TOKENISH = re.compile(r"token|credential|secret|passw|apikey|api_key|auth\.|keys\.(txt|json)|\.key$", re.I)
_HISTORY = re.compile(r"_history$|_hist$|^\.?histfile$|^\.?history(\.(db|sqlite|txt))?$|repl_history", re.I)
"""A shell's or REPL's history by its name (``.zsh_history``, ``.duckdb_history``,
``.octave_hist``, ``history.sqlite``): what people type there includes passwords."""


def _secret_looking(path: str, name: str) -> bool:
    """By its name, or a settings file setting a secret-named key (:mod:`.configsniff`)."""
    return (is_secret_file(path) or bool(_TOKENISH.search(name) or _HISTORY.search(name))
            or holds_credentials(path))

_cache: dict[Path, tuple[tuple[int, ...], tuple[str, ...], tuple[Path, ...]]] = {}


def found_in_config(home: Path) -> tuple[Path, ...]:
    """Files in ``~/.config``, ``~/.local/share``, ``~/.local/state`` (and the dot folders
    right in ``home``) whose names look like credentials, at most :data:`_DEPTH` folders
    down and :data:`MAX_LOOKED_AT` entries for ``~/.local``'s and as many for the rest
    (the home walk, :mod:`.homewalk`, finds secret-looking names below, at any depth);
    kept until a folder looked through changes (its ctime: a file created in
    ``~/.config/app/a`` during a run is found by the next command, finding Q8), or a settings
    file read for a token does (its ctime: a token a tool wrote into its ``config.json`` in
    place, the folder left as it was, r19)."""
    cached = _cache.get(home)
    if cached is not None and _ctimes(cached[1]) == cached[0]:
        return cached[2]
    found: list[Path] = []
    visited: list[str] = [str(home), str(home / ".local")]  # a new ~/.config or ~/.local/share
    known = frozenset(str(home / rel) for rel in SECRET_PATHS)  # hidden whole already
    local_budget = [MAX_LOOKED_AT]
    for rel in LOCAL:
        _look(home / rel, 1, found, local_budget, known, _LOCAL_SKIP, visited)
    budget = [MAX_LOOKED_AT]
    _look(home / ".config", 0, found, budget, known, _SKIP, visited)
    try:
        listed = os.listdir(home)
    except OSError:
        listed = []
    skip = (".config", ".local", ".cache")
    tops = sorted(e for e in listed if e.startswith(".") and e not in skip and str(home / e) not in known)
    for name in tops:
        path = home / name
        if os.path.isfile(path) and not os.path.islink(path):  # ~/.env, ~/.octave_hist
            if _secret_looking(str(path), name):
                found.append(path)
            elif reads(str(path)):
                visited.append(str(path))  # read for a token: looked at again when it changes
            continue
        _look(path, 1, found, budget, known, _SKIP, visited)
    ctimes = _ctimes(visited)
    if max(ctimes, default=0) < time.time_ns() - RACY_NS:  # else a second change in the same tick hides
        _cache[home] = (ctimes, tuple(visited), tuple(found))
    return tuple(found)


def _ctimes(folders: tuple[str, ...] | list[str]) -> tuple[int, ...]:
    """The folders' change times (-1 for one gone): a new entry in any of them changes it;
    and the settings files' read for a token (a write into one changes its own)."""
    out = []
    for folder in folders:
        try:
            out.append(os.stat(folder).st_ctime_ns)
        except OSError:
            out.append(-1)
    return tuple(out)


def _look(
    folder: Path, depth: int, found: list[Path], budget: list[int], known: frozenset[str],
    skip: frozenset[str], visited: list[str],
) -> None:
    if depth > _DEPTH or budget[0] <= 0:
        return
    try:
        with os.scandir(folder) as entries:
            listed = sorted(entries, key=lambda e: e.name)
    except OSError:
        return
    visited.append(str(folder))
    for entry in listed:
        budget[0] -= 1
        if budget[0] <= 0:
            return
        if entry.name in skip or entry.path in known:
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                _look(Path(entry.path), depth + 1, found, budget, known, skip, visited)
            elif _secret_looking(entry.path, entry.name):
                found.append(Path(entry.path))
            elif reads(entry.path):
                visited.append(entry.path)  # read for a token: looked at again when it changes
        except OSError:
            continue
