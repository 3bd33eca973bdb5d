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
from rho_desk.core.export.scanner._values import tab_lead
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
    return "\n".join(
        ["--- a/f", "+++ b/f", f"@@ -0,0 +1,{len(lines)} @@", *(f"+{line}" for line in lines)]
    )


_BLOCK = "auth:\n  password: |\n    Gq8vL2mTq9\n    Rz7wK4nXp3\n  retries: 3\n"
_FOLDED = "auth:\n  db_password: >-\n    Blue horse seven\n    staple battery\n"
_CONTINUED = 'auth:\n  password: "Hq7rL9 kXmP\n    2vTz8 wNq"\n'
_TOML = '[database]\npassword = """\nTomlMultiPass\nSecondLine42\n"""\n'
_HEREDOC = 'resource "db" "main" {\n  password = <<EOT\nHclHeredocPass9\nEOT\n}\n'
_HEREDOC_DASH = (
    'resource "db" "main" {\n  master_password = <<-EOT\n    IndentedHeredoc7\n  EOT\n}\n'
)
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
    # 1, forms of the cause written after the held-out batch of 2026-12-06: the value on the
    # next line, strings opened to close on a later line, strings joined over lines
    "yaml value on the next line": (
        "database:\n  password:\n    Yn7xQp2Lm9Rt\n  pool: 10\n",
        ("Yn7xQp2Lm9Rt",),
    ),
    "json value on the next line": (
        '{\n  "clientSecret":\n    "Jn3vQ8pLw2Xz",\n  "retries": 3\n}\n',
        ("Jn3vQ8pLw2Xz",),
    ),
    "ini value on the next line": (
        "[mail]\npassword =\n    IniNext7Rq2\ntls = yes\n",
        ("IniNext7Rq2",),
    ),
    "sql password on its own line": (
        "CREATE ROLE r WITH LOGIN\n  PASSWORD\n  'SqlNext8Wq'\n;\n",
        ("SqlNext8Wq",),
    ),
    "sql identified by, value below": (
        "CREATE USER app IDENTIFIED BY\n  'IdentNext5Kp';\n",
        ("IdentNext5Kp",),
    ),
    "php define over lines": (
        "define(\n    'DB_PASSWORD',\n    'PhpDefine4Lm'\n);\n",
        ("PhpDefine4Lm",),
    ),
    "php nowdoc": ("$password = <<<'EOT'\nNowdoc9Tq2Lm\nEOT;\n", ("Nowdoc9Tq2Lm",)),
    "ruby heredoc with a method": (
        "API_TOKEN = <<~TOKEN.strip\n  RubyHere7Vx\nTOKEN\n",
        ("RubyHere7Vx",),
    ),
    "shell heredoc in a substitution": (
        "PASSWORD=$(cat <<EOF\nSubstHere3Qz\nEOF\n)\n",
        ("SubstHere3Qz",),
    ),
    "lua long string": ("local password = [[\nLuaLong6Wp\n]]\n", ("LuaLong6Wp",)),
    "rust raw string": ('let token = r#"\nRustRaw2Kq\n"#;\n', ("RustRaw2Kq",)),
    "ruby percent string": ("API_TOKEN = %q(\n  RubyPct8Hn\n)\n", ("RubyPct8Hn",)),
    "nix indented string": ("  admin_password = ''\n    NixInd5Rt\n  '';\n", ("NixInd5Rt",)),
    "template literal": ("const dbPassword = `\n  Tmpl4Lit9Qw\n`.trim();\n", ("Tmpl4Lit9Qw",)),
    "c# verbatim string": ('var apiKey = @"\nVerbat1m7Kx";\n', ("Verbat1m7Kx",)),
    "xml cdata over lines": (
        "<password><![CDATA[\nCdata3Pw8Lq\n]]></password>\n",
        ("Cdata3Pw8Lq",),
    ),
    "strings joined by +": (
        'const apiSecret = "JoinA4kQ" +\n    "JoinB7mZ";\n',
        ("JoinA4kQ", "JoinB7mZ"),
    ),
    "strings joined in parentheses": (
        'SIGNING_KEY = (\n    "ParenA5wX"\n    "ParenB2qR"\n)\n',
        ("ParenA5wX", "ParenB2qR"),
    ),
    "a block scalar in cat -n rows": (
        "     7\t  auth:\n     8\t    bearer: |\n     9\t      CatNRow6Lp\n",
        ("CatNRow6Lp",),
    ),
    "a yaml block kept starting with *": (
        "smtp:\n  password: |+\n    *-Tz%@nyaaVJi\n\n  port: 587\n",
        ("*-Tz%@nyaaVJi",),
    ),
    # 2. the name is not beside the value
    "terraform state": (
        json.dumps(
            {
                "outputs": {
                    "db_password": {"value": "TfStateValue1", "type": "string", "sensitive": True}
                }
            },
            indent=2,
        ),
        ("TfStateValue1",),
    ),
    "terraform sensitive output named otherwise": (
        json.dumps(
            {"outputs": {"connection": {"sensitive": True, "value": "Server=db;Uid=app;Pwd=Tf2x"}}}
        ),
        ("Server=db;Uid=app;Pwd=Tf2x",),
    ),
    "psql table (its rows' first cell a number)": (
        " id | name | api_key | active\n----+------+---------+-------\n  1 | ci | PsqlCell7Kq2 | t\n(1 row)\n",
        ("PsqlCell7Kq2",),
    ),
    "mysql box table, a _pw column": (
        "+----+-------+-----------+\n| id | login | backup_pw |\n+----+-------+-----------+\n|  3 | bk    | MyBox9Pw2 |\n",
        ("MyBox9Pw2",),
    ),
    "csv column": (
        "user,password,host\nalice,CsvColumnPw1,db1\nbob,CsvSecond2,db2\n",
        ("CsvColumnPw1", "CsvSecond2"),
    ),
    "markdown table column": (
        "| service | api_key |\n| --- | --- |\n| billing | MdTableKey77 |\n",
        ("MdTableKey77",),
    ),
    "vault kv get": (
        "====== Data ======\nKey         Value\n---         -----\npassword    VaultKvPass3\nusername    app\n",
        ("VaultKvPass3",),
    ),
    # a key/value table's rows are read up to the last row that can name a credential
    "key/value table, the credential in its last row (read_file rows)": (
        _rows(
            "Key         Value\n---         -----\nregion      eu-west-1\n"
            "ttl         768h\nAPI Key     blue horse staple\n"
        ),
        ("blue horse staple",),
    ),
    "key/value table, a credential row after others (markdown)": (
        "| Name | Value |\n|---|---|\n| region | eu |\n| client_secret | PipeKvSecret5 |\n",
        ("PipeKvSecret5",),
    ),
    # a credential word in a row's other cells names nothing: the rows are read up to the last
    # row whose first cell holds one, wherever other cells say "token"
    "key/value table, credential words in its notes (markdown)": (
        "| key | value | note |\n| --- | --- | --- |\n| token_ttl | 3600 | the token lives |\n"
        "| region | eu | no password here |\n| db_password | NotedKvPass8 | rotated |\n"
        "| owner | ops | token and secret |\n",
        ("NotedKvPass8",),
    ),
    "a directive's quoted value, letters only (bind)": (
        'key "ns1" {\n  secret "bluehorsestaple";\n};\n',
        ("bluehorsestaple",),
    ),
    "camelCase key name, block scalar": ("apiKey: |\n  BlockKeyValue7\n", ("BlockKeyValue7",)),
    "aws configure list": (
        "      Name                    Value             Type    Location\n"
        "      ----                    -----             ----    --------\n"
        "secret_key     wJalrXUtnFEMIK7MDENGbPxRfiCYzq shared-credentials-file\n",
        ("wJalrXUtnFEMIK7MDENGbPxRfiCYzq",),
    ),
    "sql set password for": ("SET PASSWORD FOR 'app'@'%' = 'SqlSetPw9';", ("SqlSetPw9",)),
    "kubernetes env name then value": (
        "env:\n  - name: DB_PASSWORD\n    value: K8sEnvValue\n",
        ("K8sEnvValue",),
    ),
    "hadoop property": (
        "<property>\n  <name>fs.s3a.secret.key</name>\n  <value>HadoopSecretV</value>\n</property>\n",
        ("HadoopSecretV",),
    ),
    # 3. NAME VALUE with a space, and values of any shape under a credential name
    "name space value": ("password ma0pqLZw7d1nj1D9Dm\n", ("ma0pqLZw7d1nj1D9Dm",)),
    "redis requirepass": (
        "bind 127.0.0.1\nrequirepass foobaredpass\nmasterauth replicapass\n",
        ("foobaredpass", "replicapass"),
    ),
    "msmtprc password": (
        "account default\nhost smtp.example.com\npassword msmtpletters\n",
        ("msmtpletters",),
    ),
    "dockerfile env": ("FROM mysql:8\nENV MYSQL_ROOT_PASSWORD rootletters\n", ("rootletters",)),
    "wpa_supplicant psk": (
        'network={\n    ssid="home"\n    psk="wifi pass phrase"\n}\n',
        ("wifi pass phrase",),
    ),
    "networkmanager psk": (
        "[wifi-security]\nkey-mgmt=wpa-psk\npsk=nmletterspsk\n",
        ("nmletterspsk",),
    ),
    "quoted value with spaces": (
        "export X_SECRET='Blue horse 7 battery'\n",
        ("Blue horse 7 battery",),
    ),
    "letters-only passphrase": ("DB_PASSWORD=Marmaladeskies\n", ("Marmaladeskies",)),
    "yaml value with spaces": (
        "smtp:\n  password: correct horse battery\n",
        ("correct horse battery",),
    ),
    # a key named secret by its qualifier holds a letters-only value (unseal, recovery, decryption,
    # cipher: a word before KEY that says the key opens something)
    "env unseal key letters": ("SHELL=/bin/bash\nVAULT_UNSEAL_KEY=tiptoe\nUSER=ci\n", ("tiptoe",)),
    "env recovery key letters": ("VAULT_RECOVERY_KEY=marmalade\n", ("marmalade",)),
    "yaml decryption key letters": ("db:\n  decryption_key: sunflower\n", ("sunflower",)),
    "json cipher key letters": ('{"cipherKey": "bluewhale"}', ("bluewhale",)),
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
    return SessionSnapshot.new(
        "s-1", 1, [Message.user_text("look"), Message.result("c-1", True, text)], IDENTITY
    )


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
        report = audit_bytes(
            encode_pretty(_session(text)), scanner=SCANNER, key=KEY, fmt="snapshot"
        )
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
    "a mapping under a credential name": "auth:\n  type: basic\n  timeout: 30\n",
    "a prose line ending in a credential word then a quote": 'Rotate the token\n"done" said the log\n',
    "a tsv row that starts with a number": "id\tname\tport\n1\talice\t5432\n",
    "strings joined without a credential name": 'greeting = "Hello " +\n    "world";\n',
    "keys that name no secret": (
        "SORT_KEY=name\nROUTING_KEY=orders\nS3_KEY=uploads/a.png\nCACHE_KEY=users\n"
        "FOREIGN_KEY=user_id\nHOTKEY=ctrl\n"
    ),
    "yaml keys that name no secret": "table:\n  partition_key: region\n  sortKey: createdAt\n",
}


