"""Entropy in context: a random-looking value where a credential stands is one, whatever its name.

A value's name does not always say what it holds (``SIGNATURE_SALT``, ``X-Upstream-Auth``,
``config.set("upstream", "…")``). These rules read how random the value looks, but only where a
value stands (after ``=`` or ``:``, quoted as an argument): never in prose, never under a name
that says identifier, digest or data (``id``, ``sha256``, ``integrity``, ``etag``), and never for
the shapes that are random by design and public (integrity strings, prefixed ids, image data).
"""

from __future__ import annotations

import base64
import re
from typing import Final

from ._catalogue import Hit
from ._lines import break_before
from ._names import (
    NOT_SECRET_WORDS,
    digest_prefixed,
    name_before,
    name_is_key,
    name_words,
    public_name,
)
from ._values import (
    DIGEST_HEX_LENGTHS,
    ENTROPY_CAP,
    ciphertext,
    high_entropy,
    keyed_hex,
    random_hex,
    shannon,
)
from ._work import spend

__all__ = [
    "ENTROPY_CAP",
    "ENTROPY_MAX_LENGTH",
    "ENTROPY_MIN_LENGTH",
    "entropy_hits",
    "high_entropy",
    "shannon",
]

_LOWER: Final = frozenset(b"abcdefghijklmnopqrstuvwxyz")
_UPPER: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGIT: Final = frozenset(b"0123456789")


ENTROPY_MIN_LENGTH: Final = 16
ENTROPY_MAX_LENGTH: Final = 256
_CONTEXT_SKIP: Final = frozenset(b" \t\"'\\`")
_CONTEXT_OPENERS: Final = frozenset(b"=:(,[")
_CONTEXT_BEFORE: Final = _CONTEXT_SKIP | {0x3D, 0x3A}
"""The byte right before a value where a credential can stand: ``=``, ``:``, or what is skipped
on the way back to one (spaces, quotes, backslashes)."""
# values under these names are identifiers, digests or data, not credentials
_BENIGN_NAMES: Final = frozenset(
    {
        "id",
        "ids",
        "uuid",
        "guid",
        "hash",
        "sha",
        "sha1",
        "sha256",
        "sha384",
        "sha512",
        "md5",
        "digest",
        "checksum",
        "integrity",
        "etag",
        "commit",
        "rev",
        "revision",
        "oid",
        "nonce",
        "challenge",  # PKCE's code_challenge (a hash sent in the clear), WebAuthn's challenge
        "data",
        "content",
        "text",
        "path",
        "url",
        "uri",
        "name",
        "type",
        "model",
        "title",
        "src",
        "href",
        "ref",
        "version",
        "encrypted",
        "ciphertext",
        "blob",
        "image",
        "icon",
        "thumbnail",
        "iv",
        "signature",
        "fingerprint",
        "fp",
        "kid",
        "x5t",
        "n",
        "e",
        "x",
        "y",
        "at",
        "alg",
        "tag",
        "label",
        "pubkey",
        "publickey",
        "peer",
        "iban",  # a bank account's number (public: printed on every invoice)
        "bic",
    }
)
_PREFIXED_ID: Final = re.compile(rb"[a-z]{2,12}_[A-Za-z0-9]")
_INTEGRITY: Final = re.compile(rb"sha(?:1|224|256|384|512)-")
_IMAGE_HEADS: Final = (b"iVBORw0KGgo", b"/9j/", b"R0lGOD", b"UklGR", b"PHN2Zy", b"Qk")


_DIGEST_LABEL: Final = re.compile(
    r"h[0-9]|zh|sha(?:[0-9]+|3[0-9]+)?|md[245]|blake[0-9a-z]{0,4}|xxh(?:[0-9]+|3)?|crc[0-9]{0,2}c?|ripemd[0-9]*|sm3|fnv[0-9a]*|murmur[0-9a-z]*"
)
"""A digest's algorithm named as the label before its value (go.sum and terraform locks' ``h1:``
and ``zh:``, a wheel RECORD's ``sha256=``, ``md5:``, ``blake3:``, ``crc32c=``): its name's words
joined."""
_HANDSHAKE: Final = (
    ["web", "socket", "key"],
    ["web", "socket", "accept"],
    ["websocket", "key"],
    ["websocket", "accept"],
)
"""A protocol's handshake nonce and its answer (``Sec-WebSocket-Key``, ``Sec-WebSocket-Accept``):
random by design, sent in the clear."""


