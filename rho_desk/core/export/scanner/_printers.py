"""Commands that print a secret: their output is the secret, with no name beside it.

``op read op://…/password``, ``gcloud secrets versions access``, ``terraform output -raw
db_password``, ``wg genkey``, ``cat config/master.key`` print a bare value; the name that says it
is a credential is in the command, not in the output. ``printed_values`` reads a tool call's
command (or the path a file tool reads) and its output: when the command is one of
``PRINTERS`` (data: a program, its subcommand words, and a word the command must hold) or reads a
file or a variable whose name names a credential (``READERS``; ``…/secrets/…``, ``*.key``,
``auth.txt``, ``printenv GITHUB_TOKEN``), each line of its output that is one word (no space, no
``NAME=`` head, at least ``VALUE_MIN`` characters) is a secret, and an output of one line is,
spaces and all (a passphrase). A command that generates or exports a key (a subcommand
``keygen``, ``genkey``, ``paperkey``, or ``key export``, ``apikeys create``) is a printer too;
a file that holds key material or one-time codes by its name (``…/keyfile``, ``.erlang.cookie``,
``.google_authenticator``, ``github-recovery-codes.txt``, ``*.keyx``) is read as a credential's,
and so is its base64 (``base64 munge.key``). A credential file's line that is a record
(``user:X:10``, ``host:login:X``, ``url user X``) gives its fields after the first that read as
generated (letters and digits, or a symbol: ``_record_field``). The export finds those values
literally wherever they are (``SecretScanner``'s ``printed`` secrets, rule ``printed-secret``).
The same holds for what a command writes into a credential's file (``written_values``: ``echo 'X'
> .vault_pass``, ``printf '%s' X | tee …/api.token``): the literal is the secret.

An output of more than ``LINES_MAX`` lines is a listing, not a secret, and is left to the rules.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Callable
from typing import Final

from ._names import name_is_credential, name_words
from ._values import literal_value, secretish

__all__ = [
    "PRINTERS",
    "READERS",
    "names_accounts",
    "names_credential",
    "printed_values",
    "record_fields",
]

PRINTERS: Final[tuple[tuple[str, tuple[str, ...], str], ...]] = (
    # (program, subcommand words, a word of the command that must hold this text, or "")
    ("op", ("read",), ""),
    ("op", ("item", "get"), "--fields"),
    ("pass", ("show",), ""),
    ("gopass", ("show",), ""),
    ("gopass", ("cat",), ""),
    ("bw", ("get", "password"), ""),
    ("lpass", ("show",), "--password"),
    ("security", ("find-generic-password",), "-w"),
    ("security", ("find-internet-password",), "-w"),
    ("secret-tool", ("lookup",), ""),
    ("keyring", ("get",), ""),
    ("gcloud", ("secrets", "versions", "access"), ""),
    ("gcloud", ("auth", "print-access-token"), ""),
    ("gcloud", ("auth", "print-identity-token"), ""),
    ("gcloud", ("auth", "application-default", "print-access-token"), ""),
    ("gh", ("auth", "token"), ""),
    ("glab", ("auth", "token"), ""),
    ("heroku", ("auth:token",), ""),
    ("aws", ("ecr", "get-login-password"), ""),
    ("aws", ("ecr-public", "get-login-password"), ""),
    ("aws", ("codeartifact", "get-authorization-token"), "text"),
    ("aws", ("secretsmanager", "get-secret-value"), "text"),
    ("aws", ("ssm", "get-parameter"), "text"),
    ("az", ("account", "get-access-token"), "tsv"),
    ("az", ("keyvault", "secret", "show"), "tsv"),
    ("vault", ("kv", "get"), "-field"),
    ("vault", ("read",), "-field"),
    ("vault", ("print", "token"), ""),
    ("terraform", ("output",), "-raw"),
    ("tofu", ("output",), "-raw"),
    ("kubectl", ("get", "secret"), "jsonpath"),
    ("kubectl", ("get", "secret"), "go-template"),
    ("kubectl", ("create", "token"), ""),
    ("wg", ("genkey",), ""),
    ("wg", ("genpsk",), ""),
    ("openssl", ("rand",), ""),
    ("pwgen", (), ""),
    ("rails", ("secret",), ""),
    ("bin/rails", ("secret",), ""),
    ("rake", ("secret",), ""),
    ("docker", ("swarm", "join-token"), "-q"),
    ("kubeadm", ("token", "create"), ""),
    ("npm", ("token", "create"), ""),
)
"""Clients whose command prints a secret alone: the program (its basename), the words that follow
it (options between them skipped), and a text one of its words must hold (``-w``: the password
itself, not the item's attributes)."""

READERS: Final = frozenset(
    {
        "cat",
        "head",
        "tail",
        "less",
        "more",
        "bat",
        "batcat",
        "type",
        "get-content",
        "gc",
        "printenv",
        "echo",
        "xxd",
        "strings",
        "base64",
        "base32",
    }
)
"""Programs that print a file (or a variable, ``printenv NAME``, ``echo $NAME``) as it is."""
_KEY_EXTENSIONS: Final = frozenset(
    {"key", "token", "secret", "secrets", "pass", "passwd", "password", "psk", "pwd", "jwt"}
    | {"keyx", "keyfile", "cookie", "seed"}
)
_MATERIAL_WORDS: Final = frozenset(
    {"keyfile", "keyfiles", "authenticator", "cookie", "cookies", "seed", "mnemonic", "passfile"}
)
"""Words of a file's name that say it holds key material or codes (``mongo-keyfile``,
``.google_authenticator``, ``.erlang.cookie``)."""
_CODES_OF: Final = frozenset({"recovery", "backup", "scratch", "emergency"})
"""... and the words before ``codes`` that say so (``github-recovery-codes.txt``)."""
_NAME_WORDS: Final = re.compile(r"[A-Za-z0-9]+")
_SECRET_DIRS: Final = frozenset({"secrets", ".secrets", "secret", "private"})
_FILE_TOOLS: Final = ("path", "file_path", "filepath", "file", "filename")
LINES_MAX: Final = 8
"""Most non-empty output lines read: a longer output is a listing, not a printed secret."""
VALUE_MIN: Final = 8
_PAIR_HEAD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,60}[=:][^=]")
_ROW: Final = re.compile(r"[ \t]*[0-9]{1,7}(?:\t|:|→|[ \t]*\|)")
_OPERATORS: Final = re.compile(r"\|\||&&|[|;&\n]")


