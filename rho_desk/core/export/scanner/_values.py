"""Values: where a value after a name begins and ends, and whether it is a credential or not.

The name rules (``_grammar``, ``_commands``, ``_reader``) find where a value stands; this module
reads it: ``value_span`` (a quoted string to its closing quote, with SQL's and Python's string
prefixes, or a token; a fragment whose text ends before its quote does, to its end),
``config_value`` (a line of configuration read as its syntax reads it: YAML and INI to the end of
the line, a shell or ``.env`` assignment to the end of its word), and the two verdicts:
``secretish`` (a value that reads as a credential by its mix of characters) and
``literal_value`` (a value that is the credential itself, whatever its shape, because its name
says so: not a reference, a placeholder, a type, a path or code).
"""

from __future__ import annotations

import binascii
import math
import re
from collections import Counter
from typing import Final

from ._paths import WORD_PATH, credential_path
from ._work import spend

__all__ = [
    "DIGEST_HEX_LENGTHS",
    "ENTROPY_CAP",
    "REFERENCE_TAGS",
    "SIZED_HEX",
    "VALUE_MAX",
    "ciphertext",
    "config_value",
    "high_entropy",
    "id_shaped",
    "key_id",
    "keyed_hex",
    "list_item",
    "literal_value",
    "pass_kind",
    "password_pass",
    "quoted_password",
    "random_hex",
    "reference",
    "reference_tag",
    "secretish",
    "shannon",
    "sized_key",
    "store_reference",
    "tab_lead",
    "value_span",
    "within_store_reference",
    "wrapped_literal",
]

VALUE_MAX: Final = 512
"""Longest value taken after a name, in bytes."""
_QUOTE_OPEN: Final = re.compile(rb"(\\{0,7})([\"'`])")
_UNQUOTED_STOP: Final = re.compile(rb"[\s\"'`\x00\xff]|\\(?:[nrtu\"'\\/]|\Z)|</")
_REFERENCE: Final = re.compile(
    rb"(?:\[|\$|%\(|%[sd]\b|%[A-Za-z_][A-Za-z0-9_]*%$|\{[A-Za-z_][A-Za-z0-9_]*\}$|ENC\[|\{\{|\{%|<[A-Za-z_ -]*>?$|\*{3}|x{6}|X{6}|\.{3}|\?\?\?|#\{|\(\(|%env\()"
)
_IDENTIFIER_EXPR: Final = re.compile(
    rb"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|->)[A-Za-z_][A-Za-z0-9_]*)*"
    rb"(?:\[[^\]]{0,80}\]|\([^)]{0,80}\))*[,;)\]}]*"
)
_CALL_HEAD: Final = re.compile(rb"[A-Za-z_][A-Za-z0-9_.:]{2,}\((?:[$'\"A-Za-z_)]|\Z)")
_PLACEHOLDERS: Final = frozenset(
    {
        b"true",
        b"false",
        b"null",
        b"none",
        b"nil",
        b"undefined",
        b"changeme",
        b"password",
        b"secret",
        b"redacted",
        b"hidden",
        b"example",
        b"required",
        b"optional",
        b"string",
        b"your_password",
    }
)
_LOWER: Final = frozenset(b"abcdefghijklmnopqrstuvwxyz")
_UPPER: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGIT: Final = frozenset(b"0123456789")


def shannon(value: bytes) -> float:
    """Bits per character."""
    n = len(value)
    return -sum([c / n * math.log2(c / n) for c in Counter(value).values()])


ENTROPY_CAP: Final = 4.2
"""Bits per character a value needs (``log2(length) - 0.7`` for shorter ones, at most this)."""

_UPPER_BYTES: Final = bytes(sorted(_UPPER))
_LOWER_BYTES: Final = bytes(sorted(_LOWER))
_DIGIT_BYTES: Final = bytes(sorted(_DIGIT))


def high_entropy(value: bytes) -> bool:
    """Random-looking: both cases and digits (two or more of each) and near the entropy of random text."""
    n = len(value)
    for chars in (_UPPER_BYTES, _LOWER_BYTES, _DIGIT_BYTES):
        if n - len(value.translate(None, chars)) < 2:
            return False
    return shannon(value) >= min(ENTROPY_CAP, math.log2(n) - 0.7)


_HEX_BYTES: Final = b"0123456789abcdefABCDEF"
DIGEST_HEX_LENGTHS: Final = frozenset({40, 56, 64, 96, 128})
"""Lengths of SHA-1 and SHA-2 digests in hex: a bare hex value of one of these lengths is a digest
(a commit, a checksum), of another a key (a Twilio token's 32, an API key's 48)."""
_HEX_ENTROPY: Final = 3.0
"""Bits per character a hex value needs (detect-secrets' ``HexHighEntropyString`` limit)."""


def keyed_hex(value: bytes) -> bool:
    """Hex that reads as a key under a name saying key, whatever its length: a digest's length in
    one case says digest only where nothing names the value a key (``validationKey="<128 hex>"``)."""
    if value.translate(None, _HEX_BYTES):
        return False
    digits = len(value) - len(value.translate(None, bytes(sorted(_DIGIT))))
    return 2 <= digits <= len(value) - 2 and shannon(value) >= _HEX_ENTROPY


def random_hex(value: bytes) -> bool:
    """Hex that reads as a key: not a digest's length in one case (a tool prints a digest in one;
    ``6d2FabeB…`` is no digest), letters and digits (two or more of each), and the entropy
    detect-secrets asks of hex."""
    if value.translate(None, _HEX_BYTES) or (
        len(value) in DIGEST_HEX_LENGTHS and (value.islower() or value.isupper())
    ):
        return False
    digits = len(value) - len(value.translate(None, bytes(sorted(_DIGIT))))
    return 2 <= digits <= len(value) - 2 and shannon(value) >= _HEX_ENTROPY


