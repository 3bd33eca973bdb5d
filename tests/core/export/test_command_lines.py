"""Command lines read as argv (issue 31, cause 4): a client's password by its option (glued or
separate), its position (``user/pass@db``, ``user,pass``, ``user:pass``) or standard input,
found raw and inside the JSON string an export holds it in, gone from every export format with
the export not blocked, and counted by the audit of the unredacted session. Command lines that
pass no password stay.

Every form here leaked on the scanner before ``_argv`` (the issue's examples first, then forms
of the same cause written without looking at the table). The generator (``generator.py``) tries
command lines in many more combinations.
"""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import SecretScanner, Selection, audit_bytes, export_snapshot
from rho_desk.core.export.scanner._argv import CLIENTS, split
from rho_desk.core.wire.codec import encode_pretty
from rho_desk.core.wire.model import Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

SCANNER = SecretScanner()
KEY = bytes(range(32))
IDENTITY = ModelIdentity("openai", "responses", "gpt-5")

CAUGHT: dict[str, tuple[str, tuple[str, ...]]] = {
    # the examples
    "sqlplus user/pass@db": ("sqlplus scott/Tiger123x@orcl", ("Tiger123x",)),
    "lftp -u user,pass": ("lftp -u alice,LftpPw12 ftp.example.com", ("LftpPw12",)),
    "unzip -P": ("unzip -P UnzPw123 file.zip", ("UnzPw123",)),
    "poetry http-basic": ("poetry config http-basic.repo alice PoetPw12", ("PoetPw12",)),
    "curl -u glued": ("curl -ualice:CurlPw12 https://x.example", ("CurlPw12",)),
    "echo into rsync --password-file=-": (
        "echo RsyncPw12 | rsync --password-file=- a rsync://u@h/m",
        ("RsyncPw12",),
    ),
    "openssl enc -k": ("openssl enc -aes-256-cbc -k OsslPw12 -in a -out b", ("OsslPw12",)),
    # the same cause, other clients and spellings
    "mysql glued and quoted": ('mysql -u root -p"Qz7 w!x9" appdb', ("Qz7 w!x9",)),
    "sqlplus quoted as sysdba": ('sqlplus -s "sys/Orcl9pw@//db:1521/XE" as sysdba', ("Orcl9pw",)),
    "rman target": ("rman target sys/RmanPw77@prod", ("RmanPw77",)),
    "lftp in a json argument": (
        json.dumps({"command": "lftp -u deploy,Js0nLftp ftp.host"}),
        ("Js0nLftp",),
    ),
    "unzip quoted with spaces": ("unzip -o -P 'zip pass 42' archive.zip -d out", ("zip pass 42",)),
    "unzip letters only": ("unzip -P hunterblue archive.zip", ("hunterblue",)),
    "7z glued": ("7z x -pSevenZ99 backup.7z", ("SevenZ99",)),
    "curl --user quoted": ("curl --user 'ops:cu rl 8' https://h", ("cu rl 8",)),
    "smbclient user%pass": ("smbclient //fs/share -U 'CORP\\alice%Smb9Pass'", ("Smb9Pass",)),
    "smbclient by position": ("smbclient //fs/share Smb8Positional -U alice", ("Smb8Positional",)),
    "printf into rsync": (
        "printf '%s' Rs7ncPass | rsync --password-file=- -av src/ rsync://u@h/m",
        ("Rs7ncPass",),
    ),
    "here-string into docker login": (
        "docker login -u me --password-stdin <<< 'HereStr9ng'",
        ("HereStr9ng",),
    ),
    "heredoc into podman login": (
        "podman login quay.io -u me --password-stdin <<EOF\nHeredocPw88\nEOF",
        ("HeredocPw88",),
    ),
    "openssl -passout pass:": (
        "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:P12export9",
        ("P12export9",),
    ),
    "openssl -k quoted": (
        "openssl aes-256-cbc -d -k 'open sesame 4' -in x.enc",
        ("open sesame 4",),
    ),
    "sshpass glued": ("sshpass -pSshP4ss ssh deploy@host", ("SshP4ss",)),
    "htpasswd -nbB": ("htpasswd -nbB admin Htp4ssNb", ("Htp4ssNb",)),
    "net use share password": ("net use Z: \\\\srv\\share N3tUsePw /user:CORP\\bob", ("N3tUsePw",)),
    "echo into chpasswd": ("echo 'deploy:Chp4sswd' | sudo chpasswd", ("Chp4sswd",)),
    "passwd --stdin": ("echo Pa55wdStd | passwd --stdin deploy", ("Pa55wdStd",)),
    "nmcli password word": ("nmcli dev wifi connect HomeNet password Wif1Pass99", ("Wif1Pass99",)),
    "nmcli psk setting": ("nmcli con modify home wifi-sec.psk 'Wifi psk 7'", ("Wifi psk 7",)),
    "mysqladmin password": ("mysqladmin -u root password N3wRootPw", ("N3wRootPw",)),
    "xfreerdp /p:": ("xfreerdp /v:host /u:admin /p:Rdp9Pass /cert:ignore", ("Rdp9Pass",)),
    "ipmitool -P": (
        "ipmitool -I lanplus -H bmc -U ADMIN -P Ipm1Pass chassis status",
        ("Ipm1Pass",),
    ),
    "continued over lines": ("mysql \\\n  -u root \\\n  -pC0ntinued9 \\\n  appdb", ("C0ntinued9",)),
    "inline code in prose": ("Run `sqlplus scott/MdT1ger@db` to connect.", ("MdT1ger",)),
    "read_file rows": ("1:#!/bin/sh\n2:lftp -u u,R0wsLftp host\n", ("R0wsLftp",)),
    "diff line": ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+sqlplus app/D1ffPw@db\n", ("D1ffPw",)),
    "bash -c": ('bash -c "curl -s -uadmin:BashC9pw https://h"', ("BashC9pw",)),
    "wpa_passphrase": ("wpa_passphrase HomeNet Wp4Passphrase > wpa.conf", ("Wp4Passphrase",)),
    "mosquitto -P": ("mosquitto_pub -h broker -u dev -P Mqtt9Pw -t t -m hi", ("Mqtt9Pw",)),
    # a client reading its commands or its password from standard input, and positions of more clients
    "ftp script in a heredoc": (
        "ftp -inv files.example <<'END'\nuser ops\npass Ft9Pass77x\nls\nbye\nEND",
        ("Ft9Pass77x",),
    ),
    "ftp user command in an indented heredoc": (
        "ftp -n host <<-EOF\n\tuser backup Qx8Pw2kLm\n\tbye\n\tEOF",
        ("Qx8Pw2kLm",),
    ),
    "mc config host add": (
        "mc config host add s3 https://s3.example AKIAEXAMPLE1 Wq8eRt5yUi9oP2aS",
        ("Wq8eRt5yUi9oP2aS",),
    ),
    "expect's send after a password prompt": (
        'expect -c \'spawn sudo -v; expect "password for"; send -- "Sud0Pw!x\\r"; interact\'',
        ("Sud0Pw!x",),
    ),
    "an expect script's lines": (
        'spawn ssh admin@h\nexpect "Password:"\nsend "Ssh9Pw#q\\r"',
        ("Ssh9Pw#q",),
    ),
    "a here-string into --from-file=KEY=/dev/stdin": (
        "kubectl create secret generic db --from-file=password=/dev/stdin <<< 'Kube8Pw!z'",
        ("Kube8Pw!z",),
    ),
    "echo into --from-file=KEY=-": (
        "echo -n 'Kube7Pwd9' | kubectl create secret generic db --from-file=pw=-",
        ("Kube7Pwd9",),
    ),
}