_HOLDERS: Final = frozenset({"blob", "data", "content"})
"""Words that say a value holds data, of which the words before can say the data is a secret's."""
_SECRET_DATA: Final = frozenset(
    {"license", "licence", "activation", "signing", "private", "master", "seed", "enrollment"}
)
"""Words that say the data a name holds is a secret (``LICENSE_BLOB``, ``activation_blob``,
``SIGNING_KEY_CONTENT``): a licence, a signing or private key, a seed."""


def benign_words(name: bytes) -> bool:
    """A name whose words say identifier, digest (or a digest's algorithm), data or public: its
    last word not a number (``x-amz-id-2`` says id); data no word before it says is a secret's
    (``LICENSE_BLOB`` is not data)."""
    words = name_words(name.decode("ascii", "replace"))
    if words[-1:] and words[-1] in _HOLDERS and not _SECRET_DATA.isdisjoint(words[:-1]):
        return False
    if _DIGEST_LABEL.fullmatch("".join(words[-2:])) is not None or (
        words[-3:] in _HANDSHAKE or words[-2:] in _HANDSHAKE
    ):
        return True
    while len(words) > 1 and words[-1].isdigit():
        words.pop()
    return bool(words) and (words[-1] in _BENIGN_NAMES or public_name(words))


def _benign_name(data: bytes, end: int) -> bool:
    """The name ending at ``end`` (its closing quote and spaces skipped) is a ``benign_words``
    name; after a parenthesis, the first word of the line is the name (``MD5 (file) = …``); a
    structured field's byte sequence (``sha-256=:…:``, RFC 9530) is named by the label before its
    ``=``; a name after a word saying public is public (``public key:``, ``server public key:``)."""
    if end > 0 and data[end - 1 : end + 1] == b"=:":
        end -= 1
    while end > 0 and data[end - 1] in b"\"'\\ \t":
        end -= 1
    if end > 0 and data[end - 1] == 0x29:
        first = _first_word(data, end)
        return first is not None and benign_words(first)
    start, name = name_before(data, end)
    if benign_words(name) or _oauth_state(data, start, name) or _signed_tag(data, start, name):
        return True
    if start > 1 and data[start - 1] == 0x20:
        _, word = name_before(data, start - 1)
        return word.decode("ascii", "replace").lower() in NOT_SECRET_WORDS
    return False


_OAUTH: Final = re.compile(
    rb"oauth|authoriz|redirect_uri|response_type|client_id|code_challenge|callback|openid",
    re.IGNORECASE,
)
"""What names OAuth's flow on a line: its endpoints' words and parameters."""
_OAUTH_REACH: Final = 400


def _oauth_state(data: bytes, start: int, name: bytes) -> bool:
    """``name`` (at ``start``) is OAuth's ``state``, an anti-forgery value sent in the authorize
    URL and back to the callback: the name is ``state`` and the text around it names OAuth's flow
    (``response_type=``, ``/callback?``, ``oauth``). A ``state`` elsewhere (a download link's,
    ``APP_STATE``) is read as any other name."""
    if name.lower() != b"state":
        return False
    return _OAUTH.search(data, max(0, start - _OAUTH_REACH), start + _OAUTH_REACH) is not None


_SIGNED_TAGS: Final = frozenset({b"b", b"bh", b"response", b"cnonce", b"opaque"})
_SIGNED_HEADER: Final = re.compile(
    rb"(?i:(?:dkim|arc-message)-signature|arc-seal)[ \t]*:|(?i:authori[sz]ation|authenticate)"
    rb"\\{0,3}[\"']?[ \t]*:[ \t]*\\{0,3}[\"']?[ \t]*Digest[ \t]"
)
"""A header whose tags sign or answer (DKIM's and ARC's signatures and seal; an HTTP or SIP
Digest answer or challenge)."""
_SIGNED_REACH: Final = 640


def _signed_tag(data: bytes, start: int, name: bytes) -> bool:
    """``name`` (at ``start``) is a tag of a signing header that holds a hash or a signature:
    DKIM's and ARC's ``bh=`` (the body's hash) and ``b=`` (the signature), a Digest answer's
    ``response=`` (a hash of the password with the server's nonce), ``cnonce=``, ``opaque=``;
    the header is named within ``_SIGNED_REACH`` bytes before (its tags run over folded lines).
    Public by design: what a mail or a request carries to whoever receives it."""
    if name.lower() not in _SIGNED_TAGS:
        return False
    return _SIGNED_HEADER.search(data, max(0, start - _SIGNED_REACH), start) is not None