_PLAIN: Final = _LOWER | _UPPER | _DIGIT | frozenset(b"_-.")


def _basic_pair(value: bytes) -> bool:
    """Base64 of ``user:password`` (docker ``auth``, npm ``_auth``, HTTP Basic)."""
    if len(value) < 8 or len(value) % 4 == 1:
        return False
    try:
        decoded = binascii.a2b_base64(value + b"=" * (-len(value) % 4))
    except binascii.Error:
        return False
    if b":" not in decoded[1:-1] or not decoded.isascii():
        return False
    return all(32 <= b < 127 for b in decoded)


_MASKED: Final = re.compile(rb"[^\s*.]{0,16}(?:\.{3}|\xe2\x80\xa6|\*{3,})[^\s*.]{0,8}")
"""A value shown masked: ``sk-proj-...9fQa``, ``ghp_****abcd``, ``****************ABCD``."""
_STATUS: Final = re.compile(rb"\([A-Za-z][A-Za-z ]{2,40}\)?")
"""A status in parentheses: Terraform's ``(sensitive value)``, ``(known after apply)``."""


def masked(value: bytes) -> bool:
    """A value that is a mask or a status in place of the credential, not the credential."""
    head, _, rest = value.partition(b" ")
    if rest and _STATUS.fullmatch(rest) is None:
        return _STATUS.fullmatch(value) is not None
    return _MASKED.fullmatch(head) is not None or _STATUS.fullmatch(value) is not None


REFERENCE_TAGS: Final = frozenset(
    {
        # CloudFormation's functions
        b"ref",
        b"sub",
        b"getatt",
        b"importvalue",
        b"findinmap",
        b"select",
        b"split",
        b"join",
        b"if",
        b"getazs",
        b"cidr",
        b"condition",
        # YAML loaders' (Home Assistant, ESPHome, GitLab CI): another file, a variable, a key
        b"secret",
        b"env",
        b"env_var",
        b"include",
        b"reference",
        b"input",
        # Ansible Vault: ciphertext on the lines below
        b"vault",
    }
)
"""YAML tags whose value is a reference to where the credential is (``!Ref DBPassword``,
``!secret wifi_password``, ``!env_var MQTT_PASSWORD``, ``!reference [.job, variables]``) or its
ciphertext (``!vault |``), not the credential."""
_TAG: Final = re.compile(rb"!{1,2}([A-Za-z_]{1,24})")


def reference_tag(value: bytes) -> bool:
    """``value`` begins with a YAML tag of ``REFERENCE_TAGS``."""
    m = _TAG.match(value)
    return (
        m is not None
        and m.group(1).lower() in REFERENCE_TAGS
        and (m.end() == len(value) or value[m.end()] in b" \t|>")
    )


_CIPHERTEXT: Final = re.compile(
    rb"v1:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/]{8}|EJ\[1:|ENC\([A-Za-z0-9+/=]{8}|\$ANSIBLE_VAULT;"
    rb"|AQICAH[A-Za-z0-9+/]{100}|Ag[A-Za-z0-9+/]{200}|-----BEGIN (?:PGP MESSAGE|AGE ENCRYPTED)"
)
"""Ciphertext made to be kept in git, by its envelope: Pulumi's ``secure: v1:<nonce>:…``, ejson's
``EJ[1:…]``, Jasypt's ``ENC(…)``, Ansible Vault's header, an AWS KMS ciphertext blob
(``AQICAH…``), a SealedSecret's ``Ag…`` (a session key's length, then RSA and AES-GCM: hundreds
of characters), an armored PGP or age message. (sops' ``ENC[…]`` is a ``_REFERENCE``.) Its key is
elsewhere; the value is no credential."""


def ciphertext(value: bytes) -> bool:
    """``value`` is ciphertext in one of ``_CIPHERTEXT``'s envelopes."""
    return _CIPHERTEXT.match(value) is not None


def secretish(value: bytes, *, quoted: bool) -> bool:
    """A value that can be a credential: no reference, placeholder, call or type, and mixed."""
    if len(value) < 6 or value.lower() in _PLACEHOLDERS or masked(value):
        return False
    if b" " in value or b"://" in value or (not quoted and value.endswith(b":")):
        return False  # prose, or the next name of a list of names
    if _REFERENCE.match(value) is not None or _STORE_REFERENCE.match(value) is not None:
        return False  # $VAR, {{ … }}; arn:aws:secretsmanager:…, op://…: where a secret is kept
    if ciphertext(value) or (not quoted and reference_tag(value)):
        return False  # v1:…, Ag…: ciphertext for git; !env_var, !secret: a YAML reference
    if _STORE_PATH.fullmatch(value) is not None:
        return False  # prod/db/master: a secret's name in its store
    if not quoted and b"/" in value and WORD_PATH.fullmatch(value) is not None:
        return False  # /run/secrets/db, LoadCredential=db-password:/etc/…: the file holding it
    if not quoted and (
        value.startswith((b"os.", b"process.", b"env.", b"self.", b"this.", b"config."))
    ):
        return False
    if (
        not quoted
        and _IDENTIFIER_EXPR.fullmatch(value) is not None
        and (_DIGIT.isdisjoint(value) or b"(" in value)
    ):
        return False  # settings.API_KEY, get_secret(), Optional[str]
    if not quoted and _CALL_HEAD.match(value) is not None:
        return False  # crypt($1, gen_salt('bf')): a call cut at its first space
    if _basic_pair(value):
        return True
    if not value.isascii() and _label(value):
        return False  # Contraseña: a translation's label
    chars = frozenset(value)
    classes = (
        (not chars.isdisjoint(_LOWER))
        + (not chars.isdisjoint(_UPPER))
        + (not chars.isdisjoint(_DIGIT))
    )
    symbols = not chars.issubset(_PLAIN)
    if symbols:
        classes += 1
    return classes >= 2 and (not chars.isdisjoint(_DIGIT) or symbols)


