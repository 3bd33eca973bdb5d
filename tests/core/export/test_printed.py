"""Commands that print a secret alone (issue 31, cause 2: the name is not beside the value, it is in
the command): what ``op read``, ``vault kv get -field``, ``terraform output -raw``, ``cat`` of a
credential-named file print is redacted wherever it appears in the export, and a command that
prints nothing secret keeps its output.

The forms here were written as other clients and spellings of the cause (not the held-out batch's,
which ``test_heldout_batch`` holds); each leaked before ``_printers``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rho_desk.core.export import Selection, export_snapshot
from rho_desk.core.export.scanner._printers import prints_secret, tool_values
from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

KEY = bytes(range(32))
IDENTITY = ModelIdentity("openai", "responses", "gpt-5")

PRINTED: dict[str, tuple[str, dict[str, object], str, str]] = {
    # label: (tool, arguments, output, the secret)
    "vault kv get -field": (
        "bash",
        {"command": "vault kv get -field=password secret/app/db"},
        "Vk9pQm2LxR7tWs\n",
        "Vk9pQm2LxR7tWs",
    ),
    "gh auth token": (
        "bash",
        {"command": "gh auth token"},
        "gho_notAVendorShape12\n",
        "gho_notAVendorShape12",
    ),
    "printenv a credential": (
        "bash",
        {"command": "printenv STRIPE_WEBHOOK_SECRET"},
        "whsecLike9Rt2Qm\n",
        "whsecLike9Rt2Qm",
    ),
    "echo a credential variable": (
        "bash",
        {"command": 'echo "$DEPLOY_TOKEN"'},
        "Dt8mQ2vLp0Xz\n",
        "Dt8mQ2vLp0Xz",
    ),
    "cat in a container": (
        "bash",
        {"command": "kubectl exec api-0 -- cat /var/run/secrets/app/db_pass"},
        "Kx7 horse battery\n",
        "Kx7 horse battery",
    ),
    "sudo head of a key file": (
        "bash",
        {"command": "sudo head -c 64 /etc/app/session.key"},
        "c0ffee7781aa42b9d0e1\n",
        "c0ffee7781aa42b9d0e1",
    ),
    "bw get password": (
        "bash",
        {"command": "bw get password github.com"},
        "Bw!pass-9931x\n",
        "Bw!pass-9931x",
    ),
    "az keyvault tsv": (
        "bash",
        {"command": "az keyvault secret show --vault-name kv --name api --query value -o tsv"},
        "AzKv7781Qq0Lm\n",
        "AzKv7781Qq0Lm",
    ),
    "openssl rand": (
        "bash",
        {"command": "openssl rand -base64 24"},
        "3q2+7w9kQm0pLx1v2b3n4m5k6j7h8g\n",
        "3q2+7w9kQm0pLx1v2b3n4m5k6j7h8g",
    ),
    "read_file of a token file": (
        "read_file",
        {"path": "config/.deploy_token"},
        "1\u2192Tf4kPq8zLm2Nr7\n",
        "Tf4kPq8zLm2Nr7",
    ),
}

KEPT: dict[str, tuple[str, dict[str, object], str, str]] = {
    "printenv a path": ("bash", {"command": "printenv HOME"}, "/home/deploy\n", "/home/deploy"),
    "cat a public key": (
        "bash",
        {"command": "cat ~/.ssh/id_ed25519.pub"},
        "ssh-ed25519 AAAAC3Nza dev@laptop\n",
        "AAAAC3Nza",
    ),
    "git rev-parse": (
        "bash",
        {"command": "git rev-parse HEAD"},
        "9f3c2a1b7d8e6f5a4b3c2d1e0f9a8b7c6d5e4f3a\n",
        "9f3c2a1b7d8e6f5a4b3c2d1e0f9a8b7c6d5e4f3a",
    ),
    "echo into a token file": (
        "bash",
        {"command": "echo ready > token.txt && cat build.log"},
        "compiled-ok-1234\n",
        "compiled-ok-1234",
    ),
    "a listing of a secrets directory": (
        "bash",
        {"command": "cat secrets/README"},
        "\n".join(f"line-number-{i}-of-notes" for i in range(12)),
        "line-number-3-of-notes",
    ),
}


def _session(tool: str, arguments: dict[str, object], output: str) -> SessionSnapshot:
    call = ContentBlock.of_tool_call("c1", tool, arguments)
    history = [
        Message.user_text("show it"),
        Message.enriched(AssistantMessage(content=(call,), provenance=IDENTITY)),
        Message.result("c1", True, output),
    ]
    return SessionSnapshot.new("s", 3, history, IDENTITY)


@pytest.mark.parametrize("fmt", ["json", "markdown"])
@pytest.mark.parametrize("label", sorted(PRINTED))
def test_a_printed_secret_is_redacted(label: str, fmt: str) -> None:
    tool, arguments, output, secret = PRINTED[label]
    result = export_snapshot(
        _session(tool, arguments, output), Selection.everything(), key=KEY, fmt=fmt
    )
    assert not result.blocked
    assert secret.encode() not in result.data
    assert any(r.rule == "printed-secret" for r in result.redactions)


@pytest.mark.parametrize("label", sorted(KEPT))
def test_an_output_that_is_no_secret_stays(label: str) -> None:
    tool, arguments, output, kept = KEPT[label]
    assert tool_values(arguments, output) == []
    result = export_snapshot(_session(tool, arguments, output), Selection.everything(), key=KEY)
    assert kept.encode() in result.data


def test_the_printed_value_is_found_where_it_is_used_again() -> None:
    session = _session("bash", {"command": "op read op://Infra/db/password"}, "Op7!reuse-Me\n")
    again = Message.enriched(
        AssistantMessage(
            content=(ContentBlock.of_text("Connected with Op7!reuse-Me."),), provenance=IDENTITY
        )
    )
    session = session.replace(history=(*session.history, again))
    result = export_snapshot(session, Selection.everything(), key=KEY)
    assert b"Op7!reuse-Me" not in result.data


@pytest.mark.parametrize(
    ("command", "prints"),
    [
        ("op read op://a/b/password", True),
        ("op item get db", False),
        ("security find-generic-password -s x -w", True),
        ("security find-generic-password -s x", False),
        ("terraform output -raw db_password", True),
        ("terraform output", False),
        ("cat config/master.key", True),
        ("cat config/app.yaml", False),
        ("docker exec api cat /run/secrets/jwt", True),
        ("wg genkey | tee private.key", True),
        ("wg pubkey < private.key", False),
    ],
)
def test_which_commands_print_a_secret(command: str, prints: bool) -> None:
    assert prints_secret(command) is prints


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["", " ", "\r", "\x1c", "Xq7pL2mV9rT4", "a b", "k=v"]), max_size=24)
)
def test_an_output_told_a_listing_holds_no_value(lines: list[str]) -> None:
    """``printed_values`` skips the command's split for an output of more than ``LINES_MAX``
    non-empty lines (most are listings): ``output_values`` reads none of those either."""
    from rho_desk.core.export.scanner._printers import LINES_MAX, _listing, output_values

    output = "\n".join(lines)
    counted = len([line for line in output.splitlines() if line.strip()])
    assert _listing(output) == (len([x for x in output.split("\n") if x.strip()]) > LINES_MAX)
    if _listing(output):
        assert counted > LINES_MAX
        assert output_values(output) == []
