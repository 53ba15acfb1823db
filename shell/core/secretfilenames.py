"""The tables of :mod:`shell.core.secrets`' one list of secret-looking file names: the
names themselves and what each usually holds (said in the question before one is read).
The rules that read them (backups and editors' copies, by-folder names, words) are there;
kept apart so the list can grow without the rules' module growing past its size."""

from __future__ import annotations

SECRET_FILE_NAMES = frozenset({
    ".env", ".envrc", ".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", ".pgpass", ".htpasswd",
    ".dockercfg", "credentials", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "secrets.json", "secrets.yml",
    "secrets.yaml", "secrets.toml", "service-account.json", "credentials.json", "token.json",
    "client_secret.json", "terraform.tfstate", "terraform.tfstate.backup", ".terraformrc", ".s3cfg",
    ".boto", "kubeconfig", ".vault-token", ".my.cnf", "auth.json", ".credentials.json",
    "credentials.tfrc.json", "application_default_credentials.json", "rclone.conf", "wallet.dat",
    ".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history",
    # the names keys are downloaded or kept under (finding K14): Firebase's docs, GCP's docs,
    # the AWS console's key downloads, wrangler's and act's local secrets, Azure Functions'
    "serviceaccountkey.json", "key.json", "keyfile.json", "sa-key.json", "gcp-key.json", "rootkey.csv",
    "credentials.csv", ".dev.vars", ".secrets", "local.settings.json", "secret.json", "secret.yml",
    "secret.yaml", "htpasswd", "token.txt", "api_key.txt", "apikey.txt",
    # finding L11: every WordPress site's database password and salts, Jenkins' stored
    # credentials (JENKINS_HOME is often kept in a config repository), gitlab-ci-local's
    # secret CI variables (gitignored by its docs), MySQL's login paths
    "wp-config.php", "credentials.xml", ".gitlab-ci-local-variables.yml", ".mylogin.cnf",
    # and their siblings (verify of L11): MediaWiki's and phpMyAdmin's configs, Drupal's local
    # settings, Jenkins' master key, the YAML spelling of gitlab-ci-local's variables
    "localsettings.php", "config.inc.php", "settings.local.php", "hudson.util.secret",
    ".gitlab-ci-local-variables.yaml",
    # finding N9: Ansible's vault password files, bare key files, curl's and yt-dlp's cookie jars
    ".vault_pass", "vault_pass", ".vault_pass.txt", "vault_pass.txt", "cookies.txt",
    "cookie.txt", "cookiejar", "cookiejar.txt", "cookie-jar.txt",
    # finding Q12: kubectl's config by another spelling, a Kubernetes pull secret, a service
    # account key's short name, Helm's secret values, Ansible's vault files before
    # `ansible-vault encrypt`, ASP.NET's production settings (connection strings)
    "kubeconfig.yaml", "kubeconfig.yml", ".dockerconfigjson", "sa.json", "values-secret.yaml",
    "values-secrets.yaml", "values-secret.yml", "vault.yml", "vault.yaml", "appsettings.production.json",
    # finding S3: Maven's master password (it decrypts settings.xml's passwords)
    "settings-security.xml",
})
"""Secret-looking by their whole name (lowercase), in any folder."""

_LOGINS, _TOKEN, _CLOUD = "logins and passwords", "an access token", "cloud access keys"
_REGISTRY = "a registry's access token or logins"
WHY_BY_NAME = {
    ".envrc": "direnv exports what it sets, often API keys and tokens, into your shell",
    ".netrc": _LOGINS, "_netrc": _LOGINS, ".git-credentials": _LOGINS, ".pgpass": _LOGINS,
    ".htpasswd": _LOGINS, ".npmrc": _REGISTRY, ".pypirc": _REGISTRY, ".dockercfg": _REGISTRY,
    ".terraformrc": _TOKEN, ".vault-token": _TOKEN, ".s3cfg": _CLOUD, ".boto": _CLOUD, "credentials": _CLOUD,
    "kubeconfig": "cluster credentials", "config": "cluster credentials", "config.json": _REGISTRY,
    ".my.cnf": _LOGINS, ".mylogin.cnf": _LOGINS, "auth.json": _TOKEN, ".credentials.json": _TOKEN,
    "credentials.tfrc.json": _TOKEN,
    "application_default_credentials.json": _CLOUD, "rclone.conf": _CLOUD, "hosts.yml": _TOKEN,
    "hosts.json": _TOKEN, "token": _TOKEN, "wallet.dat": "a cryptocurrency wallet's keys",
    ".bash_history": "commands typed in a shell, secrets typed inline among them",
    ".zsh_history": "commands typed in a shell, secrets typed inline among them",
    "wp-config.php": "WordPress's database password and secret keys",
    "credentials.xml": "Jenkins' stored credentials", "hudson.util.secret": "Jenkins' key to its credentials",
    "localsettings.php": "MediaWiki's database password and secret key",
    "config.inc.php": "phpMyAdmin's settings, passwords among them",
    "settings.local.php": "Drupal's local settings, the database password among them",
    ".gitlab-ci-local-variables.yml": "gitlab-ci-local's CI variables, secrets among them",
    "workspace.xml": "JetBrains run configurations, with their environment variables (keys among them)",
}
"""Why each name of the list holds secrets, said in the question before it is read."""
WHY_BY_SUFFIX = (
    ((".tfstate", ".tfstate.backup", ".tfvars"), "Terraform keeps secrets in it in plain text"),
    ((".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".asc", ".ppk"), "a private key or a key store"),
    ((".csv",), "cloud access keys"),
    ((".kdbx",), "a password database"),
    ((".json", ".yml", ".yaml", ".toml"), "credentials for a service"),
)
