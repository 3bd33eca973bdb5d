"""Encodings written as text: a secret spelled as numbers, lines of uuencode or base85, UTF-16 or a
raw deflate stream in base64, lower-case base32, a dump behind a tool's line prefix.

Each encoding is tried in the forms its tools and languages write it (several per encoding, not
one sample), raw and inside the JSON string an export holds it in; the middle of the encoded
text must lie in a hit (the whole encoded region is redacted). Text that merely looks like one
(numbers that are not printable bytes, ``begin`` without lines, words) is left alone.
"""

from __future__ import annotations

import base64
import binascii
import json
import subprocess
import zlib
from pathlib import Path

import pytest

from rho_desk.core.export import Hit, SecretScanner

SCANNER = SecretScanner()
GITHUB = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY"
SECRET = f"TOKEN={GITHUB}\n".encode()


def _covered(data: bytes, hits: list[Hit], middle: bytes) -> bool:
    at = data.find(middle)
    assert at >= 0, middle
    return any(h.start <= at and at + len(middle) <= h.end for h in hits)


def found(text: str, encoded: str) -> bool:
    """The middle third of ``encoded`` (as it stands in ``text``) lies in a hit, raw and in JSON."""
    third = len(encoded) // 3
    middle = encoded[third : 2 * third]
    raw = text.encode()
    if not _covered(raw, SCANNER.scan(raw), middle.encode()):
        return False
    as_json = json.dumps({"output": text}).encode()
    inner = json.dumps(middle)[1:-1].encode()
    return _covered(as_json, SCANNER.scan(as_json), inner)


def _od(*args: str, data: bytes = SECRET, tmp: Path | None = None) -> str:
    path = (tmp or Path("/tmp")) / "rho-desk-written-encodings.bin"
    path.write_bytes(data)
    try:
        return subprocess.run(
            ["od", *args, str(path)], capture_output=True, check=True, text=True
        ).stdout
    finally:
        path.unlink()


# --- numbers ---------------------------------------------------------------------------------

_NUMBERS = {
    "spaced upper-case hex": " ".join(f"{b:02X}" for b in SECRET),
    "go byte slice": "key := []byte{" + ", ".join(f"0x{b:02x}" for b in SECRET) + "}",
    "c array": "static const unsigned char key[] = {"
    + ",".join(f"0x{b:02X}" for b in SECRET)
    + "};",
    "xxd -i": "unsigned char k[] = {\n  "
    + ",\n  ".join(
        ", ".join(f"0x{b:02x}" for b in SECRET[i : i + 12]) for i in range(0, len(SECRET), 12)
    )
    + "\n};",
    "python bytes list": "secret = bytes([" + ", ".join(str(b) for b in SECRET) + "])",
    "js fromCharCode": "const k = String.fromCharCode(" + ",".join(str(b) for b in SECRET) + ");",
    "java byte array": "byte[] k = new byte[]{" + ", ".join(str(b) for b in SECRET) + "};",
    "python chr sum": "k = " + "+".join(f"chr({b})" for b in SECRET),
    "powershell char": "$k = " + "+".join(f"[char]{b}" for b in SECRET),
    "vb chr": "k = " + " & ".join(f"Chr({b})" for b in SECRET),
}


def test_a_bare_token_as_a_list_without_spaces_is_read() -> None:
    """The list's region starts after its first ``0x``: what is read around a decoded value must
    not run on into it (``0xghp_…`` is no token)."""
    text = "[]byte{" + ",".join(f"0x{b:02x}" for b in GITHUB.encode()) + "}"
    assert found(text, text[7:-1])


@pytest.mark.parametrize("name", sorted(_NUMBERS))
def test_a_secret_written_as_a_list_of_numbers_is_read(name: str) -> None:
    text = _NUMBERS[name]
    values = text[text.index(next(c for c in text if c.isdigit())) :]
    assert found(text, values)


@pytest.mark.parametrize(
    "args", [("-t", "x1"), ("-b",), ("-x",), ("-t", "u1"), ("-t", "d1"), ("-c",)], ids=" ".join
)
def test_od_dumps_of_every_format_are_read(args: tuple[str, ...], tmp_path: Path) -> None:
    dump = _od(*args, tmp=tmp_path)
    assert found(dump, dump.splitlines()[1])


