"""A corpus of secret forms a coding session holds, one per cause of a past leak, with the secret
each one must lose (``needle``), and a realistic benign session no scanner should flag.

Shared by the scanner tests and the comparison with detect-secrets. Every value is synthetic.
"""

from __future__ import annotations

import base64
import binascii
import bz2
import json
import random
import textwrap
import uuid
from dataclasses import dataclass


@dataclass(frozen=True)
class Form:
    cause: str
    name: str
    text: str
    needle: str


PW = "Zq8#v;L&(p2"  # symbols early: `; & ( #` within the first 8 characters
PW2 = "h7Gt;k(x#9"
SHORT = "a;b&c(d#"  # fewer than 8 characters before every symbol
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq81Hb3KeY"
OPENAI = "sk-proj-Q9xT2mB7vK4pL8nR1sW6yZ3aD5fG0hJ2kM4qU7eI9oP1"
GITHUB = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY"
BEARER = (
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"
)
HEX64 = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
CLI = "Vx7qLm2Rt9Kw"  # a password as typed on a command line (no symbol the shell would take)

_CYRILLIC_A = "\u0430"  # а
_CYRILLIC_O = "\u043e"  # о


def _b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def _fullwidth(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


def _xxd(data: bytes) -> str:
    lines = []
    for off in range(0, len(data), 16):
        chunk = data[off : off + 16]
        groups = " ".join(chunk[i : i + 2].hex() for i in range(0, len(chunk), 2))
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{off:08x}: {groups:<39}  {text}")
    return "\n".join(lines)


def _hexdump_c(data: bytes) -> str:
    lines = []
    for off in range(0, len(data), 16):
        chunk = data[off : off + 16]
        left = " ".join(f"{b:02x}" for b in chunk[:8])
        right = " ".join(f"{b:02x}" for b in chunk[8:])
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{off:08x}  {left:<23}  {right:<23}  |{text}|")
    return "\n".join(lines)


def _od_c(data: bytes) -> str:
    lines = []
    names = {10: "\\n", 9: "\\t", 0: "\\0", 13: "\\r"}
    for off in range(0, len(data), 16):
        chunk = data[off : off + 16]
        cells = "".join(
            f"{names.get(b, chr(b) if 32 <= b < 127 else f'{b:03o}'):>4}" for b in chunk
        )
        lines.append(f"{off:07o}{cells}")
    return "\n".join(lines)


def _wrapped_key_b64() -> str:
    body = f"OPENAI_API_KEY={OPENAI}\nGITHUB_TOKEN={GITHUB}\n".encode()
    return "\n".join(textwrap.wrap(base64.b64encode(body).decode(), 40))


_PUTTY = (
    "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20240101\n"
    "Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIBq2mCkX4dQ7Rc0sR8d1x7yYv0tG0Hk2b9mG\nb3kq2mZx\n"
    "Private-Lines: 1\nAAAAIE9rq1ZyP0bJ7xKfT2uV8wQ3nLmD5sH6aC4eR1tY0pXz\n"
    "Private-MAC: 8a1e0f2b9c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7\n"
)
_JWK = json.dumps(
    {
        "kty": "RSA",
        "e": "AQAB",
        "kid": "k1",
        "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
        "d": "X4cTteJY_gn4FYPsXB8rdXix5vwsg1FLN5E3EaG6RJoVH-HLLKD9M7dx5oo7GURknchnrRweUkC7hT5fJLM0WbFAKNLWY2vv7B6NqXSzUvxT0_YSfqijwp3RTzlBaCxWp4doFk5N2o8Gy_nHNKroADIkJ46pRUohsXywbReAdYaMwFs9tv8d_cPVY3i07a3t8MN6TNwm0dSawm9v47UiCl3Sk5ZiG7xojPLu4sbg1U2jx4IBTNBznbJSzFHK66jT8bgkuqsk0GjskDJk19Z4qwjwbsnn4j2WBii3RL-Us2lGVkY8fkFzme1z0HbIkfz0Y6mqnOYtqc0X4jfcKoAC8Q",
        "p": "83i-7IvMGXoMXCskv73TKr8637FiO7Z27zv8oj6pbWUQyLPQBQxtPVnwD20R-60eTDmD2ujnMt5PoqMrm8RfmNhVWDtjjMmCMjOpSXicFHj7XOuVIYQyqVWlWEh6dN36GVZYk93N8Bc9vY41xy8B9RzzOGVQzXvNEvn7O0nVbfs",
    }
)
_JWKS = json.dumps(
    {
        "keys": [
            {"kty": "oct", "alg": "HS256", "k": "GawgguFyGrWKav7AX4VKUg7x9e0d1c8b2a3f4e5d6c7b8a9"}
        ]
    }
)


def _pkcs12_b64() -> str:
    # the outer DER of a PKCS#12 file: SEQUENCE { INTEGER 3, ContentInfo { OID pkcs7-data ... } }
    der = bytes.fromhex(
        "308209f1020103308209b706092a864886f70d010701a08209a8048209a4"
    ) + random.Random(5).randbytes(600)
    return base64.b64encode(der).decode()


_ESCAPED_CLI = "".join(f"\\u{ord(c):04x}" for c in CLI)

FORMS: list[Form] = [
    # --- credential-name grammar --------------------------------------------------------------
    Form("names", "env DB_PASS", f"DB_PASS={PW}\n", PW),
    Form("names", "env MYSQL_PWD", f"export MYSQL_PWD='{PW2}'\n", PW2),
    Form("names", "ini passwd", f"[db]\npasswd = {PW}\n", PW),
    Form("names", "PGPASSWORD", f"PGPASSWORD={PW2} psql -h db -U app\n", PW2),
    Form(
        "names",
        "maven password element",
        f"<server><id>repo</id><username>ci</username><password>{PW}</password></server>",
        PW,
    ),
    Form("names", "xml attribute", f'<add key="db" connectionPassword="{PW2}" />', PW2),
    Form("names", "yaml credential", f"spec:\n  credentials: {PW}\n", PW),
    Form("names", "toml auth token", f'[registry]\nauth-token = "{PW2}"\n', PW2),
    Form("names", "ruby hash rocket", f':secret_key => "{PW}",', PW),
    Form("names", "camelCase signingKey", f'const signingKey = "{PW2}";', PW2),
    Form("names", "master key", f"MASTER_KEY: {PW}\n", PW),
    Form("names", "encryption key", f'encryptionKey: "{PW2}"', PW2),
    Form("names", "shared access key", f"SharedAccessKey={PW};EntityPath=queue", PW),
    Form("names", "cookie value", f"SESSION_COOKIE={PW2}\n", PW2),
    Form("names", "short symbol password", f"password={SHORT}\n", SHORT),
    Form("names", "cyrillic name", f"p{_CYRILLIC_A}ssword = {PW}\n", PW),
    Form("names", "cyrillic token name", f"t{_CYRILLIC_O}ken: {PW2}\n", PW2),
    # --- command lines ----------------------------------------------------------------------
    Form("flags", "mysql -p glued", f"mysql -u root -p{PW2} shop < dump.sql", PW2),
    Form("flags", "--password space", f"mysqldump --password {PW} shop", PW),
    Form("flags", "--password=", f"pg_dumpall --password={PW2} -h db", PW2),
    Form("flags", "redis-cli -a", f"redis-cli -h cache -a {PW} ping", PW),
    Form("flags", "sshpass -p", f"sshpass -p {PW2} ssh deploy@host", PW2),
    Form("flags", "httpie -a", f"http -a alice:{PW} https://api.example.com/me", PW),
    Form("flags", "curl -u", f"curl -u alice:{PW2} https://api.example.com/", PW2),
    Form("flags", "sshpass -p glued", f"sshpass -p{CLI} scp build.tgz deploy@host:", CLI),
    Form("flags", "any --client-secret", f"mytool login --client-secret {CLI} --tenant t1", CLI),
    Form("flags", "gpg --passphrase", f"gpg --batch --passphrase {CLI} -c notes.txt", CLI),
    Form(
        "flags",
        "keytool -storepass",
        f"keytool -genkeypair -alias app -storepass {CLI} -keypass {CLI}",
        CLI,
    ),
    Form("flags", "docker login -p", f"docker login -u ci -p {CLI} registry.example.com", CLI),
    Form(
        "flags",
        "podman login --password",
        f"podman login --username ci --password {CLI} quay.io",
        CLI,
    ),
    Form(
        "flags", "az login -p", f"az login --service-principal -u app-id -p {CLI} --tenant t1", CLI
    ),
    Form("flags", "mongosh -p", f"mongosh -u admin -p {CLI} --authenticationDatabase admin", CLI),
    Form("flags", "sqlcmd -P", f"sqlcmd -S db -U sa -P {CLI} -Q 'select 1'", CLI),
    Form("flags", "zip -P", f"zip -P {CLI} backup.zip db.sql", CLI),
    Form("flags", "7z -p glued", f"7z a -p{CLI} backup.7z db.sql", CLI),
    Form("flags", "ssh-keygen -N", f"ssh-keygen -t ed25519 -N '{CLI}' -f deploy_key", CLI),
    Form(
        "flags",
        "ldapsearch -w",
        f"ldapsearch -x -D cn=admin,dc=example -w {CLI} -b dc=example",
        CLI,
    ),
    Form("flags", "smbclient user%pass", f"smbclient //files/share -U alice%{CLI}", CLI),
    Form("flags", "htpasswd -b", f"htpasswd -bc /etc/nginx/.htpasswd admin {CLI}", CLI),
    Form("flags", "rabbitmqctl add_user", f"rabbitmqctl add_user app {CLI}", CLI),
    Form("flags", "net user", f"net user deploy {CLI} /add", CLI),
    Form("flags", "aws configure set", f"aws configure set aws_secret_access_key {CLI}", CLI),
    Form(
        "flags",
        "echo into --password-stdin",
        f"echo '{CLI}' | docker login -u ci --password-stdin ghcr.io",
        CLI,
    ),
    Form(
        "flags",
        "ConvertTo-SecureString",
        f"$p = ConvertTo-SecureString '{CLI}' -AsPlainText -Force",
        CLI,
    ),
    Form("sql", "identified by", f"ALTER USER 'app'@'%' IDENTIFIED BY '{PW}';", PW),
    Form("sql", "grant identified by", f'GRANT ALL ON shop.* TO app IDENTIFIED BY "{PW2}";', PW2),
    Form("sql", "create user with password", f"CREATE USER app WITH PASSWORD '{PW}';", PW),
    Form("spoken", "name with a space", f"[api]\nSecret Key = {PW2}\n", PW2),
    Form("spoken", "gradle signingPassword", f'signing {{ signingPassword "{PW}" }}', PW),
    Form(
        "spoken",
        "password is",
        f"the staging admin password is {CLI}, rotate it after the demo",
        CLI,
    ),
    # --- credential files and code ----------------------------------------------------------
    Form("files", "netrc", f"machine api.example.com\n  login alice\n  password {PW}\n", PW),
    Form("files", "netrc one line", f"machine git.example.com login bob password {PW2}\n", PW2),
    Form("files", "pgpass", f"db.internal:5432:shop:app:{PW}\n", PW),
    Form("files", "requests auth tuple", f'requests.get(url, auth=("alice", "{PW2}"))', PW2),
    Form("files", "auth tuple single quotes", f"session.auth = ('bob', '{PW}')", PW),
    # --- values never cut at a symbol -------------------------------------------------------
    Form("values", "password with symbols", f'password: "{PW}"', PW),
    Form(
        "values",
        "aws secret with json slashes",
        '{"aws_secret_access_key":"' + AWS_SECRET.replace("/", "\\/") + '"}',
        AWS_SECRET.replace("/", "\\/"),
    ),
    # --- URL userinfo ----------------------------------------------------------------------
    Form("urls", "redis empty user", f"REDIS_URL=redis://:{PW2}@cache:6379/0", PW2),
    Form("urls", "amqp empty user", f"broker: amqp://:{PW}@mq.internal:5672//", PW),
    # --- base64 of user:password -----------------------------------------------------------
    Form(
        "basic",
        "docker auths",
        json.dumps({"auths": {"registry.example.com": {"auth": _b64(f"ci:{PW}")}}}),
        _b64(f"ci:{PW}"),
    ),
    Form("basic", "npm _auth", f"_auth={_b64('alice:' + PW2)}\n", _b64("alice:" + PW2)),
    Form("basic", "basic header", f"Authorization: Basic {_b64('bob:' + PW)}", _b64("bob:" + PW)),
    # --- line structure -------------------------------------------------------------------
    Form(
        "lines",
        "read_file numbered base64",
        "\n".join(f"{i + 1}:{line}" for i, line in enumerate(_wrapped_key_b64().splitlines())),
        _wrapped_key_b64().splitlines()[1],
    ),
    Form(
        "lines",
        "arrow numbered base64",
        "\n".join(
            f"{i + 1:>6}\u2192{line}" for i, line in enumerate(_wrapped_key_b64().splitlines())
        ),
        _wrapped_key_b64().splitlines()[1],
    ),
    Form(
        "lines",
        "pipe numbered base64",
        "\n".join(f"  {i + 1} | {line}" for i, line in enumerate(_wrapped_key_b64().splitlines())),
        _wrapped_key_b64().splitlines()[1],
    ),
    Form(
        "lines",
        "diff added base64",
        "@@ -0,0 +1,4 @@\n" + "\n".join(f"+{line}" for line in _wrapped_key_b64().splitlines()),
        _wrapped_key_b64().splitlines()[1],
    ),
    Form(
        "lines",
        "quoted base64",
        "\n".join(f"> {line}" for line in _wrapped_key_b64().splitlines()),
        _wrapped_key_b64().splitlines()[1],
    ),
    Form(
        "lines",
        "bearer after continuation",
        f"curl https://api.example.com \\\n  -H 'Authorization: Bearer \\\n{BEARER}'",
        BEARER,
    ),
    Form(
        "lines",
        "key cut by continuation",
        f"export OPENAI_API_KEY={OPENAI[:20]}\\\n{OPENAI[20:]}\n",
        OPENAI[20:],
    ),
    Form(
        "lines",
        "xxd dump",
        _xxd(f"api_key = {OPENAI}\n".encode()),
        _xxd(f"api_key = {OPENAI}\n".encode()).splitlines()[1][10:49],
    ),
    Form(
        "lines",
        "hexdump -C",
        _hexdump_c(f"token={GITHUB}\n".encode()),
        _hexdump_c(f"token={GITHUB}\n".encode()).splitlines()[1][10:58],
    ),
    Form(
        "lines",
        "od -c",
        _od_c(f"TOKEN={GITHUB}\n".encode()),
        _od_c(f"TOKEN={GITHUB}\n".encode()).splitlines()[1][7:],
    ),
    # --- encodings -------------------------------------------------------------------------
    Form(
        "decoders",
        "octal escapes",
        "printf '" + "".join(f"\\{b:03o}" for b in OPENAI.encode()) + "'",
        "".join(f"\\{b:03o}" for b in OPENAI.encode()),
    ),
    Form("decoders", "unicode escapes after a name", f"password={_ESCAPED_CLI}\n", _ESCAPED_CLI),
    Form(
        "decoders",
        "short octal escapes",
        "printf '" + "".join(f"\\{b:o}" for b in f"api_key={OPENAI}".encode()) + "'",
        "".join(f"\\{b:o}" for b in OPENAI.encode()),
    ),
    Form(
        "decoders",
        "base32",
        f"blob: {base64.b32encode(f'key={GITHUB}'.encode()).decode()}",
        base64.b32encode(f"key={GITHUB}".encode()).decode(),
    ),
    Form(
        "decoders",
        "bzip2 base64",
        f"data: {base64.b64encode(bz2.compress(f'OPENAI_API_KEY={OPENAI}'.encode())).decode()}",
        base64.b64encode(bz2.compress(f"OPENAI_API_KEY={OPENAI}".encode())).decode(),
    ),
    Form("decoders", "fullwidth", f"key: {_fullwidth(OPENAI)}", _fullwidth(OPENAI)),
    # --- private keys ----------------------------------------------------------------------
    Form("keys", "putty v3", _PUTTY, "AAAAIE9rq1ZyP0bJ7xKfT2uV8wQ3nLmD5sH6aC4eR1tY0pXz"),
    Form(
        "keys",
        "putty v2",
        _PUTTY.replace("File-3", "File-2"),
        "AAAAIE9rq1ZyP0bJ7xKfT2uV8wQ3nLmD5sH6aC4eR1tY0pXz",
    ),
    Form("keys", "jwk d", _JWK, json.loads(_JWK)["d"]),
    Form("keys", "jwk p", _JWK, json.loads(_JWK)["p"]),
    Form("keys", "jwks k", _JWKS, json.loads(_JWKS)["keys"][0]["k"]),
    Form("keys", "pkcs12 base64", f"cert.p12: {_pkcs12_b64()}", _pkcs12_b64()),
    Form("keys", "wallet hex key", f'accounts: ["0x{HEX64}"]', HEX64),
    Form("keys", "private key hex", f"PRIVATE_KEY=0x{HEX64}", HEX64),
    # --- entropy in context ----------------------------------------------------------------
    Form(
        "entropy",
        "quoted random value",
        'config.set("upstream", "Jm9Qx2LbV7rT4kWz8NcPd3Hs6YfA1gE5")',
        "Jm9Qx2LbV7rT4kWz8NcPd3Hs6YfA1gE5",
    ),
    Form(
        "entropy",
        "assigned random value",
        "SIGNATURE_SALT = Jm9Qx2LbV7rT4kWz8NcPd3Hs6YfA1gE5/+q\n",
        "Jm9Qx2LbV7rT4kWz8NcPd3Hs6YfA1gE5/+q",
    ),
    Form(
        "entropy",
        "custom header",
        "X-Upstream-Credential-Header: q8Zr3Lp0Vx7Tn2Wk5Yb9Hc4Jd6Mf1Gs\n",
        "q8Zr3Lp0Vx7Tn2Wk5Yb9Hc4Jd6Mf1Gs",
    ),
]


def _png_b64() -> str:
    body = random.Random(11).randbytes(3000)
    png = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + body
    return base64.b64encode(png).decode()


_CERT = "\n".join(
    textwrap.wrap(
        base64.b64encode(
            bytes.fromhex("3082030d308201f5a003020102") + random.Random(3).randbytes(700)
        ).decode(),
        64,
    )
)


def benign_session() -> str:
    """A realistic session's text with no secret: hashes, checksums, ids, images, keys that are public."""
    rng = random.Random(42)
    sha = [binascii.hexlify(rng.randbytes(20)).decode() for _ in range(8)]
    sha256 = [binascii.hexlify(rng.randbytes(32)).decode() for _ in range(8)]
    sri = [base64.b64encode(rng.randbytes(64)).decode() for _ in range(6)]
    uuids = [str(uuid.UUID(bytes=rng.randbytes(16))) for _ in range(6)]
    parts = [
        "package-lock.json:",
        *(f'    "integrity": "sha512-{s}",' for s in sri[:3]),
        *(
            f'      "resolved": "https://registry.npmjs.org/pkg-{i}/-/pkg-{i}-1.0.{i}.tgz",'
            for i in range(3)
        ),
        "Cargo.lock:",
        *(f'checksum = "{h}"' for h in sha256[:4]),
        f'<script src="https://cdn.example.com/lib.min.js" integrity="sha384-{sri[3][:64]}" crossorigin="anonymous"></script>',
        "git log --oneline:",
        *(f"{h[:7]} Fix the parser ({h})" for h in sha[:5]),
        f"commit {sha[5]}",
        "Merge: " + sha[6][:7] + " " + sha[7][:7],
        *(f'  "id": "{u}",' for u in uuids),
        f'{{"type": "image", "source": {{"media_type": "image/png", "data": "{_png_b64()}"}}}}',
        "dist/app.min.js:",
        '!function(e,t){"object"==typeof exports?module.exports=t():e.lib=t()}(this,function(){var n="abcdefghijklmnopqrstuvwxyz0123456789";return{encode:function(r){return r.split("").map(function(c){return n.indexOf(c)}).join(",")}}});',
        "-----BEGIN CERTIFICATE-----",
        _CERT,
        "-----END CERTIFICATE-----",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEVs/o5+uQbTjL3chynL4wXgUg2R9\nq9UU8I5mEovUf86QZ7kOBIjJwqnzD1omageEHWwHdBO6B+dFabmdT9POxg==\n-----END PUBLIC KEY-----",
        f"sha256sum: {sha256[4]}  dist/app.tar.gz",
        f'"etag": "W/\\"{sha[0][:16]}\\""',
        'token: str = ""',
        "password = os.environ['DB_PASSWORD']",
        "api_key = settings.OPENAI_API_KEY",
        "secret: ${{ secrets.DEPLOY_KEY }}",
        'headers = {"Authorization": f"Bearer {token}"}',
        "def check_password(self, password: str) -> bool:",
        "max_tokens: 4096",
        "Enter your password:",
        "the token bucket refills every second; pass the auth flag through",
        # command lines whose flags and arguments hold no credential
        "docker run -p 8080:80 nginx && ssh -p 2222 deploy@host && mkdir -p src/app",
        "mytool --token-file ~/.config/tool/token --ssh-key ~/.ssh/id_ed25519 --no-auth https://example.com",
        'echo "$PASSWORD" | docker login -u ci --password-stdin ghcr.io',
        "mytool --password-file /run/secrets/db --auth-type basic",
        "htpasswd -n alice; net user alice; rabbitmqctl list_users; aws configure set region eu-west-1",
        "ssh-keygen -t ed25519 -N '' -f key; mysql -p shop; sqlcmd -S db -P $SA_PASSWORD",
        "keytool -list -keystore ks.jks -storepass:env STOREPASS",
        "SELECT id FROM users WHERE password = $1;",
        "UPDATE users SET password = crypt($1, gen_salt('bf'));",
        "The password is incorrect. The password is required. Your passphrase was accepted.",
        "if ok: pass 'done' ; bypass \"cache\" ; compass 'north'",
        "Run net user alice then log in, or echo hello | docker login -u ci --password-stdin ghcr.io",
    ]
    return "\n".join(parts) + "\n"