_SQL_TYPE: Final = re.compile(
    rb"(?i:(?:n?var)?char(?:acter)?(?:[ \t]+varying)?|(?:var)?binary|bytea|blob|uuid|jsonb?|"
    rb"(?:big|small|tiny)?int(?:eger)?|(?:big)?serial|numeric|decimal|timestamptz|timestamp|"
    rb"datetime|date|float|double|real)(?:\([0-9]{1,5}(?:,[ \t]?[0-9]{1,3})?\))?[,;]?"
)
_NOT_A_LITERAL: Final = frozenset(
    {
        # what follows a credential word in prose, a status, an auth scheme or mode, a type
        b"required",
        b"optional",
        b"missing",
        b"invalid",
        b"incorrect",
        b"expired",
        b"revoked",
        b"rejected",
        b"accepted",
        b"changed",
        b"updated",
        b"reset",
        b"unset",
        b"empty",
        b"none",
        b"null",
        b"nil",
        b"true",
        b"false",
        b"yes",
        b"no",
        b"on",
        b"off",
        b"enabled",
        b"disabled",
        b"default",
        b"generated",
        b"hidden",
        b"masked",
        b"redacted",
        b"removed",
        b"deleted",
        b"rotated",
        b"saved",
        b"stored",
        b"unknown",
        b"todo",
        b"fixme",
        b"tbd",
        b"placeholder",
        b"example",
        b"changeme",
        b"change_me",
        b"secret",
        b"password",
        b"passwd",
        b"token",
        b"string",
        b"str",
        b"bytes",
        b"int",
        b"bool",
        b"boolean",
        b"number",
        b"text",
        b"any",
        b"object",
        b"secretstr",
        b"securestring",
        b"sensitive",
        b"basic",
        b"bearer",
        b"digest",
        b"oauth",
        b"oauth2",
        b"jwt",
        b"session",
        b"cookie",
        b"header",
        b"query",
        b"apikey",
        b"api_key",
        b"anonymous",
        b"kerberos",
        b"ntlm",
        b"saml",
        b"oidc",
        b"ldap",
        b"iam",
        b"sigv4",
        b"hmac",
        b"mtls",
        b"tls",
        b"x509",
        b"scram-sha-256",
        b"scram-sha-1",
        b"md5",
        # SASL mechanisms (IMAP's AUTH=PLAIN, ssmtp's AuthMethod=LOGIN)
        b"plain",
        b"login",
        b"cram-md5",
        b"digest-md5",
        b"xoauth2",
        b"oauthbearer",
        b"gssapi",
        b"external",
        # what holds or keeps one (pass's "Password Store", "Token Vault")
        b"store",
        b"safe",
        b"vault",
        b"keeper",
        b"trust",
        b"peer",
        b"ident",
        b"include",
        b"same-origin",
        b"omit",
        b"management",
        b"rotation",
        b"expiry",
        b"expiration",
        b"flow",
        b"handling",
        b"storage",
        b"manager",
        b"policy",
        b"scanning",
        b"detection",
        b"leak",
        b"leaks",
        b"rules",
        b"support",
        b"usage",
        b"overview",
        b"settings",
        b"configuration",
        b"config",
        b"generation",
        b"generator",
        b"validation",
        b"verification",
        b"length",
        b"strength",
        b"prompt",
        b"field",
        b"input",
        b"file",
        b"your_password",
        b"your-password",
        b"yourpassword",
        b"mypassword",
        b"xxx",
    }
)
_STORE_REFERENCE: Final = re.compile(
    rb"(?:arn:aws[a-z\-]{0,12}:|vault:|ref\+|op://|sm://|awssm:|gcp:|azure:|gcpsm://"
    rb"|projects/[a-z0-9\-]{1,64}/secrets/)"
)
"""Where a secret is kept, not the secret: an AWS ARN (Secrets Manager, SSM), a secret manager's
URI (1Password ``op://``, vals' ``ref+``, ``vault:``), a GCP secret's resource name."""


def store_reference(value: bytes) -> bool:
    """``value`` names where a secret is kept (``_STORE_REFERENCE``), quoted or not."""
    return _STORE_REFERENCE.match(value.lstrip(b"\\\"'")) is not None


_TOKEN_START: Final = re.compile(rb"[^\s\"'`=,(\[{]{1,256}\Z")


def within_store_reference(data: bytes, name_start: int) -> bool:
    """The name at ``name_start`` is a part of a reference to a secret's store, after a ``:``:
    ``secret:`` in ``arn:aws:secretsmanager:…:secret:prod/db``."""
    if name_start == 0 or data[name_start - 1] != 0x3A:
        return False
    token = _TOKEN_START.search(data, max(0, name_start - 256), name_start)
    return token is not None and _STORE_REFERENCE.match(data, token.start()) is not None


_LITERAL_REFERENCE: Final = (
    b"os.",
    b"process.",
    b"env.",
    b"ENV[",
    b"secrets.",
    b"!",
    b"&",
    b"@Value",
    b"%ENV",
    b"getenv",
    b"lookup(",
)
_IDENTIFIER_PATH: Final = re.compile(
    rb"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|->)[A-Za-z_][A-Za-z0-9_]*)+|[A-Za-z_][A-Za-z0-9_.:]*(?:\(.*\)|\[.*\])[,;]?"
)
"""Code, not a literal: a dotted name (``settings.DB_PASSWORD``), a call or a subscript ending the
value (``get_password()``, ``env["TOKEN"]``)."""