def _first_word(data: bytes, pos: int) -> bytes | None:
    """The first word of the line holding ``pos`` (within 128 bytes)."""
    lo = max(0, pos - 128)
    brk, width = break_before(data, lo, pos)
    if brk < 0 and lo > 0:
        return None
    begin = brk + width if brk >= 0 else 0
    line = data[begin:pos].lstrip(b" \t")
    word = line.split(None, 1)[0] if line.strip() else b""
    return word.strip(b"\"'`|,") or None


_NAME_CHARS: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
_NAME_BYTES: Final = frozenset(_NAME_CHARS)
_LINE_STARTS: Final = (b"\n", b"\r", b"\x00", b"\xff")
_CELL_SEPARATORS: Final = frozenset(b",|\t")


def _line_start(data: bytes, pos: int) -> bool:
    """Only spaces and tabs between ``pos`` and the start of its line (a break, JSON-escaped or
    not, or the buffer's start), within 64 bytes."""
    j = pos
    while j > 0 and pos - j < 64 and data[j - 1] in b" \t":
        j -= 1
    if (
        j == 0
        or data[j - 1 : j] in _LINE_STARTS
        or (j >= 2 and data[j - 2 : j] in (b"\\n", b"\\r"))
    ):
        return True
    return data[j - 1] == 0x22 and data[max(0, j - 4) : j - 1].rstrip(b" ").endswith(
        b":"
    )  # a JSON string's start


_ROW: Final = re.compile(rb"(?:[^\s:]{1,200}:)?[0-9]{1,9}")


def _row_colon(data: bytes, colon: int) -> bool:
    """The colon at ``colon`` ends a row's wrapper at its line's start: ``12:`` (read_file),
    ``path:12:`` (grep)."""
    lo = colon
    while (
        lo > 0
        and colon - lo < 210
        and data[lo - 1] not in b" \t\n\x00\xff"
        and not (lo >= 2 and data[lo - 2 : lo] == b"\\n")
    ):
        lo -= 1
    return _ROW.fullmatch(data, lo, colon) is not None and _line_start(data, lo)


_PROSE_BYTES: Final = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ,.'-")


def _base64_of_prose(value: bytes) -> bool:
    """``value`` is base64 of a sentence: printable text of words (letters, spaces and little
    else), three spaces or more."""
    body = value.rstrip(b"=")
    if len(body) < 16:
        return False
    try:
        text = base64.b64decode(
            body + b"=" * (-len(body) % 4), altchars=b"-_" if b"-" in body or b"_" in body else None
        )
    except ValueError:
        return False
    if not text.isascii():
        return _utf8_text(text)
    if text.count(b" ") < 3 or not all(32 <= c < 127 for c in text):
        return False
    return sum(c in _PROSE_BYTES for c in text) >= 0.9 * len(text)


def _utf8_text(raw: bytes) -> bool:
    """``raw`` is UTF-8 text of words with letters outside ASCII (``Zürich office, ext 4417``,
    ``Jörg Müller``): random bytes are seldom valid UTF-8, less often all printable letters."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if " " not in text or not text.isprintable():
        return False
    return sum(c.isalpha() or c in " ,.'-" for c in text) >= 0.8 * len(text)


_ENVELOPE_BYTES: Final = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=:["
)


_APP_ID: Final = re.compile(rb"[0-9]:[0-9]{6,15}:(?:android|ios|web):\Z")
_HASHED_HOST: Final = re.compile(rb"\|1\|(?:[A-Za-z0-9+/]{27}=\|)?\Z")
_MAGIC: Final = (
    b"89504e47",  # PNG
    b"7f454c46",  # ELF
    b"504b0304",  # ZIP
    b"25504446",  # %PDF
    b"d0cf11e0a1b11ae1",  # OLE2
    b"47494638",  # GIF8
    b"52494646",  # RIFF
    b"377abcaf271c",  # 7z
    b"cafebabe",
    b"feedfac",  # Mach-O
    b"cffaedfe",
    b"0061736d",  # wasm
    b"1f8b08",  # gzip
    b"ffd8ff",  # JPEG
)
"""File signatures (magic numbers), in hex: a hex value that begins with one is a file's header."""
_KEY_ID: Final = re.compile(rb"(?:0x)?[0-9A-F]{16}")
"""A GPG key's long id (upper-case hex, as gpg prints it)."""