def _covered(data: bytes, needle: bytes) -> bool:
    hits = SCANNER.scan(data)
    pos = data.find(needle)
    assert pos >= 0, needle
    return any(h.start <= pos and pos + len(needle) <= h.end for h in hits)


@pytest.mark.parametrize("name", sorted(CAUGHT))
def test_the_password_is_found_raw_and_in_json(name: str) -> None:
    text, needles = CAUGHT[name]
    as_json = json.dumps({"output": text}).encode()
    for needle in needles:
        assert _covered(text.encode(), needle.encode()), (name, needle)
        assert _covered(as_json, json.dumps(needle)[1:-1].encode()), (name, needle)


def _session(text: str) -> SessionSnapshot:
    return SessionSnapshot.new(
        "s-1", 1, [Message.user_text("run it"), Message.result("c-1", True, text)], IDENTITY
    )


@pytest.mark.parametrize("fmt", ["json", "markdown", "html"])
def test_no_export_keeps_a_password_and_none_is_blocked(fmt: str) -> None:
    for name, (text, needles) in CAUGHT.items():
        result = export_snapshot(_session(text), Selection.everything(), key=KEY, fmt=fmt)
        out = result.data.decode()
        for needle in needles:
            assert needle not in out and json.dumps(needle)[1:-1] not in out, (name, needle)
        assert not result.blocked, (name, [(f.rule, f.location) for f in result.report.blocking])