_ALIAS: Final = re.compile(rb"\*[A-Za-z0-9_.\-]{1,120}")
_CODE: Final = re.compile(
    rb"<|(?:new|await|function|lambda|require|import|typeof|yield)\b"
    rb"|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\("
)
"""A value that opens markup or an expression of code (a method's call:
``secretsmanager.Secret.fromSecretNameV2(this, …)``)."""
_NAME_LIKE: Final = re.compile(rb"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+")
_REFERENCE_WORDS: Final = frozenset(
    {
        b"key",
        b"keys",
        b"secret",
        b"secrets",
        b"token",
        b"tokens",
        b"password",
        b"passwd",
        b"pass",
        b"pwd",
        b"credential",
        b"credentials",
        b"creds",
        b"passphrase",
        b"auth",
        b"name",
        b"ref",
        b"id",
        b"env",
        b"var",
        b"file",
        b"path",
        b"store",
        b"vault",
    }
)
"""Words that make a lower-case identifier (``api-key``, ``db_password_ref``) the name of a
credential rather than one."""
_LABEL_WORDS: Final = frozenset(
    {
        "password",
        "passwords",
        "passphrase",
        "passwort",
        "kennwort",
        "contrase\u00f1a",
        "contrasena",
        "senha",
        "wachtwoord",
        "l\u00f6senord",
        "has\u0142o",
        "token",
        "pin",
        # the same nouns as a translation's label spells them (``login.password=\u015eifre``)
        "\u015fifre",
        "heslo",
        "jelsz\u00f3",
        "salasana",
        "adgangskode",
        "passord",
        "parola",
        "lozinka",
        "geheimnis",
        "jeton",
        "\u043f\u0430\u0440\u043e\u043b\u044c",
        "\u5bc6\u7801",
        "\u30d1\u30b9\u30ef\u30fc\u30c9",
        "\ube44\ubc00\ubc88\ud638",
    }
)
"""Words that make a value a label naming the credential (``Forgot password?``, ``Passwort
vergessen``, a translation's ``\u015eifre``, ``Contrase\u00f1a``, ``Jeton``), not a passphrase."""
_WORD_SPLIT: Final = re.compile(r"[\s.,:;!?()\"'`]+")
_STORE_PATH: Final = re.compile(rb"[a-z][a-z0-9_\-]*(?:/[a-z0-9_\-]+){2,}")
_KEY_ID: Final = re.compile(rb"(?:0x)?[0-9A-F]{16}")
"""A GPG key's long id (upper-case hex, as gpg prints it)."""
_WORDS_APART: Final = re.compile(rb"[ \t,]+")
_U_ESCAPE: Final = re.compile(rb"\\{1,7}u([0-9a-fA-F]{4})")


def _label(value: bytes) -> bool:
    """``value`` is a label naming the credential: words of which one is in ``_LABEL_WORDS``, or
    one such word alone when it is capitalised or not ASCII (a translation's ``Jeton``,
    ``\u015eifre``; ``jeton`` in lower case may be the value). JSON's ``\\uXXXX`` escapes read
    as their letters."""
    if b"\\u" in value:
        value = _U_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)).encode("utf-8", "replace"), value)
    text = value.decode("utf-8", "replace").strip("\"'`:? ")
    words = _WORD_SPLIT.split(text.lower())
    if _LABEL_WORDS.isdisjoint(words):
        return False
    return " " in text or not text.isascii() or text[:1].isupper()


_UPPER_NAME: Final = re.compile(rb"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_([A-Z]+)")
"""An environment variable's name (``NEXUS_PASS``, ``CI_JOB_TOKEN``): when its last word is one of
``_REFERENCE_WORDS``, the name of a credential, not one."""
_MEASURE: Final = re.compile(
    rb"\(?[0-9]{1,9}(?:\.[0-9]{1,3})?[ \t]?(?i:bytes?|[kmg]i?b|chars?|characters?|bits?|digits?"
    rb"|letters?|words?|days?|hours?|minutes?|seconds?)\)?"
)
"""A size or a length in place of the value (kubectl's ``password:  16 bytes``, ``40 chars``)."""
_OPTION: Final = re.compile(rb"(?:^|[ \t])--?[a-z][a-z\-]{1,40}(?=[ \t]|$)")
"""A command line's option: a value holding one after a space is a command (a git or cargo alias,
``push --force-with-lease``), not a passphrase."""
_NOT_ALNUM: Final = bytes(b for b in range(256) if not (0x61 <= b <= 0x7A or 0x30 <= b <= 0x39))
"""What ``bytes.translate`` deletes to squeeze a lower-case name to its letters and digits."""
_BLOCK_INDICATOR: Final = re.compile(rb"(?:![A-Za-z!]{0,16}[ \t]+)?[|>][+\-]?[0-9]?\\*")
"""A YAML block scalar's indicator (the value is on the lines after it)."""


_PASS_WORDS: Final = frozenset(
    {"bypass", "compass", "encompass", "overpass", "underpass", "surpass", "trespass", "multipass"}
)
"""Words (and a tool's name) ending in ``pass`` that name no password."""
# fmt: off
_PASS_KINDS: Final = frozenset({
    # a renderer's or a compiler's pass over its input (renderPass, shadowPass, firstpass)
    "render", "depth", "shadow", "geometry", "light", "lighting", "blur", "bloom", "ssao",
    "outline", "forward", "deferred", "opaque", "transparent", "composite", "post", "pre",
    "first", "second", "third", "final", "sub", "single", "two", "multi",
    # a filter (highpass, lowpass, bandpass)
    "high", "low", "band", "all", "notch",
})
# fmt: on
"""What a word before a glued ``pass`` says when the pass is a processing step or a filter."""