@pytest.mark.parametrize("name", sorted(LEFT_ALONE))
def test_structure_without_a_credential_is_left_alone(name: str) -> None:
    text = LEFT_ALONE[name]
    assert SCANNER.scan(text.encode()) == [], name


def test_every_credential_word_holds_a_word_the_readers_look_for() -> None:
    """The readers skip a line holding none of ``NAMED_WORDS`` (``named_word``) and a key/value
    table's rows holding none of ``CELL_WORDS``: every word the credential grammar accepts holds
    one, and so does each word it accepts by its ending (``key`` only after a qualifier)."""
    from rho_desk.core.export.scanner._names import _WORDS, name_is_credential
    from rho_desk.core.export.scanner._tables import CELL_WORDS, NAMED_WORDS, named_word

    for word in [*_WORDS, "mysqlpassword", "clientsecret", "githubtoken", "apiKey", "api_key"]:
        assert name_is_credential(word), word
        assert any(w.decode() in word.lower() for w in CELL_WORDS), word
        assert named_word(word.lower().encode()), word
    assert all(w in CELL_WORDS for w in NAMED_WORDS)
    assert not named_word(b"| key | value | note |") and not named_word(b"key         value")


@pytest.mark.parametrize(
    ("name", "names_a_password"),
    [
        # a service's or a user's name glued before pass
        ("smtppass", True),
        ("rootpass", True),
        ("ldappass", True),
        ("vncpass", True),
        ("adminpass", True),
        ("mainpass", True),
        # a word of the language, a renderer's or a compiler's step, a filter
        ("bypass", False),
        ("compass", False),
        ("firstpass", False),
        ("secondpass", False),
        ("renderpass", False),
        ("subpass", False),
        ("depthpass", False),
        ("highpass", False),
        ("lowpass", False),
        ("bandpass", False),
    ],
)
def test_a_name_glued_before_pass(name: str, names_a_password: bool) -> None:
    """``pass`` glued after a service's name names its password (gitconfig's ``smtppass``);
    after a word that says what kind of pass it is, it names a step or a filter."""
    from rho_desk.core.export.scanner._names import name_is_credential

    assert name_is_credential(name) is names_a_password
    assert name_is_credential(name.upper()) is names_a_password
    hits = SCANNER.scan(f'{name} = "kitchen-table"\n'.encode())
    assert bool(hits) is names_a_password, (name, hits)