def _id_by_form(
    data: bytes, start: int, end: int, i: int, before: int, value: bytes, hexed: bool | None
) -> bool:
    """The value's form says it is an id, a digest or a file's header, not a credential: the
    quoted argument of a call named as an id (``ObjectId('…')``, ``UUID("…")``), the local part of
    an address in angle brackets (a ``Message-ID``), Firebase's app id (``1:<n>:android:<hex>``),
    a hashed ``known_hosts`` entry (``|1|salt|hash``), a GPG key's long id after an option naming
    a key or a user (``--recv-keys``, ``--default-key``), hex of a file's magic number."""
    if before == 0x28 and i >= 2:
        _, callee = name_before(data, i - 1)
        if callee and benign_words(callee):
            return True
    if data[end : end + 1] == b"@":
        j = start
        while j > 0 and start - j < 128 and data[j - 1] not in b"<>:/ \t\"'\n":
            j -= 1
        if j > 0 and data[j - 1] == 0x3C:
            return True
    if before == 0x3A and _APP_ID.search(data, max(0, start - 40), start) is not None:
        return True
    if before == 0x7C and _HASHED_HOST.search(data, max(0, start - 40), start) is not None:
        return True
    if hexed and value.lower().startswith(_MAGIC):
        return True
    if value[:2].isupper() and _iban(value):
        return True
    if _KEY_ID.fullmatch(value) is None:
        return False
    if before in _NAME_BYTES:
        flag = data[_word_before(data, i) : i].lstrip(b"-").lower()
        return b"key" in flag or flag in (b"u", b"local-user")
    j = i - 1
    while j > 0 and i - j < 8 and data[j - 1] in b" \t\"'":
        j -= 1
    return before in b"=:" and b"key" in name_before(data, j)[1].lower()


_IBAN: Final = re.compile(rb"[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}")


def _iban(value: bytes) -> bool:
    """``value`` is an IBAN: a country's letters, two check digits and the account's number, the
    whole read as a number (letters as 10 to 35) leaving 1 modulo 97 (ISO 13616; a German one,
    ``DE…``, reads as upper-case hex)."""
    if _IBAN.fullmatch(value) is None:
        return False
    moved = value[4:] + value[:4]
    return int("".join(str(int(chr(c), 36)) for c in moved)) % 97 == 1


_IDS_REACH: Final = 2048


def _shaped_as_ids(data: bytes, start: int, end: int) -> bool:
    """The hex value at ``start`` has the shape (its length, its case) of the document's ids: an
    ``"id"`` (or ``id:``, ``id=``) of hex of that length stands within ``_IDS_REACH`` bytes. A
    record refers to another by its id (Node-RED's ``"z"`` and ``"wires"``, a graph's edges), so
    a value of that shape beside them is one more id."""
    n = end - start
    case = rb"0-9a-f" if data[start:end].lower() == data[start:end] else rb"0-9A-F"
    ids = re.compile(
        rb"\bid\\{0,3}[\"']?[ \t]*[:=][ \t]*\\{0,3}[\"']?[" + case + rb"]{%d}(?![0-9A-Za-z])" % n
    )
    return (
        ids.search(data, max(0, start - _IDS_REACH), min(len(data), end + _IDS_REACH)) is not None
    )


def _in_envelope(data: bytes, start: int) -> bool:
    """The run at ``start`` is a part of ciphertext in a known envelope (``ciphertext``): the
    token it ends (base64, ``:``, ``[``, at most 256 bytes back) opens one."""
    j = start
    while j > 0 and start - j < 256 and data[j - 1] in _ENVELOPE_BYTES:
        j -= 1
    return ciphertext(data[j : start + 300])


def _line_end(data: bytes, pos: int) -> bool:
    """Only spaces, tabs and a closing quote between ``pos`` and the end of its line."""
    j = pos
    while j < len(data) and j - pos < 64 and data[j] in b" \t\"'":
        j += 1
    return j == len(data) or data[j : j + 1] in _LINE_STARTS or data[j : j + 2] in (b"\\n", b"\\r")


def _word_before(data: bytes, end: int) -> int:
    """Where the word of name bytes ending at ``end`` starts (at most 64 bytes back)."""
    before = data[max(0, end - 64) : end]
    j = end - len(before) + len(before.rstrip(_NAME_CHARS))  # (the name bytes stripped in C)
    if j > 0 and data[j - 1] == 0x5C and data[j : j + 1] in (b"n", b"r", b"t") and j < end:
        j += 1  # \nname: an escaped break, then the name
    return j


def _cell_end(data: bytes, end: int) -> bool:
    """A table's cell ends at ``end`` (spaces, then a separator or the line's end)."""
    j = end
    while j < len(data) and j - end < 16 and data[j] in b' "':
        j += 1
    return (
        j == len(data)
        or data[j] in _CELL_SEPARATORS
        or data[j : j + 1] in _LINE_STARTS
        or data[j : j + 2] in (b"\\n", b"\\t", b"\\r")
    )