def password_pass(word: str) -> bool:
    """``word`` (lower case, ending in ``pass``) names a password: a service's name glued before
    ``pass`` (``smtppass``, ``rootpass``, ``ldappass``), not a word of the language (``bypass``,
    ``compass``), a processing pass (``renderpass``, ``firstpass``) or a filter (``highpass``)."""
    return 6 <= len(word) <= 16 and word not in _PASS_WORDS and not pass_kind(word[:-4])


def pass_kind(word: str) -> bool:
    """``word`` (lower case), before ``pass`` glued or apart, says what kind of pass it is: a
    renderer's or a compiler's step, or a filter (``render``, ``shadow``, ``first``, ``high``)."""
    return word in _PASS_KINDS


_USER_PAIR: Final = re.compile(rb"[A-Za-z0-9_.@\-]{1,64}:(?P<password>[^\s:]{4,})")
_NAME_ITEM: Final = re.compile(rb"[a-z]+(?:[_.\-][a-z0-9]+)+|[A-Z]+(?:[_.\-][A-Z0-9]+)+")
"""Words of one case joined by separators: a list item that names a secret (``db_password``,
``postgres-admin-2024``), not the secret."""


def list_item(value: bytes, name: bytes) -> int | None:
    """Where the credential starts in one item of a list under the credential name ``name``
    (``API_KEYS``' items, ``basic_auth:``'s ``- "u:X"``: after the user's ``:``), or None when
    the item does not read as one: a list under ``secrets`` names them as often (compose's ``-
    db_password``), and an htpasswd line's hash (``{SHA}…``, ``$apr1$…``) is no credential."""
    at = 0
    pair = _USER_PAIR.fullmatch(value)
    if pair is not None:
        at, value = pair.start("password"), pair.group("password")
    if (
        b"[secret " in value
        or not secretish(value, quoted=False)
        or _NAME_ITEM.fullmatch(value) is not None
        or value.startswith(b"{")
        or not literal_value(value, quoted=True, name=name)
    ):
        return None
    return at


SIZED_HEX: Final = re.compile(rb"[0-9]{1,4}'[hH](?P<hex>[0-9a-fA-F_]{16,160})")
"""A Verilog sized hex literal of 64 bits or more (``128'h0cf1…``, ``256'hA1B2_C3D4…``)."""


def sized_key(digits: bytes) -> bool:
    """The digits of a sized hex literal read as a key: letters and digits, two or more of
    each, the entropy detect-secrets asks of hex (not ``128'h0``, a mask of ``F`` and ``0``)."""
    value = digits.replace(b"_", b"")
    count = len(value) - len(value.translate(None, bytes(sorted(_DIGIT))))
    return len(value) >= 16 and 2 <= count <= len(value) - 2 and shannon(value) >= _HEX_ENTROPY


_ID_SHAPE: Final = re.compile(rb"[A-Za-z0-9][A-Za-z0-9_.+=\-]{9,127}")
_ID_PARTS: Final = re.compile(rb"[_.\-]")


def id_shaped(value: bytes) -> bool:
    """A key pair's id half shaped as a key: one word of 10 to 128 letters, digits and ``_.+=-``
    whose longest part holds 10 or more, letters and digits both (``AKID…``, ``PKVYWUPB72…``, a
    UUID); not a name (``orders-db-2024``), a path, an ARN or a URL."""
    if _ID_SHAPE.fullmatch(value) is None:
        return False
    part = max(_ID_PARTS.split(value), key=len)
    return len(part) >= 10 and not part.isalpha() and not part.isdigit()


def key_id(value: bytes, name: bytes) -> bool:
    """``value`` is a GPG key's long id (16 upper-case hex digits) under a name holding ``key``
    (git's ``signingkey``, ``default-key``): a public key's id, not a credential."""
    return b"key" in name.lower() and _KEY_ID.fullmatch(value) is not None


def reference(value: bytes) -> bool:
    """``value`` begins as a reference or a placeholder does (``$VAR``, ``<token>``, ``{{ … }}``,
    ``os.environ[…]``): a piece of a value joined in code that stands for what it names."""
    value = value.strip()
    return _REFERENCE.match(value) is not None or value.startswith(_LITERAL_REFERENCE)