def _words(command: str) -> list[list[str]]:
    """The simple commands of ``command``, each as its words (a shell's split; plain spaces
    where the quotes do not close)."""
    out = []
    for part in _OPERATORS.split(command):
        try:
            words = shlex.split(part, comments=True)
        except ValueError:
            words = part.split()
        if words:
            out.append(words)
    return out


def _follows(words: list[str], sub: tuple[str, ...]) -> bool:
    """``sub`` in order among ``words`` (options and their values between them skipped)."""
    k = 0
    for word in words:
        if k == len(sub):
            break
        if word == sub[k]:
            k += 1
        elif not word.startswith("-") and k > 0:
            return False
    return k == len(sub)


_KEYGEN: Final = frozenset({"keygen", "genkey", "gen-key", "generate-key", "paperkey"})
"""Subcommands that print a new key (``consul keygen``, ``keybase paperkey``): not a program's
name (``ssh-keygen -y`` prints a public key)."""
_KEY_NOUNS: Final = re.compile(r"(?:[a-z]*keys?|tokens?)")
_KEY_VERBS: Final = frozenset({"create", "generate", "new", "export"})
"""``borg key export``, ``headscale apikeys create``, ``… token new``: a key's noun, then one of
these (``restic key list``, ``key add`` print or take no key)."""


def _key_subcommand(words: list[str]) -> bool:
    """A subcommand of ``words`` (after the program) that prints a new or exported key."""
    while words and words[0].rsplit("/", 1)[-1] in ("sudo", "doas", "env"):
        words = words[1:]
    if not words or words[0].rsplit("/", 1)[-1].lower() in _SEARCHERS:
        return False
    operands = [w.lower() for w in words[1:4] if not w.startswith("-")]
    if any(w in _KEYGEN for w in operands):
        return True
    return any(
        _KEY_NOUNS.fullmatch(a) is not None and b in _KEY_VERBS
        for a, b in itertools.pairwise(operands)
    )