def _value_position(
    data: bytes,
    start: int,
    end: int,
    i: int,
    before: int,
    *,
    quoted: bool = False,
    blocks: _Blocks | None = None,
) -> bool:
    """A value without ``=`` or ``:`` before it still stands where a value does: a command's
    quoted argument (``echo 'X'``), after a flag (``--upstream X``, ``-k X``), in a table's cell (CSV, TSV, Markdown, aligned columns), alone after one name on
    its line (``upstream X``), as a YAML list's item, or as an XML element's text; not where the
    flag, the name, the column's header or the element says identifier or digest
    (``benign_words``: ``--nonce X``, a ``md5`` column)."""
    lead = data[start - 1] if start > 0 else 0
    if lead == 0x20 and data[start - 2 : start] == b"  ":
        header = _aligned_header(data, start, {} if blocks is None else blocks)
        if header is not None:  # a cell of aligned columns (``Value``, ``Token``)
            return not benign_words(header) and not _benign_row(data, start, header)
    if quoted and before in _NAME_BYTES and data[i : i + 1] in b" \t":
        return True  # a command's quoted argument: printf '…', echo "…"
    if lead in b" \t" and before in _NAME_BYTES:
        word = _word_before(data, i)
        name = data[word:i]
        if (
            name[:1] == b"-"
            and len(name) >= 2
            and name != b"--"
            and (word == 0 or data[word - 1] in b" \t")
        ):
            return not benign_words(name.lstrip(b"-"))  # a flag's value
        if _line_start(data, word) and _line_end(data, end) and len(name) >= 3:
            return not benign_words(name)  # NAME value, alone on its line
    tab = lead == 0x09 or data[start - 2 : start] == b"\\t"
    if (before in _CELL_SEPARATORS or tab) and _cell_end(data, end):
        header = _column_header(data, start, 0x09 if tab else before)
        return (header is None or not benign_words(header)) and not _benign_row(data, start, header)
    if before == 0x2D and lead in b" \t" and _line_start(data, i - 1) and _line_end(data, end):
        return True  # - value
    if before == 0x3E and data.startswith(b"</", end):
        tag = data[max(0, i - 65) : i - 1]
        opened = tag.rfind(b"<")
        return opened < 0 or not benign_words(tag[opened + 1 :].split(b" ", 1)[0])
    return False


_HEADER_LINES: Final = 40
"""Most lines a table's header is looked for above a cell."""


def _column_header(data: bytes, start: int, sep: int) -> bytes | None:
    """The header of the column whose cell begins at ``start``: the cell at the same index in the
    first line of the table (the lines above holding ``sep``, a Markdown ruler skipped), or None."""
    floor = max(0, start - 4096)
    line_lo = max(break_before(data, floor, start)[0], floor - 1)
    sep_b = bytes([sep]) if sep != 0x09 else b"\t"
    cells_before = data[line_lo + 1 : start].count(sep_b) + (
        data[line_lo + 1 : start].count(b"\\t") if sep == 0x09 else 0
    )
    header: bytes | None = None
    hi = line_lo
    for _ in range(_HEADER_LINES):
        if hi <= 0:
            break
        lo = break_before(data, max(0, hi - 4096), hi)[0]
        line = data[lo + 1 : hi].lstrip(b"\\n")
        head = _JSON_HEAD.match(line)  # a JSON string's first line: its member's name is none
        line = line if head is None else line[head.end() :]
        if sep_b not in line and not (sep == 0x09 and b"\\t" in line):
            break
        if line.strip(b" |-:\t") != b"":
            header = line
        if head is not None:
            break
        hi = lo
    if header is None:
        return None
    cells = header.replace(b"\\t", b"\t").split(sep_b)
    return cells[cells_before].strip(b" \"'") if cells_before < len(cells) else None


_JSON_HEAD: Final = re.compile(rb'[ \t]*(?:[\[{][ \t]*)?"[^"\\\n]{1,64}"[ \t]*:[ \t]*"')
"""The head of a JSON member whose string holds a table's first line (``"output": "``)."""


_Blocks = dict[int, "tuple[int, int] | None"]
"""Per scan: the break that ends a line -> the first line (begin, end) of the block of aligned
lines it ends, or None (``_block_top``)."""