def literal_value(value: bytes, *, quoted: bool, name: bytes = b"") -> bool:
    """A value under a credential name that is the credential itself, whatever its shape (letters
    only, spaces, several lines): not a reference (``$VAR``, ``${{ … }}``, ``os.environ[…]``,
    ``settings.KEY``, a call, ``!Ref``, ``op://…``), a placeholder, a status word or a type, nor
    a path or a URL without a password. An unquoted value must also not read as code: a dotted
    name or a call (``settings.DB_PASSWORD``, ``get_password()``)."""
    value = value.strip()
    if (
        len(value) < 4
        or value.startswith(b"[secret")
        or _BLOCK_INDICATOR.fullmatch(value) is not None
    ):
        return False
    lowered = value.lower()
    if lowered in _PLACEHOLDERS or lowered.strip(b"\"'`.]") in _NOT_A_LITERAL or masked(value):
        return False
    if b" " in value and all(
        w.strip(b"\"'`.]") in _NOT_A_LITERAL for w in _WORDS_APART.split(lowered.strip()) if w
    ):
        return False  # PLAIN LOGIN CRAM-MD5: status words, schemes or mechanisms
    if (
        _REFERENCE.match(value) is not None
        or value.startswith(_LITERAL_REFERENCE)
        or _STORE_REFERENCE.match(value) is not None
        or _CODE.match(value) is not None
    ):
        return False
    if _ALIAS.fullmatch(value) is not None or _SQL_TYPE.fullmatch(value) is not None:
        return False  # a YAML alias; a column's type (``token varchar(255),`` in a CREATE TABLE)
    if ciphertext(value) or _MEASURE.fullmatch(value) is not None:
        return False  # v1:…, ENC(…), Ag…: ciphertext for git; 16 bytes: its size
    if b" " in value and _OPTION.search(value) is not None:
        return False  # push --force-with-lease: a command
    if len(set(value)) == 1 or (
        b" " not in value and len(set(value.lower())) <= 2 and len(value) >= 6
    ):
        return False  # ********, xxxxxx, <<<<
    if credential_path(value):
        return False  # a path to the credential, or an id and its file (LoadCredential=id:/path)
    if _STORE_PATH.fullmatch(value) is not None:
        return False  # prod/db/master: a secret's name in its store (a path of lower-case words)
    if b"://" in value and b"@" not in value and b" " not in value:
        return False  # a URL (one with a password is url-password's)
    if key_id(value, name):
        return False  # signingkey = 3AA5C34371567BD2: a GPG key's long id (public)
    if name:
        squeezed = lowered.translate(None, _NOT_ALNUM)
        if squeezed and squeezed == name.lower().translate(None, _NOT_ALNUM):
            return False  # password: password, token = token
        if b" " in value and _spells_name(value, name):
            return False  # "settings.apiKey": "API key": the field's label, its name in words
    if value.isdigit() and len(value) < 6:
        return False
    if _label(value):
        return False  # "Forgot password?", "Kennwort bestätigen", Şifre: a label that names it
    upper = _UPPER_NAME.fullmatch(value)
    if upper is not None and upper.group(1).lower() in _REFERENCE_WORDS:
        return False  # NEXUS_PASS, CI_JOB_TOKEN: a variable's name
    if _NAME_LIKE.fullmatch(value) is not None and not _REFERENCE_WORDS.isdisjoint(
        re.split(rb"[-_.]", lowered)
    ):
        return False  # api-key, db_password_ref: the name of a credential, not one
    # unquoted, neither the next name of a list of names nor code
    return quoted or not (value.endswith(b":") or _IDENTIFIER_PATH.fullmatch(value) is not None)


