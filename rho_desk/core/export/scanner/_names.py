"""Credential names: whether the name a value stands under says it holds a credential.

A password has no shape, so the name rules (``_grammar``'s name pass, ``_commands``, ``_named``,
the structure reader, ``_argv``, ``_words``, ``_tables``, ``_entropy``) know it by its name; this
module is the grammar they share:

* a **name's words** (``name_words``): ``DB_PASS``, ``connectionPassword``, ``auth-token`` split
  at separators and case changes;
* a **credential name** (``name_is_credential``): a credential noun (``pass``, ``passwd``,
  ``pwd``, ``secret``, ``token``, ``credential``, ``auth``, ``cookie``; the same nouns in other
  languages, ``FOREIGN_WORDS``), ``key`` with a qualifier (``api``, ``access``, ``private``,
  ``signing``, ``master``, ``encryption``, ``shared access``...), a noun glued to a service's name
  (``mysqlpassword``, ``smtppass``); not a name about the credential (``PASSWORD_FILE``,
  ``token_url``) nor a public or anti-forgery one (``NOT_SECRET_WORDS``);
* a **vendor's key** (``vendor_keyed``): ``KEY`` after a word the grammar does not know
  (``SENDGRID_KEY``), a credential when its value reads as a vendor's token;
* the **id half of a key pair** (``id_half``): ``SecretId``, ``accessid``, ``API_KEY_ID``, a
  credential when its value is shaped as a key (``id_shaped``);
* a **code's name** (``code_name``): a PIN, a PUK, a card's security code, a one-time, MFA,
  verification, recovery, reset or backup code (``pin``, ``card_pin``, ``otp``, ``--token-code``,
  ``twoFactorCode``, ``Bestätigungscode``, ``código de verificación``, ``验证码``): a credential
  when its value is shaped as a code (short digits, short letters and digits: ``_codes``), where
  ``name_is_credential`` asks for a mix of characters; not ``spin``, ``zip code``,
  ``status_code``, ``exit code``, ``otp_length``;
* **where a name is in bytes**: the name ending at a position (``name_before``), the name before
  a value's operator (``named_from``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final, NamedTuple

from ._values import pass_kind, password_pass

__all__ = [
    "FOREIGN_WORDS",
    "NAME_BYTES",
    "NOT_SECRET_WORDS",
    "CodeName",
    "code_name",
    "credential_name",
    "digest_prefixed",
    "id_half",
    "name_before",
    "name_is_credential",
    "name_is_key",
    "name_words",
    "named_from",
    "public_name",
    "vendor_keyed",
]

_WORDS: Final = frozenset(
    {
        "pass",
        "passwd",
        "password",
        "passwords",
        "pwd",
        "pw",
        "passphrase",
        "passcode",
        "secret",
        "secrets",
        "token",
        "credential",
        "credentials",
        "creds",
        "cred",
        "auth",
        "bearer",
        "cookie",
        "cookies",
        "authtok",
        "bindpw",
        "apikey",
        "privatekey",
        "secretkey",
        "accesskey",
        "signingkey",
        "masterkey",
        "encryptionkey",
        "authtoken",
        "accesstoken",
        "refreshtoken",
        "sessiontoken",
        "sharedaccesskey",
        "clientsecret",
        "appsecret",
        "apisecret",
        "passkey",
        "pgpassword",
        "dbpass",
        "dbpassword",
        "mysqlpwd",
        "requirepass",
        "masterauth",
        "psk",
        "wpapsk",
        # the same nouns in other languages, as a name spells them in ASCII (``FOREIGN_WORDS``)
        "passwort",
        "kennwort",
        "motdepasse",
        "passord",
        "contrasena",
        "senha",
        "wachtwoord",
        "losenord",
        "haslo",
        "heslo",
        "jelszo",
        "sifre",
        "salasana",
        "adgangskode",
    }
)
FOREIGN_WORDS: Final = (
    b"kennwort",
    b"contrasena",
    b"senha",
    b"wachtwoord",
    b"losenord",
    b"haslo",
    b"heslo",
    b"jelszo",
    b"sifre",
    b"salasana",
    b"adgangskode",
)
"""The credential nouns of other languages (German, Spanish, Portuguese, Dutch, Swedish, Polish,
Czech, Hungarian, Turkish, Finnish, Danish) in a name's ASCII spelling, less those holding
``pass`` (``passwort``, ``mot_de_passe``, ``passord``): every keyword list of the gates and the
structure reader's shortcut words hold them, so a name holding one is read as ``DB_PASSWORD`` is
(``SENHA_BANCO=…``, ``"wachtwoord": "…"``, ``haslo = …``)."""
_KEY_QUALIFIERS: Final = frozenset(
    {
        "api",
        "access",
        "private",
        "secret",
        "signing",
        "master",
        "encryption",
        "shared",
        "client",
        "account",
        "auth",
        "app",
        "consumer",
        "license",
        "licence",
        "session",
        "deploy",
        "service",
        "admin",
        "root",
        "storage",
        "subscription",
        "webhook",
        "hmac",
        "jwt",
        "sign",
        "encrypt",
        "decrypt",
        "decryption",
        "cipher",
        "crypto",
        "wrapping",
        "unseal",
        "recovery",
        "ssh",
        "gpg",
        "pgp",
        "wallet",
        "priv",
        "sk",
        "primary",
        "secondary",
        "integration",
        "cookie",
    }
)
# a name whose last word is one of these names something about the credential, not the credential
_NOT_VALUE: Final = frozenset(
    {
        "file",
        "path",
        "dir",
        "url",
        "uri",
        "endpoint",
        "name",
        "names",
        "id",
        "ids",
        "type",
        "types",
        "length",
        "len",
        "size",
        "count",
        "limit",
        "limits",
        "max",
        "min",
        "policy",
        "hash",
        "hashed",
        "digest",
        "field",
        "fields",
        "label",
        "prompt",
        "placeholder",
        "input",
        "required",
        "expires",
        "expiry",
        "expiration",
        "ttl",
        "usage",
        "env",
        "var",
        "header",
        "param",
        "params",
        "mode",
        "format",
        "manager",
        "provider",
        "store",
        "helper",
        "command",
        "cmd",
        "kind",
        "version",
        "ref",
        "index",
        "reset",
        "changed",
        "enabled",
        "disabled",
        "visible",
        "hint",
        "error",
        "errors",
        "tokens",
        "strength",
        "rule",
        "rules",
        "regex",
        "pattern",
        "location",
        "source",
        "method",
        "scheme",
        "flow",
        "domain",
        "host",
        "user",
        "username",
        "login",
        "email",
        "at",
        "date",
        "time",
        "timeout",
        "algorithm",
        "algorithms",
        "model",
        "class",
        "algo",
        "alg",
        "arn",
        "arns",
        "flag",
        "flags",
        # a message about the credential (strings.xml's token_expired, password_too_short)
        "expired",
        "invalid",
        "incorrect",
        "mismatch",
        "missing",
        "wrong",
        "weak",
        "short",
        "msg",
        "message",
        # a digest of it (password_sha256, secret_checksum)
        "checksum",
        "sha1",
        "sha256",
        "sha512",
        "md5",
    }
)
_DIGEST_WORDS: Final = frozenset({"checksum", "sha1", "sha256", "sha512", "md5", "hash", "digest"})
"""A name's first word saying it is a digest of what follows (Helm's ``checksum/secret``)."""
_CAMEL: Final = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


_SEPARATORS: Final = re.compile(r"[_.\-\s]+")


def name_words(name: str) -> list[str]:
    return [c.lower() for part in _SEPARATORS.split(name) if part for c in _CAMEL.findall(part)]


# a credential qualified so: public keys and tokens, anti-forgery tokens (per form, not a login)
NOT_SECRET_WORDS: Final = frozenset(
    {"public", "pub", "publishable", "csrf", "xsrf", "authenticity"}
)


def public_name(words: list[str]) -> bool:
    """Words saying a public or anti-forgery credential (``NOT_SECRET_WORDS``), or ending in a
    site key (``data-sitekey``, ``RECAPTCHA_SITE_KEY``, ``siteKey``: a captcha's key given to the
    page; ``SITE_KEY_SECRET``, ``sitekeyPrivate`` name its other half)."""
    if not NOT_SECRET_WORDS.isdisjoint(words):
        return True
    last = words[-1] if words else ""
    return last == "sitekey" or (last == "key" and words[-2:-1] == ["site"])


def name_is_credential(name: str) -> bool:
    """A name whose words say it holds a credential: ``DB_PASS``, ``signingKey``, ``auth-token``."""
    words = name_words(name)
    if not words or public_name(words):
        return False
    if words[-1] in _NOT_VALUE and not (
        words[-1] == "tokens" and len(words) > 1 and words[-2] in _PLURAL_QUALIFIERS
    ):
        return False
    if len(words) > 2 and words[-1].isdigit() and words[-2] + words[-1] in _NOT_VALUE:
        return False  # password_sha256: the algorithm's name and its size
    if any(w.startswith(("csrf", "xsrf")) for w in words):
        return False  # csrftoken: an anti-forgery token, glued
    if words[0] in _DIGEST_WORDS and "/" in name:
        return False  # checksum/secret: a digest of the secret (Helm's annotation)
    if words[0] == "existing" and words[-1] in ("secret", "secrets"):
        return False  # Helm's existingSecret: the name of a Kubernetes Secret that holds it
    if _SUBCOMMAND.fullmatch(name) is not None:
        return False  # get-secret-value, describe-secret: a command's verb, then what it acts on
    joined = "".join(words)
    if joined in _WORDS:
        return True
    for i, word in enumerate(words):
        if word == "pass" and i > 0 and pass_kind(words[i - 1]):
            continue  # render_pass, shadowPass, LOW_PASS: a renderer's step or a filter
        if word in _WORDS and (word != "pw" or i == len(words) - 1):
            return True  # pw only at the end (olcRootPW, DB_PW, dbPw; Playwright's PW_TEST_…)
        if word == "key" and i > 0 and words[i - 1] in _KEY_QUALIFIERS:
            return True
        if (
            word in ("keys", "tokens")
            and i == len(words) - 1
            and i > 0
            and words[i - 1] in _PLURAL_QUALIFIERS
        ):
            return True  # APP_KEYS, ACCESS_TOKENS: a list of them (not max_tokens, sort_keys)
        if (
            word in ("content", "material")
            and i == len(words) - 1
            and words[i - 1 : i] == ["key"]
            and (i < 2 or words[i - 2] not in _NOT_SECRET_KEYS)
        ):
            return True  # netsh's Key Content, KMS's KeyMaterial: the key itself
        if word == "passe" and words[i - 2 : i] == ["mot", "de"]:
            return True  # MOT_DE_PASSE_ADMIN
        if word.endswith("key") and word[:-3] in _KEY_QUALIFIERS:
            return True
        glued = ("password", "passwd", "secret", "token", "passwort", "kennwort", "senha")
        if word.endswith(glued) and len(word) <= 24:
            return True  # mysqlpassword, clientsecret, githubtoken, datenbankpasswort
        if word.endswith("pass") and password_pass(word):
            return True  # smtppass, rootpass, ldappass: a service's name glued before pass
    return False


_SUBCOMMAND: Final = re.compile(
    r"(?:get|put|create|describe|delete|list|update|rotate|restore|cancel|remove|show|fetch"
    r"|add|tag|untag|batch-get|validate|replicate|generate|import|export|enable|disable)"
    r"(?:-[a-z0-9]+)+"
)
"""A command's subcommand named by its verb, words joined by ``-`` in lower case
(``get-secret-value``, ``describe-secret``, ``create-access-token``): an action on a credential,
not a name holding one."""

# fmt: off
_PLURAL_QUALIFIERS: Final = frozenset({"api", "access", "secret", "master", "encryption", "app",
    "auth", "session", "client", "account", "service", "deploy", "admin", "webhook", "hmac", "jwt",
    "license", "licence", "consumer", "subscription", "storage", "integration", "refresh",
    "bearer", "bot", "personal", "registry",
})
# fmt: on
"""What says a list of ``keys`` or ``tokens`` holds credentials (``APP_KEYS``, ``AUTH_TOKENS``,
``refresh_tokens``): not a count of a model's or a tokenizer's (``max_tokens``), nor keys that
are public as often as not (``ssh_keys``, ``signing_keys``, ``primary_keys``)."""

# fmt: off
_NOT_SECRET_KEYS: Final = frozenset({"socket", "websocket",  # Sec-WebSocket-Key: a nonce
    "sort", "partition", "range", "routing", "foreign", "lookup", "cache", "idempotency", "dedup",
    "deduplication", "object", "request", "trace", "correlation", "message", "i18n", "translation",
    "map", "hash", "row", "index", "shard", "hot", "react", "unique", "composite", "group", "s3",
})
# fmt: on
"""Qualifiers of ``KEY`` naming what a key indexes, routes, looks up or opens, not a credential."""


def name_is_key(name: str) -> bool:
    """A name whose last word is ``key`` (``KEY``, ``AES_KEY``, ``device_key``), not one of the
    keys of ``_NOT_SECRET_KEYS`` nor a public one: a key when its value is shaped as one."""
    words = name_words(name)
    return (
        bool(words)
        and words[-1] == "key"
        and (len(words) == 1 or words[-2] not in _NOT_SECRET_KEYS)
        and NOT_SECRET_WORDS.isdisjoint(words)
    )


def vendor_keyed(name: str) -> bool:
    """``KEY`` after a word the grammar does not know, such as a vendor's or a service's name
    (``SENDGRID_KEY``, ``revenuecatKey``): a credential only if its value reads as a vendor's token
    (``vendor_token``); not the keys of ``_NOT_SECRET_KEYS``, nor a public one."""
    words = name_words(name)
    return (
        len(words) >= 2
        and words[-1] == "key"
        and words[-2].isalpha()
        and words[-2] not in _NOT_SECRET_KEYS
        and not public_name(words)
    )


_ID_HALVES: Final = (
    "accessid",
    "secretid",
    "accesskeyid",
    "secretkeyid",
    "apikeyid",
    "appkeyid",
    "applicationkeyid",
)
"""A name's words, joined, ending so: the id half of an access key pair (``secretId``,
``accessid``, ``access_key_id``, ``APCA-API-KEY-ID``, ``applicationKeyId``)."""


def id_half(name: str) -> bool:
    """The id half of an access key pair, named so (``SecretId``, ``accessid``,
    ``B2_APPLICATION_KEY_ID``): redacted as its secret half is when its value is shaped as a key
    (``id_shaped``). Not a bare ``key_id`` (a JWK's, a KMS key's, a GPG key's: public ids), nor a
    client's, user's, tenant's, session's or app's id, nor a public one."""
    words = name_words(name)
    return (
        bool(words)
        and (words[-1] == "id" or words[-1] in _ID_HALVES)
        and "".join(words).endswith(_ID_HALVES)
        and NOT_SECRET_WORDS.isdisjoint(words)
    )


NAME_BYTES: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_NAME_MAX: Final = 64
_NAME_CHARS: Final = bytes(sorted(NAME_BYTES))
_HEX_DIGITS: Final = frozenset(b"0123456789abcdefABCDEF")


def name_before(data: bytes, end: int) -> tuple[int, bytes]:
    """The name (letters, digits, ``_.-``) that ends at ``end``, at most ``_NAME_MAX`` bytes,
    without the tail of an escape it begins with (``\\npsk``: a line break, then ``psk``)."""
    window = data[max(0, end - _NAME_MAX) : end]
    start = end - (len(window) - len(window.rstrip(_NAME_CHARS)))
    if start > 0 and start < end and data[start - 1] == 0x5C:
        j = start - 1
        while j > 0 and data[j - 1] == 0x5C:
            j -= 1
        if (start - j) % 2 == 1:  # an odd number of backslashes: the first letter is escaped
            hexed = data[start + 1 : start + 5]
            start += (
                5
                if data[start] == 0x75 and len(hexed) == 4 and all(c in _HEX_DIGITS for c in hexed)
                else 1
            )
            start = min(start, end)
    return start, data[start:end]


def digest_prefixed(data: bytes, name_start: int) -> bool:
    """The name at ``name_start`` follows a digest's word and a ``/`` (``checksum/secret``):
    the value is a digest of the credential, not the credential."""
    if name_start < 4 or data[name_start - 1] != 0x2F:
        return False
    _, word = name_before(data, name_start - 1)
    return word.decode("ascii", "replace").lower() in _DIGEST_WORDS


def named_from(data: bytes, lo: int) -> int:
    """Where the name starts when ``data[lo:]`` is a value after ``NAME=`` or ``NAME:`` (spaces
    allowed around the operator): ``password=\\u0054\\u0072...`` decodes with its name, so the
    credential rules read it as an assignment. Else ``lo``."""
    i = lo
    while i > 0 and lo - i < 4 and data[i - 1] in b" \t":
        i -= 1
    if i == 0 or data[i - 1] not in b"=:":
        return lo
    i -= 1
    while i > 0 and lo - i < 12 and data[i - 1] in b" \t":
        i -= 1
    start, _ = name_before(data, i)
    return start if start < i else lo


_NAME_CACHE: dict[bytes, bool] = {}


def credential_name(name: bytes) -> bool:
    """``name_is_credential`` of a name in bytes, remembered (a scan asks of the same names often)."""
    known = _NAME_CACHE.get(name)
    if known is None:
        if len(_NAME_CACHE) > 4096:
            _NAME_CACHE.clear()
        known = _NAME_CACHE[name] = name_is_credential(name.decode("ascii", "replace"))
    return known


# --- codes: PINs, one-time and verification codes -------------------------------------------

# fmt: off
_CODE_NOUNS: Final = frozenset({"pin", "puk", "otp", "totp", "hotp", "passcode", "mfa", "2fa",
    "cvv", "cvc", "cvv2", "cvc2", "csc"})
"""Nouns that name a code by themselves (``pin``, ``SIM_PUK``, ``--otp``, ``cvv``)."""
_CODE_WORDS: Final = ("codes", "code", "kode", "koodi", "kod", "codigo", "codice", "number",
    "nummer", "numero", "token", "kodu", "kodas", "\u043a\u043e\u0434")
"""Words for a code that name one only with a qualifier (``verification code``, ``token_code``,
``Bestätigungscode``, ``código de verificación``, ``код подтверждения``), glued or not."""
_QUALIFIER_WORDS: Final = frozenset({"pin", "puk", "otp", "totp", "hotp", "mfa", "2fa", "sms",
    "cvv", "cvc", "csc", "login", "unlock", "access", "reset", "backup", "token",
    "your", "my", "ihr", "dein", "votre", "ton", "tu", "su", "seu", "sua", "tuo"})
"""Qualifiers that are whole words (``sms code``; not the ``pin`` of ``mapping_code``). Not
``auth``: a card payment's ``AUTH CODE`` (``authCode``) is its approval's reference, printed on
the receipt."""
_QUALIFIER_STEMS: Final = ("verif", "bestatig", "bevestig", "sicherheit", "secur", "segur",
    "sicur", "confirm", "conferm", "recover", "recuper", "wiederherstell", "backup", "reset",
    "onetime", "einmal", "scratch", "emergency", "factor", "2fa", "signin", "access", "acceso",
    "zugang", "unlock", "entsperr", "activation", "activacion", "aktivierung", "freischalt",
    "weryfik", "overen", "dogrulama", "vahvistus", "bekraft", "authenti", "\u043f\u043e\u0434"
    "\u0442\u0432\u0435\u0440\u0436\u0434", "\u043f\u0440\u043e\u0432\u0435\u0440",
    "\u9a8c\u8bc1", "\u9a57\u8b49", "\u6821\u9a8c", "\u8a8d\u8a3c", "\u78ba\u8a8d",
    "\uc778\uc99d")
"""Qualifiers found inside a word (``Bestätigungscode``, ``twoFactorCode``, ``OneTimeCode``,
``验证码``)."""
_CJK_CODES: Final = ("\u7801", "\u78bc", "\u30b3\u30fc\u30c9", "\ubc88\ud638", "\ucf54\ub4dc")
"""码 碼 コード 번호 코드: a code's noun in scripts that glue it to its qualifier."""
_POSSESSIVES: Final = frozenset({"your", "my", "ihr", "dein", "votre", "ton", "tu", "su", "seu",
    "sua", "tuo"})
"""``your code is X``: a qualifier only before a link word or a sign, not a space."""
_PIN_NOUNS: Final = frozenset({"pin", "puk"})
_CARD_CODES: Final = frozenset({"cvv", "cvc", "cvv2", "cvc2", "csc"})
_CARD_STEMS: Final = ("secur", "segur", "sicur", "sicherheit")
_CONNECTORS: Final = frozenset({"de", "di", "do", "da", "du", "del", "della", "of", "for", "the"})
# fmt: on


class CodeName(NamedTuple):
    """What a code's name says of its value: the fewest digits it holds (a card's security code
    three, a PIN four), whether letters may be among them (a backup code's ``8fk2-q9zd``, not a
    PIN's), and whether the name was a possessive's (``your code``: a link must follow)."""

    digits: int
    letters: bool
    possessive: bool = False


def _folded(name: str) -> str:
    """``name`` without its accents, in lower case (``Bestätigungscode`` -> ``bestatigungscode``)."""
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def _qualified(words: list[str]) -> bool:
    joined = "".join(words)
    return not _QUALIFIER_WORDS.isdisjoint(words) or any(s in joined for s in _QUALIFIER_STEMS)


def code_name(name: str) -> CodeName | None:
    """``name`` (a name, or a phrase of prose naming a code) names a PIN, a PUK, a card's
    security code or a one-time, MFA, verification, recovery, reset or backup code; None when it
    does not (``spin``, ``zip code``, ``status_code``, ``exit code``, ``otp_length``,
    ``RESET_PIN`` is one: its value's digits decide)."""
    folded = _folded(name)
    words = [w for w in name_words(folded) if w not in _CONNECTORS] if folded.isascii() else []
    if not folded.isascii():  # a script without separators, or an accent-less fold left non-ASCII
        words = [w for w in re.split(r"[\s_.\-:]+", folded) if w and w not in _CONNECTORS]
    while len(words) > 1 and words[-1].isdigit() and len(words[-1]) == 1:
        words.pop()  # pin1, PUK2: a SIM's first and second
    for i in range(len(words) - 1, 0, -1):
        if words[i - 1 : i + 1] == ["2", "fa"]:
            words[i - 1 : i + 1] = ["2fa"]  # 2FA_CODE: the camel-case split cut it
    if not words or not NOT_SECRET_WORDS.isdisjoint(words):
        return None
    last, before = words[-1], words[:-1]
    card = not _CARD_CODES.isdisjoint(words) or any(s in "".join(words) for s in _CARD_STEMS)
    digits = 3 if card else 4
    letters = not card and _PIN_NOUNS.isdisjoint(words)  # a PIN is digits; a backup code not
    if last in _CODE_NOUNS:
        return CodeName(digits, letters)
    if any(last.endswith(c) and c != last for c in _CJK_CODES):
        return CodeName(digits, True) if _qualified([last]) else None
    code = next((c for c in _CODE_WORDS if last.endswith(c)), None)
    if code is not None and len(last) > len(code):
        glued = last[: -len(code)].rstrip("s")  # Bestätigungs|code, verificatie|code
        if glued in _QUALIFIER_WORDS or _qualified([glued]) or glued in _CODE_NOUNS:
            return CodeName(digits, letters)
        return None
    if code is not None and before and (_qualified(before) or before[-1] in _CODE_NOUNS):
        possessive = before[-1] in _POSSESSIVES and not _qualified(before[:-1])
        return CodeName(digits, letters, possessive and len(before) == 1)
    # a code's word and only qualifiers after it: código de verificación, код подтверждения
    first = next((i for i, w in enumerate(words) if w in _CODE_WORDS), None)
    after = words[first + 1 :] if first is not None else []
    if 0 < len(after) <= 2 and all(_qualified([w]) for w in after):
        return CodeName(digits, letters)
    return None