def _aligned_header(data: bytes, start: int, blocks: _Blocks) -> bytes | None:
    """The header of the aligned column whose cell begins at ``start`` (two spaces before it):
    the word that begins at the cell's column in the first line of the block of lines above, each
    with a gap of two spaces between words (raw or JSON-escaped lines; a JSON member's head before
    the first line cut), however far above (``_block_top`` walks each line once); else None."""
    floor = max(0, start - 4096)
    hi, width = break_before(data, floor, start)
    if hi < 0:
        return None
    column = start - hi - width
    top = _block_top(data, hi, blocks)
    if top is None:
        return None
    header = data[top[0] : top[1]]
    if column >= len(header) or header[column] in b" \t":
        return None
    if column > 0 and header[column - 1] != 0x20:
        return None
    return header[column:].split(None, 1)[0].strip(b"\"'|")


def _block_top(data: bytes, hi: int, blocks: _Blocks) -> tuple[int, int] | None:
    """The first line (its begin and end) of the block of lines with a gap of two spaces whose
    last line ends at the break at ``hi``, or None when that line has none. Every line's answer is
    kept in ``blocks``: the rows of a table are walked up once, not once per row."""
    first = hi
    path: list[tuple[int, int, int]] = []  # (break, begin, end) of the lines with a gap, upwards
    top: tuple[int, int] | None = None
    while hi not in blocks:
        lo, width = break_before(data, max(0, hi - 4096), hi)
        begin = lo + width if lo >= 0 else max(0, hi - 4096)
        spend(hi - begin)
        head = _JSON_HEAD.match(data, begin, hi)
        begin = begin if head is None else head.end()
        if b"  " not in data[begin:hi].strip():
            blocks[hi] = None
            break
        path.append((hi, begin, hi))
        if lo < 0 or head is not None:
            break
        hi = lo
    else:
        top = blocks[hi]
    for brk, begin, end in reversed(path):
        top = top or (begin, end)
        blocks[brk] = top
    return blocks[first]


def _benign_row(data: bytes, start: int, header: bytes | None) -> bool:
    """The row holding the cell at ``start``, in a key/value table (its column's ``header`` is
    ``Value``, or none is found), is named by a ``benign_words`` name in its first cell (a
    ``SPAN_ID``, ``checksum`` or ``etag`` row); under another header, the first cell is a value
    of its own column (a user's name)."""
    if header is not None and header.lower().rstrip(b"s") != b"value":
        return False
    lo, width = break_before(data, max(0, start - 4096), start)
    line = data[lo + width if lo >= 0 else max(0, start - 4096) : start]
    head = _JSON_HEAD.match(line)  # the first line of a JSON string: its member's name is none
    line = (line if head is None else line[head.end() :]).lstrip(b" \t|")
    first = re.split(rb"[ \t|,]", line, maxsplit=1)[0].strip(b"\"'")
    return bool(first) and len(first) < len(line) and benign_words(first)


_SGR_OPEN: Final = re.compile(rb"(?:\x1b|\\{1,3}u001[bB]|\\{1,3}x1[bB]|\\{1,3}e)\[\Z")
_SGR_BODY: Final = re.compile(rb"[0-9;]{0,12}m")
_SGR_BEFORE: Final = re.compile(
    rb"(?:\x1b|\\{1,3}u001[bB]|\\{1,3}x1[bB]|\\{1,3}e)\[[0-9;]{0,12}[mK]\Z"
)


def _before_colours(data: bytes, pos: int) -> int:
    """``pos`` moved back over the terminal colour codes right before it (``\x1b[0m \x1b[32m``,
    raw or escaped, with the spaces between), at most four of them."""
    for _ in range(4):
        if pos < 3 or data[pos - 1] not in b"mK":
            return pos
        m = _SGR_BEFORE.search(data, max(0, pos - 24), pos)
        if m is None:
            return pos
        pos = m.start()
    return pos


_MAY_STAND: Final = bytes(
    1 if b in _CONTEXT_BEFORE or b in _CELL_SEPARATORS or b in b">t[mK" else 0 for b in range(256)
)
"""Per byte: whether a run right after it can be a value where a credential stands (the first
test of ``entropy_hits``, and the bytes that make it look further back: an escaped tab's ``t``,
a colour code's ``[``, ``m`` or ``K``). Where runs crowd (one in fewer than ``_CROWDED`` bytes:
wrapped base64, a run a line, each after a line break), the others are left out by one look-up
each before the tests; elsewhere most runs follow such a byte and the look-up would be one more."""
_CROWDED: Final = 256