def _printer(words: list[str]) -> bool:
    if _key_subcommand(words):
        return True
    for start, word in enumerate(words):
        program = word.rsplit("/", 1)[-1] if word != "bin/rails" else word
        for name, sub, needs in PRINTERS:
            if program != name:
                continue
            rest = words[start + 1 :]
            if _follows(rest, sub) and (not needs or any(needs in w for w in rest)):
                return True
    return False


def names_credential(path: str) -> bool:
    """A path (or a variable) whose name names a credential: ``…/secrets/x``, ``master.key``,
    ``auth.txt``, ``db_password``, ``$GITHUB_TOKEN``, ``mongodb-keyfile``."""
    path = path.strip().strip("'\"").lstrip("$").strip("{}")
    if not path or path.startswith("-"):
        return False
    parts = [p for p in re.split(r"[/\\]", path) if p]
    if not parts:
        return False
    base = parts[-1]
    if any(p.lower() in _SECRET_DIRS for p in parts[:-1]):
        return True
    stem, dot, ext = base.lstrip(".").rpartition(".")
    if not dot:
        stem, ext = base.lstrip("."), ""
    if ext.lower() in _KEY_EXTENSIONS:
        return True
    words = {w.lower() for w in _NAME_WORDS.findall(stem)}
    if words & _MATERIAL_WORDS or ("codes" in words and words & _CODES_OF):
        return True
    return bool(stem) and (
        name_is_credential(stem)
        or stem.lower() in ("auth", "credentials", "passphrase")
        or name_words(stem)[-1:] == ["keyfile"]  # mongodb-keyfile: a shared key, by its file
    )


_ACCOUNT_FILES: Final = frozenset(
    {"users", "userlist", "userdb", "passdb", "htpasswd", "htdigest", "accounts", "vusers"}
)
"""Names of files of accounts (dovecot's ``users``, ``.htpasswd``): their records' generated
fields are passwords (``record_fields``), their other lines names."""


def names_accounts(path: str) -> bool:
    """A path whose name says it lists accounts (``_ACCOUNT_FILES``)."""
    base = path.strip().strip("'\"").rstrip("/").rsplit("/", 1)[-1].lstrip(".")
    return base.rpartition(".")[0 if "." in base else 2].lower() in _ACCOUNT_FILES


_MATERIAL_HINT: Final = re.compile(
    r"key|cookie|seed|authenticator|mnemonic|recovery|backup", re.IGNORECASE
)
_MATERIAL_LINE: Final = re.compile(
    r"[A-Za-z0-9+/=_\-]{16,}|[0-9A-Fa-f]{2,8}(?:[ \t]+[0-9A-Fa-f]{2,8}){3,}"
)
MATERIAL_LINES_MAX: Final = 256
"""Most lines of a key file read (a 16384-bit key in base64 wraps to about 40)."""


def names_material(path: str) -> bool:
    """A path whose name says it holds key material (``*.key``, ``…/keyfile``, ``*.keyx``,
    ``.erlang.cookie``): printed over many lines, its lines of material are still its."""
    base = path.strip().strip("'\"").rsplit("/", 1)[-1].lstrip(".")
    stem, dot, ext = base.rpartition(".")
    if not dot:
        stem, ext = base, ""
    words = {w.lower() for w in _NAME_WORDS.findall(stem)}
    return ext.lower() in ("key", "keyx", "keyfile", "cookie", "seed") or bool(
        words & _MATERIAL_WORDS
    )


def _material_lines(output: str) -> list[str]:
    """The lines of key material of a key file's output (base64, hex, hex groups), each whole."""
    out = []
    for line in output.splitlines()[:MATERIAL_LINES_MAX]:
        row = _ROW.match(line)
        text = (line[row.end() :] if row is not None else line).strip()
        if _MATERIAL_LINE.fullmatch(text) is not None:
            out.append(text)
    return out