_NAME_PIECE: Final = re.compile(rb"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def _spells_name(value: bytes, name: bytes) -> bool:
    """``value``'s words are the last words of ``name`` (``API key`` under ``settings.apiKey``,
    ``Client secret`` under ``oauth.clientSecret``): a label that spells its field's name."""
    said = [w.lower() for w in _NAME_PIECE.findall(value)]
    words = [w.lower() for w in _NAME_PIECE.findall(name)]
    return 1 < len(said) <= len(words) and words[-len(said) :] == said


def quoted_password(value: bytes) -> bool:
    """A quoted value given as a password (after ``PASSWORD``, ``IDENTIFIED BY``): one that reads
    as a credential, or any literal (``literal_value``: letters, spaces) of six characters or
    more (``pass 'done'`` in Python is a statement and a word)."""
    return secretish(value, quoted=True) or (literal_value(value, quoted=True) and len(value) >= 6)


_STRING_PREFIX: Final = re.compile(
    rb"(?:<<|@\$?|\$@?|u8|[NnbBrRuULfF]|[rR][bB]|[bB][rR])(?=\\{0,7}[\"'])"
)
"""The prefix of a string literal: SQL's national ``N'…'``, Python's ``b``, ``r``, ``u``,
``f``, C's wide ``L"…"`` and ``u8"…"``, Objective-C's ``@"…"``, C#'s verbatim and interpolated
``@"…"``, ``$"…"``, an Erlang binary's ``<<"…">>``."""
_FRAGMENT_END: Final = re.compile(rb"[\r\n\x00\xff]|\\[nr]")


def _fragment_end(data: bytes, start: int, limit: int) -> tuple[int, int, bool] | None:
    """A quoted value whose text ends before its closing quote does (a decoded piece, a tool's
    output cut short): the rest of the text, when no line break comes before its end (a
    ``\\x00``/``\\xff`` separator, or the gap between decoded pieces). None otherwise."""
    stop = _FRAGMENT_END.search(data, start, limit)
    end = stop.start() if stop is not None else limit
    if end == limit and limit < len(data):
        return None
    if end < len(data) and not (data[end] in b"\x00\xff" or data.startswith(b"\n\x00", end)):
        return None
    return (start, end, True) if end - start >= 4 else None


def value_span(
    data: bytes, pos: int, *, stop_at_tag: bool = False, tab_led: bool = False
) -> tuple[int, int, bool] | None:
    """``(start, end, quoted)`` of the value that begins at ``pos``: a quoted string to its
    closing quote (the same quote at the same escape depth; a fragment whose text ends first, to
    its end), else a token to whitespace, a quote or an escape (``tab_led``: or, after
    backslashes and a ``t`` that lead the value, from the first backslash, ``tab_lead``)."""
    if tab_led and (led := _tab_led(data, pos)) is not None:
        return led
    limit = min(len(data), pos + VALUE_MAX)
    prefix = _STRING_PREFIX.match(data, pos, limit)
    if prefix is not None:
        pos = prefix.end()  # N'…' (SQL), b"…", r"…" (Python)
    q = _QUOTE_OPEN.match(data, pos, limit)
    if q is not None:
        opener = q.group()
        depth = len(q.group(1))
        start = q.end()
        i = start
        while True:
            close = data.find(opener, i, limit)
            if close < 0:
                return _fragment_end(data, start, limit)
            # the closing quote must not itself be escaped one level deeper
            j = close
            while j > start and data[j - 1] == 0x5C:
                j -= 1
            if (close - j) == 0 or (depth == 0 and (close - j) % 2 == 0):
                spend(close - pos)
                return start, close, True
            i = close + 1
    stop = _UNQUOTED_STOP.search(data, pos, limit)
    end = stop.start() if stop is not None else limit
    if stop_at_tag:
        tag = data.find(b"<", pos, end)
        end = tag if tag >= 0 else end
    spend(end - pos)
    return pos, end, False


_TAB_LED: Final = re.compile(rb"\\{1,7}t")


def _tab_led(data: bytes, pos: int) -> tuple[int, int, bool] | None:
    """``(start, end, False)`` of a value at ``pos`` led by backslashes and a ``t``, when they lead
    it (``tab_lead``): from the first backslash."""
    run = _TAB_LED.match(data, pos, min(len(data), pos + 8))
    if run is None or tab_lead(data, run.end()) != pos:
        return None
    span = value_span(data, run.end())
    if span is None or span[1] <= span[0] or span[2]:
        return None
    return pos, span[1], False


def tab_lead(data: bytes, at: int) -> int:
    r"""Where a value starts that is read after backslashes and a ``t`` ending at ``at``.

    ``NAME=\t7Gk…``: in text (``\t``), or in JSON as an escaped backslash (``\\t``), a shell
    reads a backslash and a ``t`` (``t7Gk…``), so the value holds the escape and starts at its
    first backslash: when the backslashes are even (JSON's escaped backslash), or stand after an
    operator (``=``, ``:``, ``=>``; spaces between). Else the run is JSON's ``\t`` after a word,
    a tab between cells, and the value starts at ``at``."""
    if at < 2 or data[at - 1] != 0x74 or data[at - 2] != 0x5C:
        return at
    j = at - 2
    while j > 0 and data[j - 1] == 0x5C:
        j -= 1
    if (at - 1 - j) % 2 == 0:
        return j
    k = j
    while k > 0 and j - k < 4 and data[k - 1] in b" \t":
        k -= 1
    return j if k > 0 and (data[k - 1] in b"=:" or data[k - 2 : k] == b"=>") else at


# --- lines of configuration -------------------------------------------------------------------

_ROW_WRAPPER: Final = rb"(?:[ \t]*[0-9]{1,7}(?::|\xe2\x86\x92|\\{1,7}u2192|[ \t]*\|[ \t]?|\t|\\{1,7}t)|[^\s:\"\\\x00\xff]{1,120}:[0-9]{1,7}[:\-]|[+\->])?"
"""A row wrapper tools print before a line (``12:``, ``12→``, ``path:12:``, a diff's ``+``), or none."""
_CONFIG_LEAD: Final = re.compile(
    rb"(?:^|[\n\r\x00\xff]|\\[nr]|[:\[,][ \t]*\\{0,7}\")"
    + _ROW_WRAPPER
    + rb"(?:[ \t]|\\{1,7}t)*(?:(?:export|set|env|setenv|declare[ \t]+-x)[ \t]+|-[ \t]+)?(?:(?:environment|env)=)?(?:\\{0,7}[\"'])?\Z",
    re.IGNORECASE,
)
"""What may stand before a name at the start of a line of configuration: a row wrapper, a diff
marker, an indentation of spaces and tabs (raw or JSON-escaped: gitconfig's ``\\tsmtppass``),
``export``, a YAML list's ``- ``, systemd's ``Environment="``, a quote."""
_CONFIG_LEAD_WINDOW: Final = 160
_INI_SECTION: Final = re.compile(
    rb"(?:^|[\n\r]|\\[nr]|[:\[,][ \t]*\\{0,7}\")"
    + _ROW_WRAPPER
    + rb"[ \t]*\[\[?(?:[A-Za-z0-9_.\- \"'/:@*~+]|\\{1,7}[\"']){1,64}\]\]?[ \t]*(?:[\n\r]|\\[nr]|$)"
)
_INI_WINDOW: Final = 4096
_LINE_END: Final = re.compile(rb"[\n\r\x00\xff]|\\[nr]|(?<!\\)\"")
_TRAILING_COMMENT: Final = re.compile(rb"[ \t]+#.*\Z|[ \t]+//.*\Z")
_OPENING_QUOTE: Final = re.compile(rb"\\{0,7}[\"']\Z")
_SHELL_REST: Final = re.compile(rb"(?:[ \t]+[A-Za-z0-9][^\s=|;&<>$`\\]{0,64}){1,4}[ \t]*")
"""Words after ``NAME=word`` that go on the value (.env, a YAML list item), not a command: at most
four, none a flag, a path, a variable or an operator."""
_YAML_ANCHOR: Final = re.compile(rb"&[A-Za-z0-9_\-]{1,64}[ \t]+|!!?[A-Za-z]{1,16}[ \t]+")
"""A YAML anchor or tag before a value (``&pw value``, ``!!str value``)."""
_PROSE_WORDS: Final = 6
"""A value of more words than this after ``NAME:`` is prose, not a passphrase."""


def config_value(
    data: bytes, name_start: int, name: bytes, sep: bytes, start: int, end: int
) -> tuple[int, int] | None:
    """The value of ``NAME: value``, ``NAME=value`` or ``NAME = value`` on a line of configuration
    (the name starts its line), read as that syntax reads it: YAML and INI to the end of the line
    (less a comment), a shell or ``.env`` assignment to the end of its word. None when the name
    does not start a line, or the syntax is code's (``=>``, ``:=``, an unquoted value after
    `` = `` outside an INI section or a properties file, a line ending in ``,`` or ``;``)."""
    if _CONFIG_LEAD.search(data, max(0, name_start - _CONFIG_LEAD_WINDOW), name_start) is None:
        return None
    sep = sep.replace(b"\\t", b"\t")  # a tab before the operator, JSON-escaped
    op = sep.strip(b" \t\\\"'")
    spaced = sep.lstrip(b"\\\"'").startswith((b" ", b"\t"))
    quote = _OPENING_QUOTE.search(data, max(0, name_start - 8), name_start)
    if quote is not None and op == b"=" and not spaced:
        # "NAME=value" (systemd's Environment=, a JSON list of them): to the closing quote
        close = data.find(quote.group(), end, min(len(data), start + VALUE_MAX))
        return (start, close) if close >= end else (start, end)
    if op == b"=" and not spaced:
        # a shell or .env assignment: its word, or the rest of a line of words (.env, a YAML list)
        stop = _LINE_END.search(data, end, min(len(data), start + VALUE_MAX))
        line_end = stop.start() if stop is not None else min(len(data), start + VALUE_MAX)
        rest = data[end:line_end]
        if rest.strip() and _SHELL_REST.fullmatch(rest) is not None:
            return start, end + len(rest.rstrip())
        return start, end
    if op == b"=":
        dotted = b"." in name and not name.lower().startswith((b"self.", b"this.", b"@"))
        if (
            not dotted
            and _INI_SECTION.search(data, max(0, name_start - _INI_WINDOW), name_start) is None
        ):
            return None  # `name = value` is code's, outside an INI section or a properties file
    elif op != b":":
        return None
    else:
        anchor = _YAML_ANCHOR.match(data, start, min(len(data), start + 80))
        if anchor is not None and reference_tag(anchor.group().rstrip()):
            return None  # password: !Ref DBPassword, !secret db_password: a reference
        if anchor is not None and anchor.end() < len(data) and data[anchor.end()] not in b"\r\n\\":
            start = anchor.end()  # password: &pw value
    stop = _LINE_END.search(data, start, min(len(data), start + VALUE_MAX))
    line_end = stop.start() if stop is not None else min(len(data), start + VALUE_MAX)
    comment = _TRAILING_COMMENT.search(data, start, line_end)
    line_end = comment.start() if comment is not None else line_end
    while line_end > start and data[line_end - 1] in b" \t\\":
        line_end -= 1  # (a line break escaped at depth 2 or more leaves backslashes before it)
    if (
        line_end <= start
        or data[line_end - 1] in b",;"
        or data.count(b" ", start, line_end) >= _PROSE_WORDS
    ):
        return None  # code (a member of an object literal), or prose
    if op == b":" and data.find(b" = ", start, line_end) >= 0:
        return None  # password: Optional[str] = None: a type and a default
    return start, line_end


_EXPRESSION: Final = re.compile(
    rb"(?:<%[=-]?[ \t]{0,4}|\{\{-?[ \t]{0,4})?(?:new[ \t]+)?(?:\[\])?"
    rb"[A-Za-z_][A-Za-z0-9_]{0,60}(?:(?:\.|::|->)[A-Za-z_][A-Za-z0-9_]{0,60}){0,6}[ \t]?\("
)
"""A value that is code calling something: ``SecretValue.unsafePlainText(``, ``Hash::make(``,
``[]byte(``, ``Secret.fromString(``, in a template's tag too (``<%= ENV.fetch(``, ``{{ lookup(``)."""
_EXPRESSION_MAX: Final = 200
_WRAPPED: Final = re.compile(rb"(?=[^\d]{0,255}\d)(?=[^A-Za-z]{0,255}[A-Za-z])[^\s/\\]{8,256}")
"""A literal in code that reads as a credential: 8 bytes or more with letters and digits, no space,
path or escape (not a variable's name, a label, ``prod/db``, ``/prod/api/token``)."""
_LITERAL_OPEN: Final = re.compile(rb"\\{0,7}[\"']")
_EXPRESSION_END: Final = re.compile(rb"[\r\n\x00\xff]|\\{1,7}n")


def wrapped_literal(data: bytes, start: int, limit: int = -1) -> tuple[int, int] | None:
    """The literal that code standing as a credential name's value wraps, on the value's line (or
    before ``limit``): of the quoted strings after a call's head, the first that reads as a
    credential (``ENV.fetch("DB_PASSWORD") { "X" }``: the variable's name does not, its default
    does; ``Hash::make('X')``, ``unsafePlainText("X")``, ``default('X', true)``). None when the
    value is no call or wraps no such literal (``getenv("TOKEN")``, ``secretsManager("prod/db")``)."""
    head = _EXPRESSION.match(data, start)
    if head is None:
        return None
    top = min(len(data), start + _EXPRESSION_MAX if limit < 0 else limit)
    stop = _EXPRESSION_END.search(data, head.end(), top)
    top = stop.start() if stop is not None else top
    pos = head.end()
    spend(top - start)
    while (q := _LITERAL_OPEN.search(data, pos, top)) is not None:
        span = value_span(data, q.start())
        if span is None or span[1] >= top or span[1] - span[0] > VALUE_MAX:
            return None
        value = data[span[0] : span[1]]
        if (
            _WRAPPED.fullmatch(value) is not None
            and secretish(value, quoted=True)
            and literal_value(value, quoted=True)
        ):
            return span[0], span[1]
        pos = span[1]
        while data[pos] == 0x5C:
            pos += 1  # the closing quote's escapes (JSON's \\"), then the quote
        pos += 1
    return None
