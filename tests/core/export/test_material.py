"""Key material and one-time codes on lines of their own (issue 31, batch 8's cause): what says
they are secret is a marker, a heading, a cipher's name or a key's name around them, not a name on
their line (``_material``, rule ``key-material``). Each form is scanned raw, as a JSON string
(its line breaks escaped) and in ``read_file`` rows; each look-alike stays untouched.

These forms are not the held-out batch's (``heldout_batch_8.json`` holds those and their further
forms); they are the rule's own, one per pass and shape.
"""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import SecretScanner
from rho_desk.core.export.scanner._printers import printed_values

FORMS: dict[str, tuple[str, list[str]]] = {
    # label: (text, the secrets)
    "armored seed": (
        "-----BEGIN SERVER NKEY SEED-----\nSNAKXQ4Y6JYB2LRE5TWF3VMYSAAJ5RXRQZ2B4T6LNWEZV7HFGUYSDMQ3K\n"
        "------END SERVER NKEY SEED------",
        ["SNAKXQ4Y6JYB2LRE5TWF3VMYSAAJ5RXRQZ2B4T6LNWEZV7HFGUYSDMQ3K"],
    ),
    "armored licence, hex groups after a name": (
        "----- BEGIN LICENSE -----\nJo Doe\nTeam License\n9A3F1C7E 5D2B8A4F 6C0E1D3B 5A7C9E2F\n"
        "4D6B8A0C 1E3F5A7B 9C2D4E6F 8A0B1C3D\n------ END LICENSE ------",
        ["9A3F1C7E 5D2B8A4F", "4D6B8A0C 1E3F5A7B"],
    ),
    "armored server key": (
        "-----BEGIN OpenVPN tls-crypt-v2 server key-----\n"
        "Zq3Lm8Nx2Vb7Kc5Jd1Hf9Gs4Ta6Ry0Ue3Wi8Op2As5Df7Gh1Jk4Lz9Xc6Vb3Nm8Qw2Er\n"
        "-----END OpenVPN tls-crypt-v2 server key-----",
        ["Zq3Lm8Nx2Vb7Kc5Jd1Hf9Gs4Ta6Ry0Ue3Wi8Op2As5Df7Gh1Jk4Lz9Xc6Vb3Nm8Qw2Er"],
    ),
    "google-authenticator file": (
        'GEZDGNBVGY3TQOJQGEZDGNBVGY\n" RATE_LIMIT 3 30\n" TOTP_AUTH\n52019384\n66120477',
        ["GEZDGNBVGY3TQOJQGEZDGNBVGY", "52019384", "66120477"],
    ),
    "codes under a heading, a line between": (
        "Backup codes for jo@example.org\n\n  a7c2-9d1f\n  4e8b-0c3a\n  f19d-7b20",
        ["a7c2-9d1f", "4e8b-0c3a", "f19d-7b20"],
    ),
    "codes two to a line": (
        "RECOVERY CODES\n1. 5831 0274    2. 9946 1183\n3. 2207 6615    4. 7480 3391",
        ["5831 0274", "9946 1183", "2207 6615", "7480 3391"],
    ),
    "a hex key after its enctype": (
        "   2 svc/db@CORP.EXAMPLE (des3-cbc-sha1)  (0x7f2a9c41e8b30d5c6a1f7e92b4c8d03a5e6f1b7c29d4a8e0)",
        ["7f2a9c41e8b30d5c6a1f7e92b4c8d03a5e6f1b7c29d4a8e0"],
    ),
    "an xfrm aead key": (
        "\taead rfc4106(gcm(aes)) 0x3c9e1a7f5b2d8c4e6a0f1d9b7e3c5a2f8d4b6e01 128",
        ["3c9e1a7f5b2d8c4e6a0f1d9b7e3c5a2f8d4b6e01"],
    ),
    "spaced key bytes after its label": (
        "Key bytes: 9c 41 e8 b3 0d 5c 6a 1f 7e 92 b4 c8 d0 3a 5e 6f\n"
        "           1b 7c 29 d4 a8 e0 33 71 0a 4f 8e 26 c1 95 bd 02",
        ["9c 41 e8 b3 0d 5c 6a 1f", "1b 7c 29 d4 a8 e0 33 71"],
    ),
    "a key as byte values": (
        "const uint8_t hmacKey[16] = {201, 14, 77, 160, 3, 250, 91, 38, 129, 66, 5, 217, 148, 30, 99, 172};",
        ["201, 14, 77, 160, 3, 250, 91, 38, 129, 66, 5, 217, 148, 30, 99, 172"],
    ),
}

