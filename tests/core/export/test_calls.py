"""A credential passed to a client's call by position (issue 31, batch 7's largest cause): read
from the call's structure, not from a list of APIs. The callee's chain of names says
authentication or a client of a service; the password stands after a user (a literal or a name
saying user), after a host and what is no literal, alone in a call that says authentication or a
client's constructor, or as the second value a ``%s:%s`` format joins. Each form below is of an
API no table of the scanner names, found raw and in the JSON string an export holds it in; the
look-alikes beside them (ids, digests, colours, paths, formats of a host and a port, a DN, named
arguments) stay.
"""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import SecretScanner
from rho_desk.core.export.scanner._structure import trigger_lines

SCANNER = SecretScanner()

CAUGHT: dict[str, tuple[str, str]] = {
    # right after a user literal, or a name that says user
    "a user literal, then the password": (
        'session = imap.Session("imap.acme.io").authorize("reports", "Qw7!rT2#zL")\n',
        "Qw7!rT2#zL",
    ),
    "a user's name, then the password": (
        'client.SignOn(username, "Hx9vK3mQ2pLw")\n',
        "Hx9vK3mQ2pLw",
    ),
    "a DN, then the password, a callback after": (
        'ldapClient.bindAsync("uid=svc,ou=apps,dc=acme,dc=io", "Dn4#pQ8!wZ", onBound);\n',
        "Dn4#pQ8!wZ",
    ),
    "wrapped literals": (
        'let auth = SmtpCredentials::new("mailer".into(), Some("Wr4pPd9xQz".to_string()));\n',
        "Wr4pPd9xQz",
    ),
    # after a host and what is no literal
    "after a host and a port": (
        'var mq = new StompClient("mq.internal", 61613, "Hp6tR9wQ2zLk");\n',
        "Hp6tR9wQ2zLk",
    ),
    # over the call's lines
    "arguments on the lines after the call": (
        "conn = Smb2Connection(\n    'files.acme.io',\n    'backup',\n    'Ml7#qW3!xZ9p',\n)\n",
        "Ml7#qW3!xZ9p",
    ),
    # alone
    "alone in a call that says authentication": (
        'transport.AuthPassword("Al0ne#Pw9x")\n',
        "Al0ne#Pw9x",
    ),
    "a random value alone in a client's constructor": (
        "notifier = new Acme.NotifyClient('9c1e7a3f5b2d48e6a0f4c8b2d6e9a1c3');\n",
        "9c1e7a3f5b2d48e6a0f4c8b2d6e9a1c3",
    ),
    # a user and its password joined by a format
    "a %s:%s format": ('creds := fmt.Sprintf("%s:%s", "deploy", "Fm7#tQ2!kP")\n', "Fm7#tQ2!kP"),
    "a {}:{} format": ('basic = "{}:{}".format("ci", "Cf3xL9qR2wZt")\n', "Cf3xL9qR2wZt"),
}

LEFT_ALONE: dict[str, str] = {
    "named arguments": 'client = FtpClient(host="ftp.acme.io", user="feeds", passive=True)\n',
    "a key file, no password": 'ssh.connect("10.0.4.12", 22, "deploy", key_filename="id_ed25519")\n',
    "an id in a client's getter": 'client.get_invoice("6f1c2e9a-3b7d-4c8e-9a2f-1d5e7b3c9a40")\n',
    "a digest in a client's call": 'client.checkout("3b7d4c8e9a2f1d5e7b3c9a406f1c2e9a3b7d4c8e")\n',
    "a host and a port joined": 'target = String.format("%s:%s", "db.internal", "5432");\n',
    "variables joined": 'auth := fmt.Sprintf("%s:%s", user, pass)\n',
    "a DN and a filter": 'ldap.search_ext_s("ou=people,dc=acme,dc=io", 2, "(uid=jdoe)")\n',
    "anonymous FTP": "Net::FTP.open('ftp.acme.io', 'anonymous', 'guest@acme.io')\n",
    "a path after a user": 'sftp.connect("backup", "exports/2024/q1.tar")\n',
    "a version after a name": 'mqtt.Client("sensor-7", "v3.1.1-rc2")\n',
    "a date and its format": 'pool.schedule_at("2024-01-01T00:00", "%Y-%m-%dT%H:%M")\n',
    "a MIME type": 'client.post("orders", "application/json")\n',
    "an email as the user, a variable as the password": (
        'smtp.authenticate("mailer@acme.io", os.environ["SMTP_PASSWORD"])\n'
    ),
}


def _covered(data: bytes, needle: bytes) -> bool:
    pos = data.find(needle)
    assert pos >= 0, needle
    return any(h.start <= pos and pos + len(needle) <= h.end for h in SCANNER.scan(data))


@pytest.mark.parametrize("name", sorted(CAUGHT))
def test_the_password_is_found_raw_and_in_json(name: str) -> None:
    text, secret = CAUGHT[name]
    assert _covered(text.encode(), secret.encode()), name
    assert _covered(json.dumps({"content": text}).encode(), secret.encode()), name


@pytest.mark.parametrize("name", sorted(LEFT_ALONE))
def test_the_look_alike_is_left_alone(name: str) -> None:
    text = LEFT_ALONE[name]
    assert SCANNER.scan(text.encode()) == [], name
    assert SCANNER.scan(json.dumps({"content": text}).encode()) == [], name


@pytest.mark.parametrize(
    "line",
    [
        "the client (our desktop app) opens the pool before it starts",
        'dialog.open("settings")',  # a word inside another (dial, open) is no client's
        "    result = client.fetch(order_id)",
    ],
)
def test_a_call_without_a_literal_after_it_is_no_trigger_line(line: str) -> None:
    """A callee's word is a trigger only with a quote after its ``(`` on the line, or the line
    ending there: a call of names, or prose with a word in parentheses, is not read."""
    assert trigger_lines((line + "\n").encode(), None) == []