_EXTENSION: Final = re.compile(
    rb"\.[A-Za-z0-9]{0,4}[A-Za-z][A-Za-z0-9]{0,4}(?=[\s\"'`,;:)\]}?#\\<>|]|\Z)"
)
"""A file's extension ending a path (``.jpg``, ``.AppImage``, ``.tar``), then what ends a word."""
_PORT: Final = re.compile(rb"[0-9]{1,5}/")
_HOST_BYTES: Final = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-_[]"
)
_HEX_BYTES: Final = b"0123456789abcdefABCDEF"


def _file_name_end(data: bytes, end: int) -> bool:
    """A run holding ``/`` ends at a file's extension: the run is a file's path."""
    return end < len(data) and data[end] == 0x2E and _EXTENSION.match(data, end) is not None


def _token_in_path(value: bytes, before: int) -> bool:
    """Under a name (``=``, ``:`` before it), a path one of whose segments reads as a token is
    a value that ends like a file's name (``backup_key: <token>/Qe.txt``); elsewhere (a cell of
    ``md5sum``'s output, a column) a path is a path."""
    if before not in (0x3D, 0x3A):
        return False
    return any(len(piece) >= _TOKEN_PIECE and high_entropy(piece) for piece in _PIECES.split(value))


_PIECES: Final = re.compile(rb"[/_.\-]")
_TOKEN_PIECE: Final = 12
"""A path's piece (between ``/``, ``_``, ``-``, ``.``) this long and random is a token's
(``TheBand_Live2019``'s pieces are words)."""


def _after_host(data: bytes, colon: int) -> bool:
    """The colon at ``colon`` ends a URL's host (``://host`` or ``@host`` before it): a port's."""
    j = colon
    while j > 0 and colon - j < 256 and data[j - 1] in _HOST_BYTES:
        j -= 1
    return j < colon and (data.endswith(b"://", 0, j) or data[j - 1 : j] == b"@")


def _url_path_hits(data: bytes, start: int, end: int) -> list[Hit]:
    """The segments of a URL's path (after its port) that read as a token: random letters and
    digits of ``ENTROPY_MIN_LENGTH`` or more, or hex of a key's length as the path's last segment
    (``/webhook/<token>``); hex in the middle of a path is an item's id (``/Items/<hex>/Images``)."""
    out: list[Hit] = []
    pos = data.index(b"/", start, end) + 1
    while pos < end:
        stop = data.find(b"/", pos, end)
        stop = end if stop < 0 else stop
        segment = data[pos:stop]
        if len(segment) >= ENTROPY_MIN_LENGTH:
            if segment.translate(None, _HEX_BYTES):
                token = high_entropy(segment) and not _base64_of_prose(segment)
            else:
                token = stop == end and random_hex(segment)
            if token:
                out.append(Hit("high-entropy-value", pos, stop, segment))
        pos = stop + 1
    return out


_KEYED_LENGTHS: Final = DIGEST_HEX_LENGTHS - {40}
"""The digests' lengths a name saying key makes a key's: not SHA-1's 40, git's object ids (a
commit under ``release_key:`` is an id)."""
_NAME_GAP: Final = frozenset(b"\"'\\ \t")
"""Between a name, its operator and its value: quotes (JSON-escaped too) and spaces."""


def _named_key(data: bytes, start: int, value: bytes) -> bool:
    """The hex ``value`` at ``start`` is a key's by its name: it follows ``=`` or ``:`` after a
    name saying key (``name_is_key``: ``validationKey``, ``ticketKey``; not ``cacheKey``,
    ``publicKey``, ``checksum/key``), and reads as random hex (``keyed_hex``)."""
    end = start
    while end > 0 and start - end < 12 and data[end - 1] in _NAME_GAP:
        end -= 1
    if end == 0 or data[end - 1] not in b"=:":
        return False
    end -= 1
    while end > 0 and start - end < 24 and data[end - 1] in _NAME_GAP:
        end -= 1
    start_of_name, name = name_before(data, end)
    if not name or digest_prefixed(data, start_of_name) or not keyed_hex(value):
        return False  # checksum/key: a digest of the key
    return name_is_key(name.decode("ascii", "replace"))