def _reader(words: list[str], names: Callable[[str], bool] = names_credential) -> bool:
    for start, word in enumerate(words):
        if word.rsplit("/", 1)[-1].lower() not in READERS:
            continue
        program = word.rsplit("/", 1)[-1].lower()
        operands = []
        skip = False
        for w in words[start + 1 :]:
            if skip or w.startswith("-"):
                skip = False
                continue
            if w in (">", ">>", "2>", "<", "|"):
                skip = True  # a redirection's target is written, not read
                continue
            if program == "echo" and not w.startswith("$"):
                continue
            operands.append(w)
        return any(names(w) for w in operands)
    return False


_SEARCHERS: Final = frozenset(
    {
        *("grep", "egrep", "rg", "ag", "ack", "git", "find", "fd", "ls", "tree", "sed", "awk"),
        *("locate", "cd", "mkdir", "touch", "rm", "cp", "mv", "code", "vim", "nano", "make"),
    }
)
"""Programs whose operands are patterns, paths or targets, not what they print."""
_SEGMENTS: Final = re.compile(r"[^A-Za-z0-9_\-]+")


def _selects(words: list[str]) -> bool:
    """A command whose subcommand, operand or selector names a credential: ``argocd admin
    initial-password``, ``jq -r .password``, ``--query AccessKey.SecretAccessKey``,
    ``-field=password``, ``heroku config:get DB_PASSWORD``. A path's name does not count (a
    reader's, ``READERS``), nor a searcher's operands (``grep token``)."""
    if not words or words[0].rsplit("/", 1)[-1].lower() in _SEARCHERS:
        return False
    for word in words[1:]:
        if word.startswith("-"):
            word = word.partition("=")[2]
        if not word or ("/" in word and not word.startswith(("{", "."))):
            continue
        last = next((s for s in reversed(_SEGMENTS.split(word)) if s), "")
        if last and name_is_credential(last):
            return True
    return False


_ABOUT: Final = frozenset(
    {
        *("name", "names", "username", "user", "login", "email", "uid", "id", "arn", "type"),
        *("kind", "namespace", "labels", "annotations", "creationtimestamp", "version"),
        *("versionid", "expiration", "created", "createddate", "description", "tags"),
    }
)
"""What a selector can pick that is about a secret, not the secret (its name, id, type, dates)."""
_SELECTOR_OPTIONS: Final = frozenset({"query", "field", "fields", "jq"})


def _selects_about(words: list[str]) -> bool:
    """A selector of ``words`` picks what is about a secret (``_ABOUT``): ``-o
    jsonpath='{.metadata.name}'``, ``--query Parameter.Name``, ``-field=username``."""
    for k, word in enumerate(words):
        option, eq, rest = word.lstrip("-").partition("=")
        if word.startswith("-") and option.lower() in _SELECTOR_OPTIONS:
            selector = rest if eq else (words[k + 1] if k + 1 < len(words) else "")
        elif "{." in word:
            selector = word
        else:
            continue
        last = next((s for s in reversed(_SEGMENTS.split(selector)) if s), "")
        if last.lower() in _ABOUT and not name_is_credential(last):
            return True
    return False


def _random_word(value: str) -> bool:
    """One word that reads as a credential (``secretish``), no path."""
    return (
        not any(c.isspace() for c in value)
        and "/" not in value
        and secretish(value.encode(), quoted=False)
    )


def prints_secret(command: str) -> bool:
    """``command`` prints a secret alone: a printer's, or a reader's of a credential-named file."""
    return any(_printer(words) or _reader(words) for words in _words(command))


def printed_values(command: str, output: str) -> list[str]:
    """The values ``output`` holds when ``command`` prints a secret (see the module's text)."""
    if not command or not output:
        return []
    if _listing(output):
        if _MATERIAL_HINT.search(command) is not None and any(
            _reader(words, names_material) for words in _words(command)
        ):
            return _material_lines(output)
        return []
    layout = next(
        (
            file_layout(w)
            for words in _words(command)
            if _reader(words)
            for w in words
            if file_layout(w)
        ),
        None,
    )
    if layout is not None:
        return _column_values(output, layout)  # cat /etc/exim4/passwd.client
    if prints_secret(command):
        if any(_selects_about(words) for words in _words(command)):
            return []  # -o jsonpath='{.metadata.name}', -field=username: about the secret
        return output_values(output, records=True)
    if any(_selects(words) for words in _words(command)):
        # named by the command only: the lines of the output that read as a credential
        return [value for value in output_values(output) if _random_word(value)]
    if any(_reader(words, names_accounts) for words in _words(command)):
        return [f for line in output.splitlines() for f in record_fields(line.strip())]
    return []


