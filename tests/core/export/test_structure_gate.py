"""Which lines the structure reader reads: a line that ends with a credential name is read when the
line after it (or after a blank one) opens with a quote, where its value is, raw, after a row's
wrapper and inside JSON strings; a line of prose that ends with one is not (reading every such
line made a session with prose about tokens several times slower to scan)."""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import SecretScanner
from rho_desk.core.export.scanner._structure import trigger_lines

SCANNER = SecretScanner()

READ: dict[str, tuple[str, str]] = {
    "PHP define": ("define(\n    'DB_PASSWORD',\n    'Wq8#xL2pZ'\n);\n", "Wq8#xL2pZ"),
    "SQL PASSWORD": ("ALTER LOGIN sa WITH PASSWORD\n  'Tr9!vK3qM'\n", "Tr9!vK3qM"),
    "a blank line between": ("ALTER LOGIN sa WITH PASSWORD\n\n  'Bl4nk#Line7'\n", "Bl4nk#Line7"),
    "read_file rows": ('12:ALTER ROLE app PASSWORD\n13:  "Ro9w$Num2";\n', "Ro9w$Num2"),
    "diff lines": (
        "@@ -1 +1,2 @@\n+ALTER ROLE app PASSWORD\n+  'Di7f+Line3'\n",
        "Di7f+Line3",
    ),
}

PROSE: tuple[str, ...] = (
    "the worker refreshes the session before it expires, then asks for a new token\n"
    "and the next request carries it along with the rest of the headers\n",
    "    x = compute(y)  # then refresh the token\n    return x\n",
)


@pytest.mark.parametrize("name", sorted(READ))
def test_a_name_alone_on_its_line_is_read_with_its_quoted_value(name: str) -> None:
    text, secret = READ[name]
    for data in (text.encode(), json.dumps({"output": text}).encode()):
        assert trigger_lines(data, None), name
        pos = data.find(secret.encode()) if secret.encode() in data else -1
        hits = SCANNER.scan(data)
        assert pos >= 0 and any(h.start <= pos < h.end for h in hits), name


@pytest.mark.parametrize("text", PROSE)
def test_prose_that_ends_with_a_credential_word_is_no_trigger_line(text: str) -> None:
    assert trigger_lines(text.encode(), None) == []
    assert trigger_lines(json.dumps({"output": text * 3}).encode(), None) == []


def test_a_line_printed_again_is_read_by_what_follows_it_each_time() -> None:
    """A trigger line's own verdict is kept for the same bytes; what follows it is asked each
    time (the second ``the db token`` has its value after it, the first had none)."""
    data = b"the db token\n\nfoo bar\nthe db token\n\n'Xk9pLmQ2vR7tWz4'\n"
    pos = data.find(b"Xk9pLmQ2vR7tWz4")
    assert any(h.start <= pos < h.end for h in SCANNER.scan(data))
    assert trigger_lines(data, None) == [data.rfind(b"the db token")]


_VAULT = "Key         Value\n---         -----\n{first}    {value}\nttl         12h\n"
_MARKDOWN = "| key | value | note |\n| --- | --- | --- |\n| {first} | {value} | kept |\n"
_WRAPPERS = (
    lambda text: text,
    lambda text: "".join(f"{n}:{line}\n" for n, line in enumerate(text.splitlines(), 1)),
    lambda text: "@@ -0,0 +1,4 @@\n" + "".join(f"+{line}\n" for line in text.splitlines()),
)


@pytest.mark.parametrize("table", [_VAULT, _MARKDOWN])
@pytest.mark.parametrize("wrap", range(len(_WRAPPERS)))
def test_a_key_value_table_is_read_when_a_row_names_a_credential(table: str, wrap: int) -> None:
    """A key/value table's header is a trigger line only when a row's first cell below it,
    before the table's end, or a cell of the header names a credential: ``vault kv get`` of a policy is
    not read; of a password, its value is redacted, raw, in rows, in a diff and in JSON."""
    after = "\n[server]\nport = 8080\n"
    for value in ("default-read", "token-reader"):  # a credential word, but not a row's name
        plain = (_WRAPPERS[wrap](table.format(first="policy", value=value)) + after).encode()
        header = plain.rfind(b"\n", 0, plain.lower().find(b"key")) + 1
        assert header not in trigger_lines(plain, None), plain
    named = _WRAPPERS[wrap](table.format(first="password", value="Vq7nRt2LpXw")) + after
    for data in (named.encode(), json.dumps({"output": named}).encode()):
        assert trigger_lines(data, None), data
        pos = data.find(b"Vq7nRt2LpXw")
        assert any(h.start <= pos < h.end for h in SCANNER.scan(data)), data
    column = "| name | value | token |\n| --- | --- | --- |\n| db | main | Zt4kLm9QwRx |\n"
    assert trigger_lines(column.encode(), None) == [0]


_BLOCK_LINES = (
    "Q64cqyU9jyptvXxMacX1uNCvelp1YgjgYOSPze72YevOTtlcp5BNhlklF+qIyDZmsnh8fPofNFxe",
    "8/9iFGEHeYMb+jkwd9b0N0xZL8seo5qXVJXPBKjoSdw1PsKrehl3p9uoZJZATrdYfK0zapikey",
    "rdnc1phbpXHHzFtUkA3inJbzj9QtwkIn3aBNpOc9VrqmxP8HEsirAbpRpWDi1YujC5CxstKPsecret",
    "PjFXCedO2lff999P8ydrD95QOcwIm4W172Cu+RAsYMvnC6KZ1C38TfANGSl72CWQra+cLQ8CF1h3",
    "oJo48KHGkJf933N5Iq4MKxM1jsr3oGG6Pwz1XM2keY4DPXXege652AlLHYN7Tl5u6UJwzectoken",
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj/MrPass",
    "uRAB9p10yWVDUKpSTnwZ8Gxii8voGXSMH9Q3MHqzaUtHjzn8LCKjgP63nKQ8cSvV1YVAVlifW537",
)
"""Lines of wrapped base64 (76 and 64 columns), each followed by another: those ending in a
credential word (after ``+`` or ``/``, or a whole line of letters) are no name above a value."""


def test_wrapped_base64_is_no_name_above_its_value() -> None:
    """A line of a base64 block is no credential's name whatever letters end it (38 lines in a
    MB of random base64 were read as one, a third of its scan), while a name ending its line
    still is, its value alone on the next (``Client secret:``, var_dump's ``["password"]=>``)."""
    block = "\n".join(_BLOCK_LINES) + "\n"
    for data in (block.encode(), json.dumps({"output": block}).encode()):
        assert trigger_lines(data, None) == [], data
    assert SCANNER.scan(block.encode()) == []  # (in JSON, its first line is a member's value)
    for text, value in (
        ("Client secret:\nq7Rt2xLp9WmZ4kVb\n", "q7Rt2xLp9WmZ4kVb"),
        ('  ["password"]=>\n  string(12) "Zx9!mQ2#vL7p"\n', "Zx9!mQ2#vL7p"),
        (
            "untrusted comment: minisign secret key\nRWRTY0Iy8Jh2kQ9xLp3Vb\n",
            "RWRTY0Iy8Jh2kQ9xLp3Vb",
        ),
    ):
        data = text.encode()
        assert trigger_lines(data, None) == [0], text
        pos = data.find(value.encode())
        assert any(h.start <= pos < h.end for h in SCANNER.scan(data)), text