LOOK_ALIKES: dict[str, str] = {
    "a public key block": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----",
    "a licence's text": "----- BEGIN LICENSE -----\nPermission is hereby granted, free of charge, to any person\n----- END LICENSE -----",
    "prose naming recovery codes": "Recovery codes are shown once.\nSee the docs for details\nVersion 2.14.0",
    "a cipher above a digest": "cipher aes-256-gcm\nsha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "a wallet in parentheses after an address": "jo@example.org (0x742d35Cc6634C0532925a3b844Bc454e4438f44e)",
    "key codes": "hotkeys = [17, 65, 17, 66, 17, 67, 17, 68, 17, 69]",
    "a public key's bytes": "Public key: 04 a3 9f 1c 77 e2 5b 08 c4 d1 6e 3a 90 2f b7 45",
    "small numbers under a key's name": "key_sizes = [16, 24, 32, 16, 24, 32, 48, 64]",
}


def _variants(text: str) -> dict[str, bytes]:
    rows = "\n".join(f"{i}:{line}" for i, line in enumerate(text.split("\n"), 1))
    return {
        "raw": text.encode(),
        "json": json.dumps({"content": text}).encode(),
        "rows": json.dumps({"content": rows}).encode(),
    }


def _redacted(data: bytes) -> bytes:
    out = bytearray(data)
    for hit in SecretScanner([]).scan(data):
        out[hit.start : hit.end] = b"\x00" * (hit.end - hit.start)
    return bytes(out)


@pytest.mark.parametrize("variant", ["raw", "json", "rows"])
@pytest.mark.parametrize("label", list(FORMS))
def test_key_material_is_found(label: str, variant: str) -> None:
    text, secrets = FORMS[label]
    left = _redacted(_variants(text)[variant])
    assert not [s for s in secrets if s.encode() in left], label


@pytest.mark.parametrize("variant", ["raw", "json", "rows"])
@pytest.mark.parametrize("label", list(LOOK_ALIKES))
def test_a_look_alike_is_not_key_material(label: str, variant: str) -> None:
    data = _variants(LOOK_ALIKES[label])[variant]
    assert not [h for h in SecretScanner([]).scan(data) if h.rule == "key-material"], label


@pytest.mark.parametrize(
    ("command", "output", "values"),
    [
        ("consul keygen", "Zk3Lm8Nx2Vb7Kc5Jd1Hf9Gs4Ta6Ry0Ue3Wi8Op2As=\n", 1),
        ("sudo borg key export /srv/repo -", "BORG_KEY 1f3d\nhqlhbGdvcml0aG2mc2hhMjU2pGRh\n", 1),
        ("base64 -w0 /etc/munge/munge.key", "t5tgE4TPHpJSIpsZqK0sKM6EXjUIrtbQ\n", 1),
        ("cat /var/lib/rabbitmq/.erlang.cookie", "QXJVMDFHRKWZBTPNLCYE\n", 1),
        ("cat ~/.config/deluge/auth", "localclient:7a61098a65b8:10\njo:EilPg2uecBk08F:10\n", 2),
        (
            "sudo cat /etc/dovecot/users",
            "jo@example.org:{PLAIN}Zk4#rW8qTn2vLp:5000:5000::/home/jo",
            1,
        ),
        (
            "ssh-keygen -y -f ~/.ssh/id_ed25519",
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb9 jo@h\n",
            0,
        ),
        ("restic key list", " ID        User\n*6f1c2a9e  jo\n", 0),
        (
            "cat /etc/passwd",
            "root:x:0:0:root:/root:/bin/bash\njenkins01:x:1001:1001::/home/j:/bin/sh",
            0,
        ),
        ("grep -r token new", "tokens/new.txt:1:abcdefgh1\n", 0),
    ],
)
def test_what_a_key_printer_or_a_credential_file_prints(
    command: str, output: str, values: int
) -> None:
    assert len(printed_values(command, output)) == values, printed_values(command, output)


def test_a_key_file_printed_past_the_listing_limit_is_still_read() -> None:
    lines = [
        f"Qx{i:02d}vN2mLp9RtK4sWc1YbZg3HdJ8fGe5UoA3iZ6TqPlXnB0ryKd7SmVxQ2wEtYuIo" for i in range(14)
    ]
    assert printed_values("sudo cat /etc/mongod/keyfile", "\n".join(lines)) == lines
    assert printed_values("cat notes.txt", "\n".join(lines)) == []
