"""A credential given by position (issue 31, causes 3 and 7): a credential word followed by its value
among the words of a directive line (Cisco, haproxy, bind, nginx, a protocol's verbs), and the
argument a known function takes its password at (``NetworkCredential``, ``getConnection``, ``PDO``,
``login``...). Each found raw and inside the JSON string an export holds it in, gone from every
export format; prose and references stay.

The forms were written as other devices, protocols and libraries of the same causes than the
held-out batch's (which ``test_heldout_batch`` holds); each leaked before ``_words``.
"""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import SecretScanner, Selection, export_snapshot
from rho_desk.core.wire.model import Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

SCANNER = SecretScanner()
KEY = bytes(range(32))
IDENTITY = ModelIdentity("openai", "responses", "gpt-5")

CAUGHT: dict[str, tuple[str, str]] = {
    # a map's literal value, a call's next argument after a credential's name and a comma
    "a Scala map's literal": (
        'Map("token" -> "9f8e7d6c5b4aQ3f2e1d0c", "Accept" -> "application/json")\n',
        "9f8e7d6c5b4aQ3f2e1d0c",
    ),
    "a list's live key": (
        'KEYS = ["sk_live_51H8xYzAbCdEfGhIjKlMnOpQrStUvWx", "sk_test_"]\n',
        "sk_live_51H8xYzAbCdEfGhIjKlMnOpQrStUvWx",
    ),
    # directive lines: a credential word, its value a few words on
    "radius-server key": ("radius-server host 10.1.1.1 key 0 RadK3y9xPq\n", "RadK3y9xPq"),
    "crypto isakmp key": ("crypto isakmp key Isak9Key7Q address 0.0.0.0\n", "Isak9Key7Q"),
    "ikev1 pre-shared-key": (
        "tunnel-group VPN ipsec-attributes\n ikev1 pre-shared-key Psk7Lq9wXz\n",
        "Psk7Lq9wXz",
    ),
    "user … password … privilege": ("user alice password Wp9xLq2Zr0 privilege 3\n", "Wp9xLq2Zr0"),
    "ospf message-digest-key": (
        "interface Gi0/1\n ip ospf message-digest-key 1 md5 Ospf8Key2x\n",
        "Ospf8Key2x",
    ),
    "ntp authentication-key": ("ntp authentication-key 1 md5 NtpAuth7Qx 7\n", "NtpAuth7Qx"),
    # protocol verbs
    "smtp AUTH PLAIN": (
        "C: AUTH PLAIN AGFsaWNlAHB3ZDEyMzQ1Ng==\nS: 235 ok\n",
        "AGFsaWNlAHB3ZDEyMzQ1Ng==",
    ),
    "irc IDENTIFY": ("PRIVMSG NickServ :IDENTIFY Irc9Pass77\n", "Irc9Pass77"),
    # calls taking a password by position
    "imap login": ('imaplib.IMAP4_SSL(host).login("u@x.io", "Imap8Pw2x")\n', "Imap8Pw2x"),
    "HTTPBasicAuth": ('requests.get(url, auth=HTTPBasicAuth("u", "Hba5Pw9x"))\n', "Hba5Pw9x"),
    "ldap simple_bind_s": ('conn.simple_bind_s("cn=admin,dc=x", "Ldap7Pw3q")\n', "Ldap7Pw3q"),
    "javamail PasswordAuthentication": (
        'return new PasswordAuthentication("u@x.io", "Jm7Pw4xQ");\n',
        "Jm7Pw4xQ",
    ),
    "go SetBasicAuth": ('req.SetBasicAuth("svc", "GoBasic9Pw")\n', "GoBasic9Pw"),
    "ftp login": ("ftp.login('anonymous', 'Ftp9Login2')\n", "Ftp9Login2"),
    "poplib pass_": ('m.pass_("Pop3Pw9xQ")\n', "Pop3Pw9xQ"),
}

