"""Credentials whose value is not beside its name (issue 31, causes 1 to 3), read by the structure of
their text: each found raw and inside the JSON string an export holds it in, gone from every
export format with the export not blocked, and counted by the audit of the unredacted session.
Structure that holds no credential stays.

Every form here leaked on the scanner before the structure reader (ruleset 6). The generator
(``generator.py``, ``test_generator.py``) tries the same causes in many more combinations.
"""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import SecretScanner, Selection, audit_bytes, export_snapshot
from rho_desk.core.wire.codec import encode_pretty
from rho_desk.core.wire.model import Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

SCANNER = SecretScanner()
KEY = bytes(range(32))
IDENTITY = ModelIdentity("openai", "responses", "gpt-5")


def _rows(text: str) -> str:
    """``text`` as ``read_file`` shows it: ``N:line`` rows."""
    return "\n".join(f"{n}:{line}" for n, line in enumerate(text.splitlines(), 1))


def _diff(text: str) -> str:
    """``text`` added by a diff: ``+`` lines under a hunk header."""
    lines = text.splitlines()
    return "\n".join(["--- a/f", "+++ b/f", f"@@ -0,0 +1,{len(lines)} @@", *(f"+{line}" for line in lines)])


_BLOCK = "auth:\n  password: |\n    Gq8vL2mTq9\n    Rz7wK4nXp3\n  retries: 3\n"
_FOLDED = "auth:\n  db_password: >-\n    Blue horse seven\n    staple battery\n"
_CONTINUED = 'auth:\n  password: "Hq7rL9 kXmP\n    2vTz8 wNq"\n'
_TOML = '[database]\npassword = """\nTomlMultiPass\nSecondLine42\n"""\n'
_HEREDOC = 'resource "db" "main" {\n  password = <<EOT\nHclHeredocPass9\nEOT\n}\n'
_HEREDOC_DASH = 'resource "db" "main" {\n  master_password = <<-EOT\n    IndentedHeredoc7\n  EOT\n}\n'
_PROPERTIES = "db.password=PropStart\\\n    PropEnd99\nhost=db\n"

CAUGHT: dict[str, tuple[str, tuple[str, ...]]] = {
    # 1. the value is not on the name's line
    "yaml block scalar": (_BLOCK, ("Gq8vL2mTq9", "Rz7wK4nXp3")),
    "yaml folded block scalar": (_FOLDED, ("Blue horse seven", "staple battery")),
    "yaml quoted scalar continued": (_CONTINUED, ("Hq7rL9 kXmP", "2vTz8 wNq")),
    "toml multi-line string": (_TOML, ("TomlMultiPass", "SecondLine42")),
    "hcl heredoc": (_HEREDOC, ("HclHeredocPass9",)),
    "hcl indented heredoc": (_HEREDOC_DASH, ("IndentedHeredoc7",)),
    "java properties continued": (_PROPERTIES, ("PropStart", "PropEnd99")),
    "block scalar in read_file rows": (_rows(_BLOCK), ("Gq8vL2mTq9", "Rz7wK4nXp3")),
    "heredoc in a diff": (_diff(_HEREDOC), ("HclHeredocPass9",)),
    "properties continued in a diff": (_diff(_PROPERTIES), ("PropStart", "PropEnd99")),
    "toml string in read_file rows": (_rows(_TOML), ("TomlMultiPass", "SecondLine42")),
    # 2. the name is not beside the value
    "terraform state": (
        json.dumps({"outputs": {"db_password": {"value": "TfStateValue1", "type": "string", "sensitive": True}}}, indent=2),
        ("TfStateValue1",),
    ),
    "terraform sensitive output named otherwise": (
        json.dumps({"outputs": {"connection": {"sensitive": True, "value": "Server=db;Uid=app;Pwd=Tf2x"}}}),
        ("Server=db;Uid=app;Pwd=Tf2x",),
    ),
    "csv column": ("user,password,host\nalice,CsvColumnPw1,db1\nbob,CsvSecond2,db2\n", ("CsvColumnPw1", "CsvSecond2")),
    "markdown table column": ("| service | api_key |\n| --- | --- |\n| billing | MdTableKey77 |\n", ("MdTableKey77",)),
    "vault kv get": (
        "====== Data ======\nKey         Value\n---         -----\npassword    VaultKvPass3\nusername    app\n",
        ("VaultKvPass3",),
    ),
    "aws configure list": (
        "      Name                    Value             Type    Location\n"
        "      ----                    -----             ----    --------\n"
        "secret_key     wJalrXUtnFEMIK7MDENGbPxRfiCYzq shared-credentials-file\n",
        ("wJalrXUtnFEMIK7MDENGbPxRfiCYzq",),
    ),
    "sql set password for": ("SET PASSWORD FOR 'app'@'%' = 'SqlSetPw9';", ("SqlSetPw9",)),
    "kubernetes env name then value": ("env:\n  - name: DB_PASSWORD\n    value: K8sEnvValue\n", ("K8sEnvValue",)),
    "hadoop property": ("<property>\n  <name>fs.s3a.secret.key</name>\n  <value>HadoopSecretV</value>\n</property>\n", ("HadoopSecretV",)),
    # 3. NAME VALUE with a space, and values of any shape under a credential name
    "name space value": ("password ma0pqLZw7d1nj1D9Dm\n", ("ma0pqLZw7d1nj1D9Dm",)),
    "redis requirepass": ("bind 127.0.0.1\nrequirepass foobaredpass\nmasterauth replicapass\n", ("foobaredpass", "replicapass")),
    "msmtprc password": ("account default\nhost smtp.example.com\npassword msmtpletters\n", ("msmtpletters",)),
    "dockerfile env": ("FROM mysql:8\nENV MYSQL_ROOT_PASSWORD rootletters\n", ("rootletters",)),
    "wpa_supplicant psk": ('network={\n    ssid="home"\n    psk="wifi pass phrase"\n}\n', ("wifi pass phrase",)),
    "networkmanager psk": ("[wifi-security]\nkey-mgmt=wpa-psk\npsk=nmletterspsk\n", ("nmletterspsk",)),
    "quoted value with spaces": ("export X_SECRET='Blue horse 7 battery'\n", ("Blue horse 7 battery",)),
    "letters-only passphrase": ("DB_PASSWORD=Marmaladeskies\n", ("Marmaladeskies",)),
    "yaml value with spaces": ("smtp:\n  password: correct horse battery\n", ("correct horse battery",)),
}