def _listing(output: str) -> bool:
    """``output`` has more than ``LINES_MAX`` non-empty lines (``output_values`` reads none of
    it): told from its first lines, before the command is split (most outputs are listings)."""
    pos = count = 0
    while True:
        nl = output.find("\n", pos)
        if (output[pos:] if nl < 0 else output[pos:nl]).strip():
            count += 1  # a line splitlines() may cut further: as many non-empty lines or more
            if count > LINES_MAX:
                return True
        if nl < 0:
            return False
        pos = nl + 1


def read_values(path: str, output: str) -> list[str]:
    """The values a file tool's ``output`` holds when ``path`` names a credential."""
    if not path or not output or not names_credential(path):
        return []
    layout = file_layout(path)
    if layout is not None:
        return _column_values(output, layout)
    return output_values(output, records=True)


FILE_LAYOUTS: Final[dict[str, tuple[bytes, int]]] = {
    "passwd.client": (b":", 2),  # exim: host:login:password
    "chap-secrets": (b" ", 2),  # ppp: client server secret IP addresses
    "pap-secrets": (b" ", 2),
    "rsyncd.secrets": (b":", 1),  # user:password
    "davfs2/secrets": (b" ", 2),  # URL or mount point, user, password
}
"""Credential files whose records hold the password in a known column (the separator, the
column): its value is the password whatever its shape (``_records`` reads the same columns under
a comment naming the file)."""
_HASHED: Final = re.compile(rb"\$[0-9a-z]{1,8}\$|\{[A-Z0-9.\-]{2,24}\}")
"""A crypt(3) hash's or a scheme's head (``$6$``, ``{SSHA}``): a hash, not a password."""


def file_layout(path: str) -> tuple[bytes, int] | None:
    """The layout of the records of the file at ``path`` (``FILE_LAYOUTS``), or None."""
    path = path.strip().strip("'\"").rstrip("/")
    for name, layout in FILE_LAYOUTS.items():
        if path == name or path.endswith("/" + name):
            return layout
    return None


def column_value(value: bytes) -> bool:
    """A record's field in its password column that is the password: not empty, ``*`` or ``-``
    (none), a hash, a placeholder or a reference."""
    return (
        value not in (b"", b"*", b"-")
        and _HASHED.match(value) is None
        and literal_value(value, quoted=True)
    )


def _column_values(output: str, layout: tuple[bytes, int]) -> list[str]:
    """The passwords of a credential file's records, by its layout."""
    sep, column = layout
    out = []
    for line in output.splitlines()[: LINES_MAX * 8]:
        text = line.strip().encode("utf-8", "surrogatepass")
        if not text or text.startswith(b"#"):
            continue
        fields = text.split(b":") if sep == b":" else [f.strip(b'"') for f in text.split()]
        if len(fields) > column and column_value(fields[column]):
            out.append(fields[column].decode("utf-8", "surrogatepass"))
    return out


def output_values(output: str, *, records: bool = False) -> list[str]:
    """The values of a printer's ``output``: its lines that are one word, and with ``records``
    (what a printer or a credential file printed, not a listing a command merely names) the
    generated fields of its record lines."""
    lines = [line for line in output.splitlines() if line.strip()]
    if len(lines) > LINES_MAX:
        return []
    out = []
    for line in lines:
        row = _ROW.match(line)
        text = (line[row.end() :] if row is not None else line).strip()
        spaced = any(c.isspace() for c in text) and (len(lines) > 1 or len(text) > 200)
        if text.startswith("-----"):
            continue
        if _HEX_GROUPS.fullmatch(text) is not None:
            out.append(text)  # a key in hex groups (a key file's, a paper key's line)
            continue
        if spaced or _PAIR_HEAD.match(text) is not None:
            out += record_fields(text) if records else []
            continue
        if len(text) < VALUE_MIN or text.startswith(("(", "[", "{")):
            continue
        out.append(text)
    return out