LEFT_ALONE: dict[str, str] = {
    "prose after a credential word": "The password is stored in the vault under the usual path\n",
    "a routing directive": "router ospf 1\n network 10.0.0.0 0.0.0.255 area 0\n",
    "a key word in prose": "Use the key 7 times before rotating it\n",
    "a call with variables": "server.login(user, password)\n",
    "a header set from a variable": "proxy_set_header X-Api-Key $api_key;\n",
    "a community named by its word": "snmp-server community public RO\n",
    # a credential's name as an item of a map or a list: the next item is no value of it
    "a Scala map's variable": 'Map("Authorization" -> token, "Accept" -> "application/json")\n',
    "a Ruby hash's variable": 'h = {"Authorization" => token, "Accept" => "application/json"}\n',
    "a Kotlin map's variable": 'mapOf("Authorization" to token, "Accept" to "application/json")\n',
    "a Scala map's password variable": 'Map("password" -> password, "user" -> "admin")\n',
    "a list's items": "(TC_401_AuthV2, MyApp_v2_Release3)\n",
    "a statement's items": "CREATE SECRET lake (TYPE S3, PROVIDER credential_chain, REGION 'eu-west-1');\n",
    "a list of prefixes": 'PREFIXES = ["sk_live_", "sk_test_", "rk_live_"]\n',
}


def _session(text: str) -> SessionSnapshot:
    return SessionSnapshot.new("s", 1, [Message.user_text(text)], IDENTITY)


def _covered(data: bytes, needle: bytes) -> bool:
    pos = data.find(needle)
    assert pos >= 0, needle
    return any(h.start <= pos and pos + len(needle) <= h.end for h in SCANNER.scan(data))


@pytest.mark.parametrize("name", sorted(CAUGHT))
def test_the_value_is_found_raw_and_in_json(name: str) -> None:
    text, secret = CAUGHT[name]
    assert _covered(text.encode(), secret.encode()), name
    assert _covered(json.dumps({"content": text}).encode(), secret.encode()), name


@pytest.mark.parametrize("fmt", ["json", "markdown", "html"])
def test_no_export_keeps_the_values_and_none_is_blocked(fmt: str) -> None:
    session = SessionSnapshot.new(
        "s", 1, [Message.user_text(text) for text, _ in CAUGHT.values()], IDENTITY
    )
    result = export_snapshot(session, Selection.everything(), key=KEY, fmt=fmt)
    assert not result.blocked
    for name, (_, secret) in CAUGHT.items():
        assert secret.encode() not in result.data, name


def test_a_calls_argument_after_a_name_and_a_comma_is_its_value() -> None:
    """``put(NAME, "X")`` is read (the comma there is an argument's, not a list's item's)."""
    text = b'env.put(Context.SECURITY_CREDENTIALS, "Xp4kW8vTq2Mn");\n'
    assert _covered(text, b"Xp4kW8vTq2Mn")


@pytest.mark.parametrize("name", sorted(LEFT_ALONE))
def test_words_without_a_credential_are_left_alone(name: str) -> None:
    assert SCANNER.scan(LEFT_ALONE[name].encode()) == [], name


PROSE_LINES = (
    "the token is refreshed by the session worker before it runs out",
    "rotate the password before the release and tell the team about it",
    "an api key belongs in a safe place rather than in the repository",
    "login with the usual account, then identify yourself to the bot",
)


@pytest.mark.parametrize("text", PROSE_LINES)
def test_prose_with_credential_words_is_no_trigger_line(text: str) -> None:
    """A directive's value is quoted or reads as generated (it holds a digit): a line of prose
    with a credential word and neither is no line to split into words (reading every such line
    made a session with prose about tokens ten times slower to scan)."""
    from rho_desk.core.export.scanner._structure import trigger_lines

    prose = (text + "\n") * 3
    assert trigger_lines(prose.encode(), None) == []
    assert trigger_lines(json.dumps({"text": prose}).encode(), None) == []
    for line in ("enable secret 0 Ena8Secret2", 'secret "horse battery staple";'):
        assert trigger_lines((prose + line + "\n").encode(), None) == [len(prose)], line