_BACKSLASH_T_VALUE = "\\t7GkPq2Lz9wXy"
"""A value written after a backslash and a ``t`` (a shell reads ``t7GkPq2Lz9wXy``)."""


@pytest.mark.parametrize(
    "text",
    [
        f"docker run -e AUTH_TOKEN={_BACKSLASH_T_VALUE} img",
        f"echo hi\ndocker run -e AUTH_TOKEN={_BACKSLASH_T_VALUE} img",
        f'docker run -e X="a\\"b" -e AUTH_TOKEN={_BACKSLASH_T_VALUE} img',
        f"dir C:\\\\tmp && docker run -e AUTH_TOKEN={_BACKSLASH_T_VALUE} img",
        f"docker run -e NAME=\u00e9t\u00e9 -e AUTH_TOKEN={_BACKSLASH_T_VALUE} img",
        f"docker run -e AUTH_TOKEN={_BACKSLASH_T_VALUE}\u00e9x img",
        f"docker run -e AUTH_TOKEN={_BACKSLASH_T_VALUE}\\\\x img",
    ],
    ids=[
        "alone",
        "line-before",
        "quote-before",
        "backslash-before",
        "u00e9-before",
        "u00e9-inside",
        "backslash-inside",
    ],
)
@pytest.mark.parametrize("ascii_only", [True, False], ids=["ascii", "utf8"])
def test_a_value_after_a_backslash_and_t_in_json_is_covered_from_the_backslash(
    text: str, ascii_only: bool
) -> None:
    """JSON writes the text's ``\\t`` as ``\\\\t``, which a view decoding a second level reads
    as a tab before the value: the value starts at the backslashes, and the ``t`` (the value's
    first letter to a shell) is not left out of the redaction."""
    data = json.dumps({"output": text}, ensure_ascii=ascii_only).encode()
    first = data.find(b"\\\\t7Gk")
    assert first >= 0
    hits = SCANNER.scan(data)
    assert any(h.start <= first and first + 15 <= h.end for h in hits), [
        (h.rule, data[h.start : h.end]) for h in hits
    ]