def _covered(data: bytes, needle: bytes) -> bool:
    hits = SCANNER.scan(data)
    pos = data.find(needle)
    assert pos >= 0, needle
    return any(h.start <= pos and pos + len(needle) <= h.end for h in hits)


@pytest.mark.parametrize("name", sorted(CAUGHT))
def test_the_value_is_found_raw_and_in_json(name: str) -> None:
    text, needles = CAUGHT[name]
    as_json = json.dumps({"output": text}).encode()
    for needle in needles:
        assert _covered(text.encode(), needle.encode()), (name, needle)
        assert _covered(as_json, json.dumps(needle)[1:-1].encode()), (name, needle)


def _session(text: str) -> SessionSnapshot:
    return SessionSnapshot.new("s-1", 1, [Message.user_text("look"), Message.result("c-1", True, text)], IDENTITY)


@pytest.mark.parametrize("fmt", ["json", "markdown", "html"])
def test_no_export_keeps_the_values_and_none_is_blocked(fmt: str) -> None:
    for name, (text, needles) in CAUGHT.items():
        result = export_snapshot(_session(text), Selection.everything(), key=KEY, fmt=fmt)
        out = result.data.decode()
        for needle in needles:
            assert needle not in out and json.dumps(needle)[1:-1] not in out, (name, needle)
        assert not result.blocked, (name, [(f.rule, f.location) for f in result.report.blocking])


def test_the_audit_reports_each_value_of_an_unredacted_session() -> None:
    for name, (text, _) in CAUGHT.items():
        report = audit_bytes(encode_pretty(_session(text)), scanner=SCANNER, key=KEY, fmt="snapshot")
        assert any(f.severity.value == "critical" for f in report.findings), name


LEFT_ALONE: dict[str, str] = {
    "an empty block scalar": "auth:\n  password: |\n  retries: 3\n",
    "a secret's reference in k8s": "env:\n  - name: API_TOKEN\n    valueFrom:\n      secretKeyRef:\n        name: api-token\n        key: token\n",
    "an ExternalSecret's names": "kind: ExternalSecret\nspec:\n  data:\n    - secretKey: api-key\n      remoteRef:\n        key: db-password-ref\n",
    "a heading": "## Token rotation\n\nRotate every 90 days.\n",
    "prose after a name": "Your password combination.\n",
    "a type": "token: str\npassword: Optional[str] = None\n",
    "a path to the secret": "password_file: /run/secrets/db_password\n",
    "a table without a credential column": "user,host,port\nalice,db1,5432\n",
    "a credential column of masks": "user | password\n--- | ---\nalice | ********\n",
    "a reference in a block": "password: |\n  ${DB_PASSWORD}\n",
    "an auth scheme": "auth: basic\ncredentials: include\n",
    "terraform with a reference": 'output "db" {\n  value     = aws_db_instance.main.password\n  sensitive = true\n}\n',
    "a heredoc of code": "cat <<EOF > run.sh\necho start\nEOF\n",
}


@pytest.mark.parametrize("name", sorted(LEFT_ALONE))
def test_structure_without_a_credential_is_left_alone(name: str) -> None:
    text = LEFT_ALONE[name]
    assert SCANNER.scan(text.encode()) == [], name
