"""The command-line clients rho-desk reads, as data: how each gives a password.

``_argv`` splits a command line and reads each command by its client's entry here:

* ``Option``: an option giving the password, glued (``-pX``), separate (``-p X``), after ``=``,
  as the n-th word after it (``+login user X``), under some subcommands only (``docker login
  -p``, not ``docker run -p``), and which part of its value is the password (``user:X``,
  ``user,X``, ``user%X``, ``pass:X``, ``user/X@db``, a cookie string);
* ``Position``: the password by position after subcommand words (``wandb login X``,
  ``poetry config http-basic.R user X``);
* ``Client``: a client's options and positions, the options taking a value (so positions are
  counted right), whether it takes settings as words (``nmcli … wifi-sec.psk X``), reads its
  password from standard input or reads commands there;
* what reads a password from standard input: options (``STDIN_OPTIONS``: ``--password-stdin``,
  ``--passwd-on-stdin``, a credential's file given as ``-`` or ``/dev/stdin``), switches of
  programs (``STDIN_SWITCHES``: ``sudo -S``) and subcommands (``STDIN_SUBCOMMANDS``: ``gh secret
  set``, ``wg pubkey``, ``pass insert``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = [
    "CLIENTS",
    "STDIN_GIVEN",
    "STDIN_OPTIONS",
    "STDIN_PROGRAMS",
    "STDIN_SUBCOMMANDS",
    "STDIN_SWITCHES",
    "Client",
    "Option",
    "Position",
]


@dataclass(frozen=True, slots=True)
class Option:
    """How an option gives its password: glued to it (``-pX``), as the next word (``-p X``), after
    ``=`` (``--pass=X``, always), and which part of the value is the password (``""`` all of it;
    ``":"``, ``","``, ``"%"``: what follows the first; ``"pass:"``: OpenSSL's pass phrase
    argument; ``"/"``: ``user/X@db``; ``"cookie"``: a cookie string's secret values)."""

    glued: bool = True
    separate: bool = True
    part: str = ""
    words: int = 1
    """Separate, the password is this word after the option: steamcmd's ``+login user X`` (2),
    mkstore's ``-createCredential db user X`` (3). An option or an operator before it: none is
    given (``+login anonymous +quit``)."""
    then: int = 0
    """Separate, this many words after the password are credentials too, up to an option or an
    operator: steamcmd's Steam Guard code (``+login user X CODE``), dscl's new password after the
    old (``-passwd /Users/u OLD NEW``)."""
    under: tuple[tuple[str, ...], ...] = ()
    """The subcommands under which the option gives a password (none: under every one):
    ``docker login -p X`` does, ``docker run -p 80:80`` does not. The subcommand's words come
    first among the arguments that are not options; a subcommand of two or more words may be
    written by its last alone (``helm login`` for ``helm registry login``)."""


@dataclass(frozen=True, slots=True)
class Position:
    """The password by position: after the subcommand words ``after`` (none: from the first
    argument), the argument ``index`` places after the one matching ``key`` (a regex; empty:
    any), its ``part`` as ``Option.part``."""

    after: tuple[str, ...] = ()
    key: str = ""
    index: int = 0
    part: str = ""


@dataclass(frozen=True, slots=True)
class Client:
    options: dict[str, Option]
    positions: tuple[Position, ...] = ()
    takes: frozenset[str] = frozenset()
    """Options that take the next word as their value (so it is not counted as a position)."""
    pairs: bool = False
    """The client takes settings as words: a credential-named word's next word is its value."""
    stdin: str | None = None
    """The client reads its password from standard input: the part of the value (``""``, ``":"``)."""
    script: bool = False
    """The client reads commands from standard input: a heredoc's ``user NAME X`` and ``pass X``."""
    named: tuple[str, str] | None = None
    """The options naming a setting and giving its value (``reg add … /v NAME /d X``, PowerShell's
    ``-Name NAME -Value X``; caseless): under a credential's name the value is one, whatever its
    shape."""


_P = Option()
_GLUED = Option(separate=False)
_SEPARATE = Option(glued=False)
_COLON = Option(part=":")
_PASS_ARG = Option(glued=False, part="pass:")
_SLASH = Option(glued=False, part="/")

# fmt: off
_MYSQL: Final = Client({"-p": _GLUED}, takes=frozenset({"-u", "-h", "-P", "-D", "-S", "-e"}))
_MONGO: Final = Client({"-p": _SEPARATE}, takes=frozenset({"-u", "--host", "--port", "--db", "-d", "--authenticationDatabase"}))
_LDAP: Final = Client({"-w": _P}, takes=frozenset({"-D", "-H", "-b", "-h", "-x", "-s", "-f", "-y"}))
_SMB: Final = Client(
    {"-U": Option(part="%"), "--user": Option(glued=False, part="%")},
    positions=(Position(index=1),),
    takes=frozenset({"-U", "-W", "-m", "-I", "-p", "-c", "-A", "-d", "-n", "-O", "-s", "-t", "--user", "--workgroup"}),
)
_ZIP: Final = Client({"-P": _P})
_SEVENZ: Final = Client({"-p": _GLUED})
_RAR: Final = Client({"-p": _GLUED, "-hp": _GLUED})


def _under(options: tuple[str, ...], how: Option, *under: tuple[str, ...]) -> dict[str, Option]:
    """``options`` giving a password as ``how`` does, under one of the subcommands ``under``."""
    return {opt: Option(how.glued, how.separate, how.part, how.words, how.then, under) for opt in options}


def _login(*under: str, options: tuple[str, ...] = ("-p",), how: Option = _P) -> dict[str, Option]:
    """Options giving a password under the subcommand ``under`` only (``docker login -p X``)."""
    return _under(options, how, under)


_LOGIN: Final = Client(_login("login"), takes=frozenset({"-u", "--username"}))
_OPENSSL_PASS = {opt: _PASS_ARG for opt in ("-pass", "-passin", "-passout", "-password", "-srcpassfile")}
_OPENSSL: Final = Client({**_OPENSSL_PASS, "-k": _SEPARATE, "-K": _SEPARATE, "-kfile": Option(glued=False, separate=False)})
_COOKIE = Option(part="cookie")
_CURL: Final = Client(
    {"-u": _COLON, "--user": Option(glued=False, part=":"), "-U": _COLON, "--proxy-user": Option(glued=False, part=":"),
     "-b": _COOKIE, "--cookie": Option(glued=False, part="cookie")},
    takes=frozenset({"-H", "-d", "-X", "-o", "-A", "-e", "-c", "-F", "--data", "--header", "--request", "--output"}),
)
_ORACLE: Final = Client(
    {"userid=": _SLASH},
    positions=(Position(index=0, part="/"), Position(key=r"(?i)connect|conn|target|catalog|auxiliary", index=1, part="/")),
)
_KEYTOOL = {opt: _SEPARATE for opt in ("-storepass", "-keypass", "-srcstorepass", "-deststorepass", "-srckeypass", "-destkeypass", "-new")}
_POSTFIX_DASH_P: Final = Client({"-p": _P, "-P": _P})
_STEAM: Final = Client({"+login": Option(glued=False, words=2, then=1)})

CLIENTS: Final[dict[str, Client]] = {
    # databases
    "mysqladmin": Client(_MYSQL.options, positions=(Position(key="password", index=1),), takes=_MYSQL.takes),
    **dict.fromkeys(("mysql", "mysqldump", "mysqlimport", "mysqlcheck", "mysqlshow", "mysqlpump",
                     "mariadb", "mariadb-dump", "mariadb-admin"), _MYSQL),
    **dict.fromkeys(("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop"), _MONGO),
    **dict.fromkeys(("sqlplus", "sqlldr", "exp", "imp", "expdp", "impdp", "rman", "dgmgrl"), _ORACLE),
    "sqlcmd": Client({"-P": _P}, takes=frozenset({"-U", "-S", "-d", "-Q", "-q", "-i", "-o"})),
    "bcp": Client({"-P": _P}, takes=frozenset({"-U", "-S", "-d", "-f", "-t", "-r"})),
    "osql": Client({"-P": _P}, takes=frozenset({"-U", "-S", "-d"})),
    "isql": Client({}, positions=(Position(index=2),), takes=frozenset({"-d", "-m", "-k"})),
    "redis-cli": Client({"-a": _P, "--pass": _SEPARATE}, takes=frozenset({"-h", "-p", "-n", "-u", "--user"}), pairs=True),
    "valkey-cli": Client({"-a": _P, "--pass": _SEPARATE}, takes=frozenset({"-h", "-p", "-n", "--user"}), pairs=True),
    "keydb-cli": Client({"-a": _P}, takes=frozenset({"-h", "-p", "-n"}), pairs=True),
    "influx": Client({"-password": _SEPARATE, "-p": _SEPARATE}, takes=frozenset({"-username", "-host", "-u"})),
    "cqlsh": Client({"-p": _SEPARATE}, takes=frozenset({"-u", "-k"})),
    "clickhouse-client": Client({"--password": _SEPARATE}, takes=frozenset({"--user", "--host", "-u", "-h"})),
    # transfer and archives
    "curl": _CURL,
    "wget": Client({"--password": _SEPARATE, "--http-password": _SEPARATE, "--ftp-password": _SEPARATE}),
    "lftp": Client({"-u": Option(part=","), "--user": Option(glued=False, part=",")}, takes=frozenset({"-p", "-e", "-f"})),
    "ncftp": Client({"-p": _P}, takes=frozenset({"-u", "-P", "-j"})),
    "ncftpput": Client({"-p": _P}, takes=frozenset({"-u", "-P", "-j"})),
    "ncftpget": Client({"-p": _P}, takes=frozenset({"-u", "-P", "-j"})),
    "http": Client({"-a": _COLON, "--auth": Option(glued=False, part=":")}),
    "https": Client({"-a": _COLON, "--auth": Option(glued=False, part=":")}),
    "xh": Client({"-a": _COLON, "--auth": Option(glued=False, part=":")}),
    "zip": _ZIP, "zipcloak": _ZIP, "unzip": _ZIP, "funzip": Client({}, positions=(Position(index=0),)),
    "7z": _SEVENZ, "7za": _SEVENZ, "7zr": _SEVENZ, "rar": _RAR, "unrar": _RAR, "winrar": _RAR,
    "openssl": _OPENSSL,
    "gpg": Client({"--passphrase": _SEPARATE}),
    "sshpass": Client({"-p": _P}),
    "ssh-keygen": Client({"-P": _P, "-N": _P}, takes=frozenset({"-f", "-t", "-b", "-C"})),
    "smbclient": _SMB, "rpcclient": _SMB, "smbcacls": _SMB, "smbget": _SMB, "smbmap": Client({"-p": _SEPARATE}, takes=frozenset({"-u", "-H", "-d"})),
    "mosquitto_pub": Client({"-P": _SEPARATE, "--pw": _SEPARATE}, takes=frozenset({"-u", "-h", "-t", "-m", "-p"})),
    "mosquitto_sub": Client({"-P": _SEPARATE, "--pw": _SEPARATE}, takes=frozenset({"-u", "-h", "-t", "-p"})),
    "ipmitool": Client({"-P": _SEPARATE}, takes=frozenset({"-U", "-H", "-I"})),
    "snmpwalk": Client({"-A": _SEPARATE, "-X": _SEPARATE}, takes=frozenset({"-u", "-l", "-a", "-x", "-v", "-c"})),
    "snmpget": Client({"-A": _SEPARATE, "-X": _SEPARATE}, takes=frozenset({"-u", "-l", "-a", "-x", "-v", "-c"})),
    "psexec": Client({"-p": _SEPARATE}, takes=frozenset({"-u"})),
    "xfreerdp": Client({"/p:": Option(separate=False), "/password:": Option(separate=False)}),
    "wfreerdp": Client({"/p:": Option(separate=False)}),
    "rdesktop": Client({"-p": _P}, takes=frozenset({"-u", "-d", "-g"})),
    "wmic": Client({"/password:": Option(separate=False)}),
    "cmdkey": Client({"/pass:": Option(separate=False)}),
    "schtasks": Client({"/rp": _SEPARATE, "/p": _SEPARATE}, takes=frozenset({"/ru", "/u", "/s", "/tn", "/tr", "/sc"})),
    "runas": Client({}),
    "reg": Client({}, named=("/v", "/d")),
    **dict.fromkeys(("set-itemproperty", "new-itemproperty"), Client({}, named=("-name", "-value"))),
    "keytool": Client(_KEYTOOL), "jarsigner": Client(_KEYTOOL),
    "twine": Client(_login("upload", how=_SEPARATE), takes=frozenset({"-u", "-r"})),
    "dotnet": Client(_login("nuget", how=_SEPARATE), takes=frozenset({"-u", "-n", "-s"})),
    "nuget": Client(_login("sources", options=("-password",), how=_SEPARATE), takes=frozenset({"-username", "-source", "-name"})),
    "docker": _LOGIN, "podman": _LOGIN, "nerdctl": _LOGIN, "buildah": _LOGIN, "skopeo": _LOGIN, "oras": _LOGIN,
    "helm": Client(_login("registry", "login"), takes=_LOGIN.takes), "crane": Client(_login("auth", "login"), takes=_LOGIN.takes),
    "regctl": Client(_login("registry", "login"), takes=_LOGIN.takes),
    "az": Client(_login("login", how=_SEPARATE), takes=frozenset({"-u", "-t", "-n", "-g"})),
    "htpasswd": Client({}, positions=(Position(key="-b", index=2), Position(key="-nb", index=1))),
    "rabbitmqctl": Client({}, positions=(Position(after=("add_user",), index=1), Position(after=("change_password",), index=1))),
    "net": Client({}, positions=(Position(after=("user",), index=1), Position(after=("use",), key=r"\\.+", index=1))),
    "poetry": Client({}, positions=(Position(after=("config",), key=r"http-basic\..+", index=2),
                                    Position(after=("config",), key=r"pypi-token\..+", index=1))),
    "wpa_passphrase": Client({}, positions=(Position(index=1),)),
    "nmcli": Client({}, pairs=True),
    "mysql_config_editor": Client({}),
    "npm": Client({}, pairs=True), "yarn": Client({}, pairs=True), "pnpm": Client({}, pairs=True),
    "pip": Client({}, pairs=True), "git": Client({}, pairs=True), "aws": Client({}, pairs=True),
    "gh": Client(_login("secret", "set", options=("-b", "--body"), how=_SEPARATE)),
    "sc": Client({"password=": _SEPARATE}),
    "convertto-securestring": Client({"-string": _SEPARATE}, positions=(Position(index=0),)),
    "chpasswd": Client({}, stdin=":"),
    "passwd": Client({}),
    "vault": Client({}, positions=(Position(after=("login",), index=0),)),
    "ldapsearch": _LDAP, "ldapadd": _LDAP, "ldapmodify": _LDAP, "ldapdelete": _LDAP, "ldappasswd": Client({"-w": _P, "-s": _SEPARATE}),
    "ldapwhoami": _LDAP, "ldapcompare": _LDAP, "ldapmodrdn": _LDAP, "ldapexop": _LDAP,
    "mount": Client({}), "expect": Client({}),
    "mc": Client({}, positions=(Position(after=("alias", "set"), index=3), Position(after=("config", "host", "add"), index=3))),
    "ftp": Client({}, script=True),
    "send": Client({}, positions=(Position(index=0, part="send"),)),
    "pure-pw": _POSTFIX_DASH_P,
    # a password as the n-th word after its option, or by position after a subcommand
    "steamcmd": _STEAM, "steamcmd.sh": _STEAM, "steamcmd.exe": _STEAM,
    "dscl": Client({"-passwd": Option(glued=False, words=2, then=1)}),
    "mkstore": Client({**dict.fromkeys(("-createCredential", "-modifyCredential"), Option(glued=False, words=3)),
                       **dict.fromkeys(("-createEntry", "-modifyEntry"), Option(glued=False, words=2))},
                      takes=frozenset({"-wrl", "-wrlpwd"})),
    "conan": Client(_under(("-p", "--password"), _SEPARATE, ("remote", "login"), ("user",)),
                    takes=frozenset({"-r", "--remote"})),
    "wandb": Client({}, positions=(Position(after=("login",), index=0),), takes=frozenset({"--host", "--cloud", "--base-url"})),
    "ngrok": Client({}, positions=(Position(after=("authtoken",), index=0), Position(after=("config", "add-authtoken"), index=0))),
    "snyk": Client({}, positions=(Position(after=("auth",), index=0),)),
    "cf": Client(_login("login", how=_SEPARATE), positions=(Position(after=("auth",), index=1),),
                 takes=frozenset({"-a", "-u", "-o", "-s", "--origin"})),
    "composer": Client({}, positions=(Position(after=("config",), key=r"http-basic\..+", index=2),
                                      Position(after=("config",), key=r"(?:github-oauth|gitlab-token|gitlab-oauth|bearer)\..+", index=1))),
    "gpg-preset-passphrase": Client({"-P": _SEPARATE, "--passphrase": _SEPARATE}),
    **dict.fromkeys(("pscp", "plink", "psftp"), Client({"-pw": _SEPARATE}, takes=frozenset({"-P", "-i", "-l", "-hostkey", "-proxycmd"}))),
    "security": Client(
        _under(("-p",), _SEPARATE, ("unlock-keychain",), ("create-keychain",))
        | _under(("-w",), _SEPARATE, ("add-generic-password",), ("add-internet-password",)),
        takes=frozenset({"-a", "-s", "-l", "-D", "-c", "-C", "-T", "-G", "-j", "-r", "-t"}),
    ),
    "wg": Client(dict.fromkeys(("private-key", "preshared-key"), _SEPARATE)),
    # a Wi-Fi network's password after its device and name; a tunnel's token by position
    "networksetup": Client({"-setairportnetwork": Option(glued=False, words=3),
                            "-addpreferredwirelessnetworkatindex": Option(glued=False, words=5)}),
    "cloudflared": Client({}, positions=(Position(after=("service", "install"), index=0),)),
    "zrok": Client({}, positions=(Position(after=("enable",), index=0),)),
    # a name that is a hex byte (``ab``): gated by the name and an option after it (``_argv.LED_NAMES``)
    "ab": Client({"-C": _COOKIE, "-A": _COLON, "-P": _COLON},
                 takes=frozenset({"-n", "-c", "-t", "-s", "-b", "-B", "-T", "-p", "-u", "-v", "-X", "-H", "-e", "-g", "-m", "-z", "-x", "-y", "-E", "-f"})),
}
"""Each client's password options and positions, and the options that take a value (so positions
are counted right). A credential-named long option (``--password X``, ``--client-secret=X``) is
read for every command by the name pass (``_commands``); the entries here name what a name does
not say."""
# fmt: on

_STDIN: Final = rb"(?:-|/dev/stdin|/dev/fd/0)(?:[\s\"'`\\;|&)}\]]|$)"
STDIN_OPTIONS: Final = re.compile(
    rb"--(?:[a-z]{1,16}-)?(?:password|passwd|pass|token|secret|passphrase)(?:-on|-from)?-stdin"
    rb"|--?(?:[a-z]{1,16}-?)?(?:password|passphrase|passwd|pass)-?file(?:=|[ \t]+)"
    + _STDIN
    + rb"|--from(?:-env)?-file=(?:[A-Za-z0-9_.\-]{1,64}=)?"
    + _STDIN
    + rb"|(?:private|preshared|secret)-key[ \t]+(?:/dev/stdin|/dev/fd/0)(?:[\s\"'`\\;|&)}\]]|$)"
    + rb"|\b[a-z_]{0,24}(?:password|passwd|secret|token)=-(?:[\s\"'`\\;|&)}\]]|$)"
    rb"|-passin[ \t]+(?:stdin|fd:0)|--passphrase-fd(?:=|[ \t]+)0|--with-token|--stdin"
    rb"|-o[ \t]*(?:[^\s]*,)?password_stdin(?:,[^\s]*)?",
    re.IGNORECASE,
)
"""Options that read the password from standard input: ``--password-stdin``,
``--passwd-on-stdin``, a password's file given as ``-`` or ``/dev/stdin`` (``--password-file=-``,
``-passfile /dev/stdin``, ``--passwordfile /dev/stdin``), a key's (``wg set … private-key
/dev/stdin``), a credential-named setting's value ``-`` (``vault kv put … password=-``), a mount
option (``sshfs … -o password_stdin``)."""

STDIN_PROGRAMS: Final = (
    rb"chpasswd|sudo|htpasswd|smbpasswd|mkpasswd|cryptsetup|kinit|wrangler|secret-tool|keyctl|vercel|gcloud"
    rb"|keepassxc-cli|g?pass[ \t]+insert|keyring[ \t]+set"
)
"""Programs that read a password from standard input (``_STDIN_SWITCHES``, ``chpasswd``,
``_STDIN_SUBCOMMANDS``) that ``CLIENTS`` does not name."""


STDIN_SWITCHES: Final[dict[bytes, tuple[bytes, ...]]] = {
    b"sudo": (b"-S", b"--stdin"),
    b"htpasswd": (b"-i",),
    b"smbpasswd": (b"-s",),
    b"mkpasswd": (b"-s", b"--stdin"),
    b"cryptsetup": (),
    b"kinit": (b"--password-file=STDIN",),
}
"""Programs that read a password from standard input with one of these switches (short ones
also inside a cluster: ``sudo -kS``), or always when it is not a terminal (an empty tuple)."""


STDIN_SUBCOMMANDS: Final[
    dict[bytes, tuple[tuple[tuple[bytes, ...], frozenset[bytes] | None], ...]]
] = {
    b"vault": (((b"login",), frozenset({b"-"})),),
    b"docker": (((b"secret", b"create"), frozenset({b"-"})),),
    b"podman": (((b"secret", b"create"), frozenset({b"-"})),),
    b"nerdctl": (((b"secret", b"create"), frozenset({b"-"})),),
    b"gh": (((b"secret", b"set"), None),),
    b"wrangler": (((b"secret", b"put"), None), ((b"pages", b"secret", b"put"), None)),
    b"secret-tool": (((b"store",), None),),
    b"keyctl": (((b"padd",), None),),
    b"vercel": (((b"env", b"add"), None),),
    b"gcloud": (((b"secrets",), frozenset({b"--data-file=-", b"--data-file=/dev/stdin"})),),
    b"wg": (((b"pubkey",), None),),
    b"pass": (((b"insert",), None),),
    b"gopass": (((b"insert",), None),),
    b"keyring": (((b"set",), None),),
    b"keepassxc-cli": (((), None),),
}
"""Subcommands that read a secret from standard input: when one of the words after them is one
of these (``vault login -``, ``docker secret create NAME -``, ``gcloud secrets create N
--data-file=-``), or always (``None``: ``gh secret set NAME``, ``wrangler secret put NAME``,
``secret-tool store …``, ``wg pubkey`` (a private key), ``pass insert``, ``keyring set``;
``keepassxc-cli`` reads its database's password under every subcommand) unless a value is given by an option (``STDIN_GIVEN``)."""
STDIN_GIVEN: Final = frozenset({b"-b", b"--body", b"-f", b"--env-file", b"--password"})
"""Options that give the value a subcommand of ``STDIN_SUBCOMMANDS`` would otherwise read."""