_BACKSLASH_T_FORMS = [
    f"docker run -e AUTH_TOKEN={_BACKSLASH_T_VALUE} img",
    f"echo hi\ndocker run -e AUTH_TOKEN={_BACKSLASH_T_VALUE} img",
    f'docker run -e X="a\\"b" -e AUTH_TOKEN={_BACKSLASH_T_VALUE} img',
]


@pytest.mark.parametrize("text", _BACKSLASH_T_FORMS, ids=range(len(_BACKSLASH_T_FORMS)))
def test_a_value_after_a_backslash_and_t_in_raw_text_is_covered_from_the_backslash(
    text: str,
) -> None:
    """In raw text (not JSON) ``NAME=\\t7Gk…`` is a backslash and a ``t`` (a shell reads
    ``t7Gk…``), though the view reads it as a tab: the redaction starts at the backslash."""
    data = text.encode()
    first = data.find(b"\\t7Gk")
    hits = SCANNER.scan(data)
    assert any(h.start <= first and first + 14 <= h.end for h in hits), [
        (h.rule, data[h.start : h.end]) for h in hits
    ]


_ARGUMENT_FORMS = [
    "docker run -e AUTH_TOKEN=X9kPq2Lz9wXy img",
    "echo hi\ndocker run -e AUTH_TOKEN=X9kPq2Lz9wXy img --rm",
    f"docker run -e AUTH_TOKEN={_BACKSLASH_T_VALUE} img",
    "env DB_PASSWORD=X9kPq2Lz9wXy ./run.sh --port 80",
]


@pytest.mark.parametrize("text", _ARGUMENT_FORMS, ids=range(len(_ARGUMENT_FORMS)))
@pytest.mark.parametrize("wrap", ["raw", "json"])
def test_an_argument_s_value_ends_at_its_word(text: str, wrap: str) -> None:
    """``NAME=value`` after a command's words is one argument: its value is one word, not the
    rest of the line (the image name after ``-e NAME=value``, and in JSON the string's closing
    quote, are not redacted)."""
    data = text.encode() if wrap == "raw" else json.dumps({"output": text}).encode()
    value = text.split("=", 1)[1].split(" ", 1)[0].encode()
    if wrap == "json":
        value = value.replace(b"\\", b"\\\\")
    start = data.find(value)
    hits = SCANNER.scan(data)
    assert [(h.start, h.end) for h in hits] == [(start, start + len(value))], [
        (h.rule, data[h.start : h.end]) for h in hits
    ]