def test_the_audit_reports_each_password_of_an_unredacted_session() -> None:
    for name, (text, _) in CAUGHT.items():
        report = audit_bytes(
            encode_pretty(_session(text)), scanner=SCANNER, key=KEY, fmt="snapshot"
        )
        assert any(f.severity.value == "critical" for f in report.findings), name


LEFT_ALONE: tuple[str, ...] = (
    "docker run -p 80:80 nginx",
    "mysql -u root -p appdb",  # -p alone: mysql asks
    "mysqldump -u root -p --all-databases",
    "curl -u alice https://api.example.com",  # no password: curl asks
    "curl -u user: https://x.example",
    'curl -u "$USER:$PASS" https://x.example',
    "ssh -p 2222 host",
    "unzip -o x.zip -d out",
    'unzip -P "$ZIP_PASS" a.zip',
    "7z x -p backup.7z",
    "openssl rsa -passin file:pw.txt -in k.pem",
    "openssl enc -k $KEY -in x",
    'echo "$PW" | docker login --password-stdin -u me',
    "echo hello | grep hello",
    "net use Z: \\\\srv\\share /user:bob",
    "net user bob /add",
    "net user bob *",
    "sqlplus /nolog",
    "sqlplus / as sysdba",
    "sqlplus user@db",
    "rman target /",
    "git config user.name Bob",
    "git config --global credential.helper store",
    "npm config set registry https://registry.npmjs.org/",
    "aws configure set region eu-west-1",
    "nmcli con up id Home",
    "redis-cli -h cache -p 6379 ping",
    "htpasswd -c /etc/htpasswd admin",
    "poetry config virtualenvs.in-project true",
    "lftp -u deploy ftp.example.com",
    "smbclient -L //fs -U alice",
    "ldapsearch -x -W -D cn=admin",
    "psql -h db -U app -d app",
    "send the report to bob",
    'expect "Name:"\nsend "alice\\r"',
    "mc alias set local http://localhost:9000",
    "ftp -n host <<EOF\nuser anonymous\nbye\nEOF",
    "curl -i -u 'test:test'",  # the user's name again: a placeholder
    "curl http://127.0.0.1:5000/file --user user:pass --digest",
    # a paired password flag's value that is a setting (psql's print options)
    'psql -U app -d shop -P pager=off -c "select 1"',
    "psql -h db -U report -P null=NULL -P border=2 -f q.sql",
    "psql -U app -P format=aligned -d shop",
    # a Windows drive's path, not a user and its password
    'certutil -hashfile "C:\\Users\\me\\Downloads\\Win11_23H2_English_x64v2.iso" SHA256',
    'certutil -hashfile "D:\\Builds\\App_v2\\Setup_x64v3.msi" SHA256',
    'robocopy "C:\\Users\\me\\src" "D:\\Backup\\src_2024v2" /MIR',
    # a subcommand, then the name of the secret it acts on
    "aws secretsmanager get-secret-value --secret-id prod/db --region eu-west-1",
    "aws secretsmanager get-secret-value --region eu-west-1 --secret-id prod/db",
    "aws secretsmanager get-secret-value --secret-id MyDbSecret2 --version-stage AWSCURRENT",
    "aws secretsmanager describe-secret --secret-id MyDbSecret2",
    "aws secretsmanager rotate-secret --secret-id ProdDbSecret7",
)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("sqlcmd -S db -U sa -P Xk9mQ2vLp7Rz -Q 'select 1'", "Xk9mQ2vLp7Rz"),
        ("asadm -U admin -P Vb7nQ2xK9mLp", "Vb7nQ2xK9mLp"),
        ('7z a -p"Xk9mQ2vLp7Rz" "C:\\Out\\backup_v2.7z"', "Xk9mQ2vLp7Rz"),
        (
            'aws secretsmanager put-secret-value --secret-id prod/db --secret-string "Xk9#mQ2vLp7Rz"',
            "Xk9#mQ2vLp7Rz",
        ),
        (
            "aws configure set --profile prod aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        ("git config --global user.password Xk9mQ2vLp7Rz", "Xk9mQ2vLp7Rz"),
    ],
)
def test_a_password_beside_the_look_alikes_causes_is_found(text: str, secret: str) -> None:
    """Beside a setting after ``-P``, a drive's path and a secret's name after its subcommand,
    the credentials of the same commands are still read."""
    assert _covered(text.encode(), secret.encode()), text


