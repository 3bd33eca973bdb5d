"""The held-out batch's misses of causes 4 to 6 (command lines, vendor tokens, encodings), written
without looking at the rules and fixed by cause (issue 31): each form's secret is gone from every
export format, where the batch put it (a tool result, or a bash command's argument), and no export
is blocked. The forms of the batch still missed are named in docs/security.md's limits.
"""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import Selection, export_snapshot
from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

KEY = bytes(range(32))
IDENTITY = ModelIdentity("openai", "responses", "gpt-5")

FORMS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "s113-ftp-heredoc-user": (
        "command",
        "ftp -n files.acme.io <<EOF\nuser deploy YjNdZc0uAPD0LwuZ\nbinary\nput release.tgz\nbye\nEOF",
        ("YjNdZc0uAPD0LwuZ",),
    ),
    "s125-mc-alias-set-positional": (
        "command",
        "mc alias set minio https://minio.acme.io:9000 minioadmin gui0M2VvYeKZn8TI0Cry6O6I",
        ("gui0M2VvYeKZn8TI0Cry6O6I",),
    ),
    "s129-printf-pipe-stdin-file": (
        "command",
        "printf '%s' 'sLQu0haA6sD0akpjms9uzU4usajP' | kubectl create secret generic api --from-file=token=/dev/stdin",
        ("sLQu0haA6sD0akpjms9uzU4usajP",),
    ),
    "s137-expect-send-password": (
        "command",
        'expect -c \'spawn ssh root@10.0.0.9; expect "assword:"; send "VtfLoD!wDR0P%48U\\r"; interact\'',
        ("VtfLoD!wDR0P%48U",),
    ),
    "s165-huggingface-api-org": (
        "result",
        "org token api key -> 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\n",
        ("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",),
    ),
    "s168-doppler-service-token": (
        "result",
        "Doppler: service token dp.st.prd.olWg3BGX6MbvnLmlopRANOv3PcHOXy2O1tnKDpTo configured for prd\n",
        ("dp.st.prd.olWg3BGX6MbvnLmlopRANOv3PcHOXy2O1tnKDpTo",),
    ),
    "s182-flyio-fm2": (
        "result",
        "fly tokens create deploy output:\nFlyV1 fm2_eOEdHbZBIMFWck8VYghhVBv-Rm5853nnMJ9NnERRJM2qs3rFRFCmgsyIL4tuVoN_ys8GzWh3_ffLhIjUEhL9qHuMIhTRSpm8jh1eebowLF-43eG9iDYyCl_pVoB1gEy-i8MsS22sLg6YByoNHRFjF77bTTo0XqpySURlPqrfla2gDXD4rC7_thPx4BNAAPzS81UB6mG8JanTQqvaxXDohp1xrRv1gGAmmT75nf7-HgrpEyIlrA98XvgQh6p7uvJBUo1cBeD1zU8\n",
        (
            "FlyV1 fm2_eOEdHbZBIMFWck8VYghhVBv-Rm5853nnMJ9NnERRJM2qs3rFRFCmgsyIL4tuVoN_ys8GzWh3_ffLhIjUEhL9qHuMIhTRSpm8jh1eebowLF-43eG9iDYyCl_pVoB1gEy-i8MsS22sLg6YByoNHRFjF77bTTo0XqpySURlPqrfla2gDXD4rC7_thPx4BNAAPzS81UB6mG8JanTQqvaxXDohp1xrRv1gGAmmT75nf7-HgrpEyIlrA98XvgQh6p7uvJBUo1cBeD1zU8",
        ),
    ),
    "s201-google-gocspx": (
        "result",
        "client secret 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\n",
        ("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",),
    ),
    "s204-mapbox-sk": (
        "result",
        "mapbox secret sk.eyJ1IjoiYWNtZSIsImEiOiJh4gHRpFR_sIGg48qk3Jl9Xy68-o.T6RnKAl63JZ5degp_Rgw3g\n",
        ("sk.eyJ1IjoiYWNtZSIsImEiOiJh4gHRpFR_sIGg48qk3Jl9Xy68-o.T6RnKAl63JZ5degp_Rgw3g",),
    ),
    "s210-buildkite-bkua": (
        "result",
        "BUILDKITE bkua_18f928bd54cdfa5edc2a348f135ee05ec7723655\n",
        ("bkua_18f928bd54cdfa5edc2a348f135ee05ec7723655",),
    ),
    "s215-zapier-hook-url": (
        "result",
        "ZAP_URL https://hooks.zapier.com/hooks/catch/0587976/trji9j1vav/\n",
        ("https://hooks.zapier.com/hooks/catch/0587976/trji9j1vav/",),
    ),
    "s223-c-octal-escapes": (
        "result",
        'static const char *pw = "\\121\\065\\162\\162\\113\\164\\142\\157\\122\\167\\157\\062\\147\\171\\152\\130\\124\\062";\n',
        (
            "\\121\\065\\162\\162\\113\\164\\142\\157\\122\\167\\157\\062\\147\\171\\152\\130\\124\\062",
        ),
    ),
    "s226-full-percent-encoding": (
        "result",
        "GET /api?k=%37%36%72%58%5A%52%65%35%4E%53%77%57%65%4A%39%64 HTTP/1.1\n",
        ("%37%36%72%58%5A%52%65%35%4E%53%77%57%65%4A%39%64",),
    ),
    "s234-ansi-colored-value": (
        "result",
        "\x1b[1mAPI key:\x1b[0m \x1b[32mHHSoWTdV6KrcSBDxCBKn2a\x1b[0m\n",
        ("HHSoWTdV6KrcSBDxCBKn2a",),
    ),
    "s235-python-bytes-hex-escapes": (
        "result",
        "KEY = b'\\x48\\x73\\x37\\x74\\x75\\x4d\\x6a\\x64\\x56\\x32\\x36\\x6d\\x5a\\x76\\x31\\x70\\x67\\x6b\\x55\\x65'\n",
        (
            "\\x48\\x73\\x37\\x74\\x75\\x4d\\x6a\\x64\\x56\\x32\\x36\\x6d\\x5a\\x76\\x31\\x70\\x67\\x6b\\x55\\x65",
        ),
    ),
    "s237-sql-char-function": (
        "result",
        "SELECT * FROM t WHERE api_key = CHAR(75,86,72,119,113,88,49,78,51,108,50,89,105,49,68,109);\n",
        ("75,86,72,119,113,88,49,78,51,108,50,89,105,49,68,109",),
    ),
    "s239-ascii85-adobe": (
        "result",
        'secret <~82N%tC2n3.D0]\\]G&_AA;_qQZ5t"%P~>\n',
        ('<~82N%tC2n3.D0]\\]G&_AA;_qQZ5t"%P~>',),
    ),
    "s240-shell-printf-hex": (
        "command",
        "printf '\\x32\\x38\\x75\\x6b\\x7a\\x65\\x7a\\x58\\x66\\x5a\\x73\\x77\\x66\\x70\\x45\\x6f\\x74\\x53\\x51\\x4a' > ~/.token",
        (
            "\\x32\\x38\\x75\\x6b\\x7a\\x65\\x7a\\x58\\x66\\x5a\\x73\\x77\\x66\\x70\\x45\\x6f\\x74\\x53\\x51\\x4a",
        ),
    ),
    "s241-powershell-frombase64-utf8": (
        "command",
        "$k = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('QzlaQlZmSzJiTzZCSXpLSTlCdGg='))",
        ("QzlaQlZmSzJiTzZCSXpLSTlCdGg=",),
    ),
}


def _session(where: str, text: str) -> SessionSnapshot:
    if where == "command":
        call = ContentBlock.of_tool_call("c-1", "bash", {"command": text})
        messages = [
            Message.enriched(AssistantMessage(content=(call,), provenance=IDENTITY)),
            Message.result("c-1", True, "ok"),
        ]
    else:
        messages = [Message.user_text("look"), Message.result("c-1", True, text)]
    return SessionSnapshot.new("s-1", 1, messages, IDENTITY)


@pytest.mark.parametrize("fmt", ["json", "markdown", "html"])
def test_no_held_out_secret_survives_an_export_and_none_is_blocked(fmt: str) -> None:
    for name, (where, text, secrets) in FORMS.items():
        result = export_snapshot(_session(where, text), Selection.everything(), key=KEY, fmt=fmt)
        out = result.data.decode()
        for secret in secrets:
            assert secret not in out and json.dumps(secret)[1:-1] not in out, (name, secret)
        assert not result.blocked, (name, [(f.rule, f.location) for f in result.report.blocking])