def test_a_line_of_its_own_after_a_long_value_is_no_wrapped_rest() -> None:
    """``NAME=value`` lines after a value 60 columns wide: each is a pair of its own, not the rest
    of the value the terminal wrapped (``LANG=C.UTF-8`` is left as it is)."""
    text = (
        b"SLACK_BOT_TOKEN=xoxb-498553844424-2275397801275-ieW6UeGmOY9XMAHFQNTmJkA9\n"
        b"AWS_SECRET_ACCESS_KEY=TNKG90J3rTP4j5A2ySFXAu68nfVXxFqrDjpVX1kh\nLANG=C.UTF-8"
    )
    hits = SCANNER.scan(text)
    assert hits
    assert all(text[h.start : h.end].isalnum() or b"-" in text[h.start : h.end] for h in hits)
    assert not any(h.end > text.index(b"LANG") for h in hits), [text[h.start : h.end] for h in hits]
    assert not any(h.start < text.index(b"=TNKG") < h.end for h in hits)


_TAB_LED_FORMS = [
    "AUTH_TOKEN=\\t7GkPq2Lz9wXy",
    "export AUTH_TOKEN=\\t7GkPq2Lz9wXy",
    "cat .env\nDB_PASSWORD=\\t7GkQ9xLm2Pz\nDEBUG=1",
    "env API_KEY=\\t7GkAb3dE5fG ./deploy.sh",
    "[client]\nclient_secret = \\t7GkZx8Cv6Bn",
    "SECRET_KEY: \\t7GkPq7Ws2Ed",
]
_TAB_LED_LOOK_ALIKES = [
    "TOKEN_SEPARATOR=\\t",
    "TOKEN_TTL=\\t3600",
    "printf 'name=\\tvalue\\n'",
    "SECRET_FILE=\\t/run/secrets/db",
    "PASSWORD_PROMPT=\\t$PROMPT",
]


@pytest.mark.parametrize("text", _TAB_LED_FORMS, ids=range(len(_TAB_LED_FORMS)))
@pytest.mark.parametrize("wrap", ["raw", "json"])
def test_a_value_led_by_a_backslash_and_t_is_covered_from_the_backslash(
    text: str, wrap: str
) -> None:
    """``NAME=\\t7Gk…`` at a line's start, after ``export``/``env`` or in a section: the value
    (``t7Gk…`` to a shell) is redacted from its first backslash, raw and in JSON."""
    data = text.encode() if wrap == "raw" else json.dumps({"output": text}).encode()
    first = data.find(b"\\t7Gk" if wrap == "raw" else b"\\\\t7Gk")
    end = data.index(b"7Gk") + 11
    hits = SCANNER.scan(data)
    assert any(h.start <= first and end <= h.end for h in hits), [
        (h.rule, data[h.start : h.end]) for h in hits
    ]


@pytest.mark.parametrize(
    ("before", "leads"),
    [
        (b"AUTH_TOKEN=", True),  # text's \t after an operator: a backslash and a t to a shell
        (b"client_secret = ", True),
        (b"SECRET_KEY:  ", True),
        (b"'token' => ", True),
        (b"x\\", True),  # JSON's escaped backslash: the text holds a backslash and a t
        (b"user\\tpassword\\nalice", False),  # JSON's \t after a word: a tab between cells
        (b"ci ->", False),
        (b"\\\\", False),  # JSON's escaped backslash, then JSON's \t (a tab)
        (b"", False),
    ],
)
def test_a_tab_lead_is_the_value_s_after_an_operator_or_when_the_text_holds_it(
    before: bytes, leads: bool
) -> None:
    """``tab_lead``: both the name pass (forward, from the value's position) and the structure
    reader (back, from a value a view read after a tab) ask it where the value starts."""
    data = before + b"\\t7GkPq2Lz9wXy"
    at = data.index(b"7Gk")
    first = at - 2
    while first > 0 and data[first - 1] == 0x5C:
        first -= 1
    assert tab_lead(data, at) == (first if leads else at)


@pytest.mark.parametrize("text", _TAB_LED_LOOK_ALIKES, ids=range(len(_TAB_LED_LOOK_ALIKES)))
@pytest.mark.parametrize("wrap", ["raw", "json"])
def test_a_tab_led_look_alike_is_left_alone(text: str, wrap: str) -> None:
    data = text.encode() if wrap == "raw" else json.dumps({"output": text}).encode()
    assert SCANNER.scan(data) == []