@pytest.mark.parametrize(
    "prefix",
    [lambda n: f"{n:6d}\t", lambda n: f"{n:6d}→", lambda n: f"{n}: ", lambda n: "+"],
    ids=["cat -n", "read_file", "grep -n", "diff"],
)
def test_a_dump_behind_a_tools_line_prefix_is_read(prefix: object, tmp_path: Path) -> None:
    dump = _od("-c", tmp=tmp_path)
    text = "".join(prefix(n) + line + "\n" for n, line in enumerate(dump.splitlines(), 1))  # type: ignore[operator]
    assert found(text, text.splitlines()[1])


# --- lines of uuencode and base85 ----------------------------------------------------------------


def _uu(data: bytes) -> str:
    return "".join(binascii.b2a_uu(data[i : i + 45]).decode() for i in range(0, len(data), 45))


def test_uuencode_after_its_header_is_read() -> None:
    body = _uu(SECRET * 3)
    for text in (
        f"$ uuencode key.txt key.txt\nbegin 644 key.txt\n{body}`\nend\n",
        f"begin 600 id\n{body}`\nend",
    ):
        assert found(text, body)


def _git_lines(payload: bytes) -> str:
    lines = []
    for i in range(0, len(payload), 52):
        chunk = payload[i : i + 52]
        size = (
            chr(ord("A") + len(chunk) - 1) if len(chunk) <= 26 else chr(ord("a") + len(chunk) - 27)
        )
        lines.append(size + base64.b85encode(chunk + bytes(-len(chunk) % 4)).decode())
    return "\n".join(lines)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append(n & 0x7F | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def test_a_binary_patch_literal_and_delta_are_read() -> None:
    literal = _git_lines(zlib.compress(b"\x00\x01config " + SECRET + b"\x00"))
    text = f"diff --git a/k.bin b/k.bin\nGIT binary patch\nliteral 64\n{literal}\n\nliteral 0\nHcmV?d00001\n"
    assert found(text, literal)
    # a delta: copy 16 bytes of the old file, then insert the secret
    delta = (
        _varint(200)
        + _varint(16 + len(SECRET))
        + bytes((0x90, 16))
        + bytes((len(SECRET),))
        + SECRET
    )
    lines = _git_lines(zlib.compress(delta))
    text = f"GIT binary patch\ndelta {len(delta)}\n{lines}\n\ndelta 12\nzcmZ?wZ~\n"
    assert found(text, lines)


def test_ascii85_is_read() -> None:
    block = "<~" + base64.a85encode(SECRET, wrapcol=40).decode() + "~>"
    assert found(f"% PostScript\n{block}\n", block)


# --- UTF-16, raw deflate, base32 ----------------------------------------------------------------


def test_powershell_encoded_command_is_read() -> None:
    script = f"$env:TOKEN = '{GITHUB}'; Invoke-Deploy".encode("utf-16-le")
    encoded = base64.b64encode(script).decode()
    assert found(f"powershell.exe -NoProfile -EncodedCommand {encoded}", encoded)
    assert found(f"pwsh -enc {encoded}", encoded)
    big_endian = base64.b64encode(b"\xfe\xff" + f"TOKEN={GITHUB}".encode("utf-16-be")).decode()
    assert found(f"payload: {big_endian}", big_endian)


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def test_raw_deflate_in_base64_is_read() -> None:
    for packed in (_raw_deflate(SECRET), _raw_deflate(b"# deploy settings\n" + SECRET * 2)):
        encoded = base64.b64encode(packed).decode()
        assert found(f"blob = '{encoded}'", encoded)
        urlsafe = base64.urlsafe_b64encode(packed).decode().rstrip("=")
        assert found(f"?state={urlsafe}&x=1", urlsafe)


def test_lower_case_base32_without_padding_is_read() -> None:
    encoded = base64.b32encode(SECRET).decode().lower().rstrip("=")
    assert found(f"otp seed {encoded} end", encoded)
    wrapped = "\n".join(
        base64.b32encode(SECRET * 4).decode()[i : i + 64]
        for i in range(0, 8 * len(SECRET * 4) // 5, 64)
    )
    assert found(wrapped, wrapped.splitlines()[1])


# --- look-alikes left alone ----------------------------------------------------------------------


def test_numbers_words_and_headers_that_are_not_encodings_are_left_alone() -> None:
    benign = "\n".join(
        [
            "ports = [22, 80, 443, 5432, 6379, 8080, 8443, 9090, 9200, 27017]",
            "bytes([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15])",
            "crc table: 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07",
            "| 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 |",
            "begin 644 notes.txt",
            "the quick brown fox jumps over the lazy dog again and again",
            "abcdefghijklmnopqrstuvwxyz234567 is base32's alphabet",
            _od("-t", "x1", data=bytes(range(48))),
            "literal 0\nHcmV?d00001",
        ]
    )
    for data in (benign.encode(), json.dumps({"text": benign}).encode()):
        assert SCANNER.scan(data) == []


def test_the_gate_and_re_alone_agree_on_these_forms(tmp_path: Path) -> None:
    from .test_scanner_engines import HYPERSCAN, hits, re_only_scanner

    if not HYPERSCAN:
        pytest.skip("hyperscan is not installed")
    texts = [*_NUMBERS.values(), _od("-t", "x1", tmp=tmp_path), _od("-c", tmp=tmp_path)]
    texts += [
        f"begin 644 k\n{_uu(SECRET)}`\nend\n",
        f"GIT binary patch\nliteral 64\n{_git_lines(zlib.compress(SECRET))}\n\n",
    ]
    texts += [
        "<~" + base64.a85encode(SECRET).decode() + "~>",
        base64.b64encode(SECRET.decode().encode("utf-16-le")).decode(),
    ]
    texts += [
        base64.b64encode(_raw_deflate(SECRET)).decode(),
        base64.b32encode(SECRET).decode().lower(),
    ]
    plain = re_only_scanner([])
    assert [
        t
        for t in texts
        for data in (t.encode(), json.dumps(t).encode())
        if hits(SCANNER, data) != hits(plain, data)
    ] == []


# --- HTML character references -----------------------------------------------------------------


def _refs(text: str) -> str:
    return "".join(f"&#{ord(c)};" for c in text)


_REFERENCES = {
    "decimal": _refs(GITHUB),
    "hex": "".join(f"&#x{ord(c):x};" for c in GITHUB),
    "upper-case X, no semicolons": "".join(f"&#X{ord(c):X}" for c in GITHUB),
    "decimal, no semicolons": "".join(f"&#{ord(c)}" for c in GITHUB),
    "mixed with plain characters": GITHUB[:10] + _refs(GITHUB[10:20]) + GITHUB[20:],
    "go's json, & as \\u0026": _refs(GITHUB).replace("&", "\\u0026"),
}


@pytest.mark.parametrize("name", list(_REFERENCES))
def test_a_token_written_with_character_references_is_read(name: str) -> None:
    encoded = _REFERENCES[name]
    assert found(f"<p>token {encoded}</p>", encoded)


def test_a_named_reference_inside_a_referenced_value_is_decoded() -> None:
    encoded = _refs("password: Hy7") + "&amp;" + _refs("Rw2kM4zz")
    assert found(f"<span>{encoded}</span>", encoded)


@pytest.mark.parametrize(
    "text",
    [
        "<footer>Copyright &#169; 2024 Example&nbsp;Corp. Caf&#233; &amp; Bar &#8212; 9&#8211;17</footer>",
        "He said &#34;don&#39;t&#34; &#x2014; x &lt; y &amp;&amp; y &gt; z; see &#x2192; note&#8230;",
        "Set the &#8220;password&#8221; field, then press &#8216;Save&#8217;: 32 characters.",
    ],
)
def test_text_with_character_references_and_no_secret_is_left_alone(text: str) -> None:
    for data in (text.encode(), json.dumps({"output": text}).encode()):
        assert SCANNER.scan(data) == [], text
