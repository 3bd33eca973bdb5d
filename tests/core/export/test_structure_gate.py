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