@pytest.mark.parametrize("text", LEFT_ALONE)
def test_a_command_line_without_a_password_is_left_alone(text: str) -> None:
    assert SCANNER.scan(text.encode()) == [], text


def test_a_line_is_split_as_a_shell_splits_it() -> None:
    text = b"""mysql -u 'a b' -p"c \\" d" e\\ f | grep x; echo `id` # comment"""
    words = [(w.text, w.op) for w in split(text, 0, [(len(text), len(text))])]
    assert words == [
        (b"mysql", False),
        (b"-u", False),
        (b"a b", False),
        (b'-pc " d', False),
        (b"e f", False),
        (b"|", True),
        (b"grep", False),
        (b"x", False),
        (b";", True),
        (b"echo", False),
        (b"`", True),
        (b"id", False),
        (b"`", True),
    ]


def test_the_table_names_a_password_option_or_position_for_each_client() -> None:
    for name, client in CLIENTS.items():
        assert (
            client.options
            or client.positions
            or client.pairs
            or client.stdin is not None
            or client.script
            or client.named is not None
            or name in {"runas", "mount", "expect", "mysql_config_editor", "passwd"}
        ), name


def test_base64_text_holds_no_command_line() -> None:
    """A client's name inside base64 (``…/exp`` ending a wrapped line, ``+mysql``) is no command:
    its lines are not read as command lines (reading them costs the scan on every base64 text)."""
    from rho_desk.core.export.scanner._structure import trigger_lines

    data = b"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo/exp\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo+mysql\n"
    assert trigger_lines(data, None) == []
    assert trigger_lines(b"mysql -pS3cret db\n", None) == [0]


def test_the_gate_reports_command_lines_by_one_expression_a_client_as_by_their_alternation() -> (
    None
):
    """The gate searches ``COMMAND_GATES`` (one expression a client: literals, several times
    faster) where the confirmation reads ``COMMAND_GATE``: both report the same places, for every
    client, raw, after a row's arrow and inside a JSON string, and none in words that hold a name."""
    from rho_desk.core.export.scanner._argv import COMMAND_GATE, COMMAND_GATES
    from rho_desk.core.export.scanner._prefilter import HYPERSCAN, Gate, Rule

    if not HYPERSCAN:
        pytest.skip("hyperscan is not installed")
    lines = [
        f"{before}{name}{after}"
        for name in sorted(CLIENTS)
        for before, after in (("", " -p x"), ("12\u2192", ".exe\t"), ("$ sudo ", '"'), ("x", " "))
    ]
    lines += ["echo x | docker login --password-stdin", "chpasswd < users", "mysqldump db"]
    text = "\n".join(lines).encode()
    data = text + b"\n" + json.dumps({"output": text.decode()}).encode()
    one = Gate([Rule(COMMAND_GATE, caseless=True, last=COMMAND_GATE)]).scan(data)
    each = Gate(
        [Rule(COMMAND_GATE, caseless=True, last=COMMAND_GATE, alternatives=COMMAND_GATES)]
    ).scan(data)
    assert len(one.starts[0]) > 4 * len(CLIENTS)
    assert sorted(set(each.starts[0])) == sorted(set(one.starts[0]))