def entropy_hits(data: bytes, runs: list[tuple[int, int]]) -> list[Hit]:
    """High-entropy values where a value stands: after ``=``, ``:`` (a header, a YAML or JSON
    key), as a quoted argument, after a flag, in a table's cell, alone after a name on its line,
    as a list's item or an element's text (``_value_position``); never under an identifier's or a
    digest's name, nor an integrity string (``sha512-…``), a prefixed id (``toolu_…``) or image
    data. Hex counts when it is not a digest's length (``random_hex``), or when a name before it
    says key (``_named_key``)."""
    out: list[Hit] = []
    blocks: _Blocks = {}
    if len(runs) * _CROWDED > len(data):
        stands = _MAY_STAND
        runs = [run for run in runs if run[0] == 0 or stands[data[run[0] - 1]]]
    for start, end in runs:
        if (
            start >= 2
            and data[start - 1] == 0x5B
            and _SGR_OPEN.search(data, max(0, start - 8), start) is not None
        ):
            colour = _SGR_BODY.match(
                data, start, end
            )  # \x1b[32mVALUE: the colour's code is no part of it
            start = colour.end() if colour is not None else start
        n = end - start
        if n < ENTROPY_MIN_LENGTH or n > ENTROPY_MAX_LENGTH or data[start] == 0x2F:
            continue  # a path (``/srv/app/…``) is no value: the most common run of a log
        value = data[start:end]
        if value.isdigit():
            continue
        if (
            b"/" in value
            and data[start - 1] == 0x3A
            and _PORT.match(value)
            and _after_host(data, start - 1)
        ):
            out.extend(_url_path_hits(data, start, end))
            continue  # :8096/Items/<id>/Images: a URL's port and path, not a name's value
        hexed: bool | None = None
        if value.islower() or value.isupper():
            hexed = random_hex(value)
            if not hexed:
                if n not in _KEYED_LENGTHS or not _named_key(data, start, value):
                    continue  # hex digests, words (most runs of a text: looked at first)
                hexed = True  # a digest's length, but a name says key (``validationKey="…"``)
        if start > 0 and data[start - 1] in b"mK":
            before_start = _before_colours(data, start)
        else:
            before_start = start
        if (
            start > 0
            and data[before_start - 1] not in _CONTEXT_BEFORE
            and data[start - 1] not in _CELL_SEPARATORS
            and data[start - 1] != 0x3E
            and data[start - 2 : start] != b"\\t"
        ):
            continue  # a line, a path or a word goes on: no credential stands here
        i = anchor = before_start
        while i > 0 and anchor - i < 8 and data[i - 1] in _CONTEXT_SKIP:
            i -= 1
        i = _before_colours(data, i)
        if i < start and data[i] in b"\"'" and i > 0 and data[i - 1] in b"bBrRuUfF":
            k = (
                i - 1 if i < 2 or data[i - 2] not in b"bBrR" else i - 2
            )  # a string's prefix: b'…', rb"…"
            if k == 0 or data[k - 1] in _CONTEXT_SKIP | _CONTEXT_OPENERS | {0x3D, 0x3A}:
                i = k
                while i > 0 and start - i < 12 and data[i - 1] in _CONTEXT_SKIP:
                    i -= 1
        before = data[i - 1] if i > 0 else 0
        if before == 0x3A and _row_colon(data, i - 1):
            continue  # ``12:VALUE``: a read_file or grep row's number, not a name's colon
        if b"/" in value and _file_name_end(data, end) and not _token_in_path(value, before):
            continue  # photos/2025/IMG_0413.jpg beside its md5: a file's path
        quoted = (
            start > 0
            and data[start - 1] in b"\"'`"
            and end < len(data)
            and data[end : end + 1] in (b'"', b"'", b"`", b"\\", b"=")
        )
        if (
            before not in (0x3D, 0x3A)
            and not (quoted and before in _CONTEXT_OPENERS)
            and not _value_position(data, start, end, i, before, quoted=quoted, blocks=blocks)
        ):
            continue
        if hexed is None:
            hexed = random_hex(value)
        if _INTEGRITY.match(value) or _PREFIXED_ID.match(value) or value.startswith(_IMAGE_HEADS):
            continue
        if before in (0x3D, 0x3A) and _benign_name(data, i - 1):
            continue
        if before == 0x3A and _in_envelope(data, start):
            continue  # v1:<nonce>:<ciphertext>, EJ[1:…]: ciphertext for git
        if _id_by_form(data, start, end, i, before, value, hexed):
            continue  # ObjectId('…'), <local@host>, 1:<n>:android:<hex>, |1|salt|hash, a magic
        if hexed and _shaped_as_ids(data, start, end):
            continue  # "z": "753d391ee3f28744" among "id": "33f2675250236623": a node's id
        if not (hexed or high_entropy(value)):
            continue
        if not hexed and _base64_of_prose(value):
            continue  # README_B64=VGhpcyBwcm9qZWN0…: words, encoded (a secret in them is the decoders')
        stop = end
        while stop < len(data) and stop - end < 2 and data[stop] == 0x3D:
            stop += 1
        out.append(Hit("high-entropy-value", start, stop, data[start:stop]))
    return out
