"""Environment variables that point at credential files, and the files they name.

GCP's, kubectl's, sops', libpq's and the cloud CLIs' docs tell users to keep a key where
they like and set a variable to it (``GOOGLE_APPLICATION_CREDENTIALS=~/work/gcp/my-proj-
123456-abcdef.json``, ``KUBECONFIG=~/work/kube/prod.yaml``, ``SOPS_AGE_KEY_FILE``,
``PGPASSFILE``). Such a file's name need not look secret and its folder need not be a
dot folder, so neither the name rule nor the list of home's stores hid it, and the
variable itself told a sandboxed command where to look (tester round 11, Q29).

So this is the one place that says which variables name credentials by path: the
sandbox hides the file (or folder) each names, wherever it is, and the environment
scrub (:mod:`.sandboxenv`) keeps the variables out of the sandbox.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

CREDENTIAL_PATH_VARIABLES = frozenset({
    "GOOGLE_APPLICATION_CREDENTIALS", "CLOUDSDK_CONFIG", "KUBECONFIG", "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AZURE_CONFIG_DIR", "DOCKER_CONFIG",
    "SOPS_AGE_KEY_FILE", "SOPS_AGE_SSH_PRIVATE_KEY_FILE", "PGPASSFILE", "PGSSLKEY", "NETRC",
    "PIP_CONFIG_FILE",
    "NPM_CONFIG_USERCONFIG", "GH_CONFIG_DIR", "GLAB_CONFIG_DIR", "TF_CLI_CONFIG_FILE",
    "ANSIBLE_VAULT_PASSWORD_FILE", "VAULT_CONFIG_PATH", "BOTO_CONFIG", "BOTO_PATH", "OCI_CLI_CONFIG_FILE",
    "DIGITALOCEAN_CONFIG", "HELM_REGISTRY_CONFIG", "REGISTRY_AUTH_FILE", "MYSQL_TEST_LOGIN_FILE",
    "DATABRICKS_CONFIG_FILE", "SNOWSQL_CONFIG", "RCLONE_CONFIG", "TALOSCONFIG",
    "HF_TOKEN_PATH", "CARGO_CREDENTIALS", "GNUPGHOME", "PASSWORD_STORE_DIR", "SSL_CLIENT_KEY",
})  # fmt: skip
"""Variables documented to name a credential file or folder."""
_SUFFIXES = ("_KEY_FILE", "_TOKEN_FILE", "_PASSWORD_FILE", "_PASSFILE", "_SECRET_FILE", "_CREDENTIALS_FILE",
             "_CREDENTIALS", "_CREDENTIALS_PATH", "_CREDENTIAL_FILE", "_KEYFILE", "_PRIVATE_KEY_PATH",
             "_SECRETS_FILE", "_SECRETS_DIR")
"""…and the names tools give such variables (``ELASTIC_PASSWORD_FILE``, ``FIREBASE_CREDENTIALS``)."""


def names_credentials(name: str) -> bool:
    """Whether the variable ``name`` points at a credential file or folder by its name."""
    upper = name.upper()
    return upper in CREDENTIAL_PATH_VARIABLES or upper.endswith(_SUFFIXES)


def credential_paths(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The absolute paths the credential-naming variables of ``environ`` (default: ours)
    hold (each of a ``KUBECONFIG`` list; ``~`` expanded), whether they exist or not."""
    source = os.environ if environ is None else environ
    out: list[Path] = []
    for name, value in source.items():
        if not value or not names_credentials(name):
            continue
        for part in value.split(os.pathsep):
            part = os.path.expanduser(part.strip())
            path = Path(os.path.normpath(part)) if os.path.isabs(part) else None
            if path is not None and path.parent != path and path != Path.home():  # never / or home
                out.append(path)
    return out


__all__ = ["CREDENTIAL_PATH_VARIABLES", "credential_paths", "names_credentials"]
