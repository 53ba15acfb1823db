"""Tester round 21, D1 and D2, through the real console script and bubblewrap: the
content-judged settings files under their everyday other names (Docker's
``docker-compose.prod.yml``, Spring profiles, .NET's ``appsettings.Production.json`` and
``Web.Release.config``, Helm's ``values.prod.yaml``, Ansible's ``group_vars/all/vault`` and
inventories, Terraform's ``*.tfvars.json``, a dotless netrc, Pulumi, a ConfigMap) and Secret
manifests as YAML and JSON also write them (CRLF, a comment, a tag, JSON on two lines) were
shown to commands unasked; the safe forms (a compose file's ``*_FILE`` paths, a chart's
Secret template, values naming a Secret, a number) were read as empty. (A template named
``secret.yaml`` stays hidden by its name, as every such file is.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_secret_content_cli import _auto_workspace

SECRET = {
    "docker-compose.prod.yml": "services:\n  db:\n    environment:\n      DB_PASSWORD: NpLcvcrUg6P3g4iM\n",
    "application-prod.yml": "spring:\n  datasource:\n    password: NpijR3AAZodEK3zQ\n",
    "application-prod.properties": "spring.datasource.password=NpQvCdy29cqeCXkh\n",
    "appsettings.Production.json": '{"ConnectionStrings": {"Db": "Server=db;Password=NpvHsZBKy5FH4BfL;"}}\n',
    "Web.Release.config": '<add name="x" connectionString="Server=db;Password=NpmxXbhKMtCg85RE;"/>\n',
    "values.prod.yaml": "db:\n  password: Np2NPu4tzzoxEHmg\n",
    "group_vars/all/vault": "vault_db_password: Npm5aNXK9kcUZeia\n",
    "inventory/hosts": "[web]\nhost1 ansible_ssh_pass=NpWhaTB6FLwwhAhE\n",
    "k8s/crlf.yaml": "apiVersion: v1\r\nkind: Secret\r\nstringData:\r\n  password: NpmpyjQnpWmqHMtL\r\n",
    "k8s/commented.yaml": "apiVersion: v1\nkind: Secret # db\nstringData:\n  password: NprY6XYzpVRGLE5M\n",
    "k8s/two-line.json": '{"kind": "Secret",\n "stringData": {"pw": "Np2dZLuCujtRcLyo"}}\n',
    "infra/prod.tfvars.json": '{"db_password": "NpTf7Qx2mWv9Lk4R"}\n',
    "docker/netrc": "machine api.example.com login bob password NpNr3Hc8sJd5Gz2W\n",
    "Pulumi.prod.yaml": "config:\n  app:dbPassword: NpPu9Ye4tBn6Vc3X\n",
    "k8s/settings.yaml": "apiVersion: v1\nkind: ConfigMap\ndata:\n  DB_PASSWORD: NpCm5Ka8rFw2Hq7Z\n",
}
PLAIN = {
    "docker-compose.yml": ("services:\n  db:\n    environment:\n"
                           "      POSTGRES_PASSWORD_FILE: /run/secrets/db\n# COMPOSE-FILE-READABLE\n"),
    "chart/templates/db.yaml": ("apiVersion: v1\nkind: Secret\ndata:\n"
                                    "  password: {{ .Values.db.password | b64enc }}  # TEMPLATE-READABLE\n"),
    "chart/values.yaml": ("db:\n  passwordSecretName: my-db-secret\n  adminPasswordKey: postgres-password\n"
                          "  tokenPath: /var/run/secrets/token  # VALUES-READABLE\n"),
    "application.yml": "security:\n  token-validity: 86400000  # SPRING-READABLE\n",
    "k8s/plain.yaml": "apiVersion: v1\nkind: ConfigMap\ndata:\n  LOG_LEVEL: debug  # CONFIGMAP-READABLE\n",
}


def test_other_names_and_shapes_are_hidden_and_the_safe_forms_are_not(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    _auto_workspace(cli_env, workspace, {**SECRET, **PLAIN})
    command = "find . -type f | sort | xargs cat; echo end-of-command"
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}, "id": "c1"}]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--approve", "never", "--no-session",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert "end-of-command" in r.stdout
    for rel, text in SECRET.items():
        value = "Np" + text.split("Np")[1][:14]
        assert value in text and value not in r.stdout, rel
    for readable in ("COMPOSE-FILE-READABLE", "TEMPLATE-READABLE", "VALUES-READABLE", "SPRING-READABLE",
                     "CONFIGMAP-READABLE"):
        assert readable in r.stdout, readable