_WRITERS: Final = frozenset({"echo", "printf"})


def written_values(command: str) -> list[str]:
    """What ``echo`` or ``printf`` writes into a file whose name names a credential, a literal
    alone: ``echo 'X' > .vault_pass``, ``printf '%s' X > ~/.config/rclone/.password``, ``echo X |
    sudo tee /etc/app/api.token``. The file holds the secret; the command is where it is seen."""
    out: list[str] = []
    segments = _words(command)
    for k, words in enumerate(segments):
        at = next((i for i, w in enumerate(words) if w.rsplit("/", 1)[-1] in _WRITERS), None)
        if at is None:
            continue
        literals: list[str] = []
        target: str | None = None
        rest = words[at + 1 :]
        i = 0
        while i < len(rest):
            word = rest[i]
            if word in (">", ">>"):
                target = rest[i + 1] if i + 1 < len(rest) else None
                i += 2
                continue
            if word.startswith(">"):
                target = word.lstrip(">")
            elif not word.startswith(("-", "$")) and "%" not in word:
                literals.append(word)
            i += 1
        if target is None and k + 1 < len(segments):
            after = segments[k + 1]
            tee = next((j for j, w in enumerate(after) if w.rsplit("/", 1)[-1] == "tee"), None)
            if tee is not None:
                target = next((w for w in after[tee + 1 :] if not w.startswith(("-", ">"))), None)
        if (
            target
            and len(literals) == 1
            and len(literals[0]) >= VALUE_MIN
            and names_credential(target)
            and literal_value(literals[0].encode(), quoted=True)
        ):
            out.append(literals[0])
    return out


_HEX_GROUPS: Final = re.compile(
    r"[0-9A-Fa-f]{4,8}(?:[ \t]+[0-9A-Fa-f]{4,8}){2,}(?:[ \t]+-[ \t]+[0-9A-Fa-f]{2})?"
)
"""A line of hex groups (``6A2E8F01 9C4D7B3E …``), a checksum after a dash (``… - 44``)."""
_ADDRESS: Final = re.compile(r"[^@\s]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+")
_FIELDS: Final = re.compile(r"[^\s:\"']+")
_SCHEME: Final = re.compile(r"\{[A-Z0-9-]{2,16}\}")
"""A password scheme before the password (dovecot's ``{PLAIN}``)."""
_LETTER: Final = re.compile(r"[A-Za-z]")
_DIGIT_OR_SYMBOL: Final = re.compile(r"[0-9!#$%&*+?@^~]")


def record_fields(text: str) -> list[str]:
    """The fields of a credential file's record (``user:X:10``, ``host:login:X``, ``url user X``,
    ``"user" * "X" *``) after its first (the user, host or identity it is for) that read as
    generated: ``VALUE_MIN`` characters or more, letters and a digit or symbol, no path, address
    or host (``/bin/bash``, ``me@host``, ``smtp.example.org``)."""
    if "=" in text:
        return []  # ``NAME=VALUE`` lines are the name rules'
    if text.split(":", 2)[1:2] in (["x"], ["*"], ["!"], ["!!"], ["!*"]):
        return []  # /etc/passwd's and /etc/shadow's records: the password is elsewhere, or none
    out = []
    for field in _FIELDS.findall(text)[1:]:
        field = _SCHEME.sub("", field, count=1)
        if (
            len(field) >= VALUE_MIN
            and _ADDRESS.fullmatch(field) is None
            and _LETTER.search(field) is not None
            and _DIGIT_OR_SYMBOL.search(field) is not None
            and not field.replace(".", "").replace("-", "").isalpha()
            and _random_word(field)
        ):
            out.append(field)
    return out


def tool_values(arguments: object, output: str) -> list[str]:
    """The printed values of one tool call (its ``arguments``) and its result's ``output``."""
    if not isinstance(arguments, dict):
        return []
    out: list[str] = []
    for key in ("command", "cmd", "script"):
        value = arguments.get(key)
        if isinstance(value, str):
            out += printed_values(value, output) + written_values(value)
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            out += printed_values(shlex.join(value), output)
    for key in _FILE_TOOLS:
        value = arguments.get(key)
        if isinstance(value, str):
            out += read_values(value, output)
    return out
