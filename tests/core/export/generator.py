"""A generator of secret forms: syntax × name spelling × value shape × wrapper × location × encoding.

Each axis is a list of ways a credential can appear in a session. A *case* picks one value per
axis, writes the form (``Case.text``), plants it at its location in a session, and names what
must not survive an export (``Case.needles``). ``sample`` draws cases deterministically from the
whole product (``RHO_DESK_FORMS_FULL=1`` walks all of it); ``leak_rates`` exports them and counts,
per axis value, the cases whose needle is still in the exported bytes, and the exports the audit
blocked (redaction and audit disagreeing). docs/security.md reports the table ``leak_table``
prints.

Every value is synthetic and unique to its case (drawn from the case's own seed), so a needle
found in an export can only come from its own form.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import random
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import quote

from rho_desk.core.export import Selection, export_snapshot
from rho_desk.core.wire.model import (
    AbortedAssistant,
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    ModelUsage,
    PartialToolCall,
)
from rho_desk.core.wire.snapshot import SessionSnapshot

IDENTITY = ModelIdentity("openai", "responses", "gpt-5")
KEY = bytes(range(32))

# --- value shapes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """A secret value: its lines (one, or two for a multi-line value) and whether it needs quotes."""

    lines: tuple[str, ...]
    spaces: bool = False

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def flat(self) -> str:
        """The value on one line (a multi-line value's lines joined by a space)."""
        return " ".join(self.lines)


def _mixed(rng: random.Random, n: int) -> str:
    while True:
        v = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))
        if (
            any(c.isdigit() for c in v)
            and any(c.isupper() for c in v)
            and any(c.islower() for c in v)
        ):
            return v


def _letters(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(n)).capitalize()


def _symbols(rng: random.Random) -> str:
    # symbols a shell, YAML or INI would not cut at, in the first eight characters
    return (
        _mixed(rng, 3) + rng.choice("#;&(!%") + _mixed(rng, 3) + rng.choice("@^*~") + _mixed(rng, 4)
    )


SHAPES: dict[str, Callable[[random.Random], Value]] = {
    "random": lambda r: Value((_mixed(r, 20),)),
    "symbols": lambda r: Value((_symbols(r),)),
    "letters": lambda r: Value((_letters(r, 12),)),
    "lowercase": lambda r: Value((_letters(r, 14).lower(),)),
    "spaces": lambda r: Value(
        (f"{_letters(r, 6)} {_letters(r, 5).lower()} {r.randint(2, 9)} {_letters(r, 7).lower()}",),
        spaces=True,
    ),
    "multi-line": lambda r: Value((_mixed(r, 16), _mixed(r, 16))),
    "hex": lambda r: Value(("".join(r.choice("0123456789abcdef") for _ in range(32)),)),
}

# --- name spellings ---------------------------------------------------------------------------------

NAMES: dict[str, str] = {
    "plain": "password",
    "upper-snake": "DB_PASSWORD",
    "camel": "smtpPassword",
    "kebab": "db-passwd",
    "dotted": "spring.datasource.password",
    "api-key": "API_KEY",
    "secret": "client_secret",
    "token": "authToken",
    "passphrase": "passphrase",
}

# --- syntaxes -----------------------------------------------------------------------------------------
# Each takes the name and the value and returns the form's lines. A syntax that holds one line only
# writes a multi-line value flat (its lines joined by a space).


def _q(v: Value, quote_char: str = '"') -> str:
    return f"{quote_char}{v.flat}{quote_char}"


def _plain_or_quoted(v: Value) -> str:
    return _q(v) if v.spaces or len(v.lines) > 1 else v.flat


def _split(v: Value) -> tuple[str, str]:
    """A value written over two lines: its two lines, or a one-line value cut in the middle (at a
    space, for a value with spaces)."""
    if len(v.lines) > 1:
        return v.lines[0], v.lines[1]
    text = v.lines[0]
    cut = text.index(" ") if v.spaces else len(text) // 2
    return text[:cut], text[cut:].lstrip()


def _indented(lines: tuple[str, ...], pad: str) -> list[str]:
    return [pad + line for line in lines]


def _ident(name: str) -> str:
    return name.replace(".", "_").replace("-", "_")


SYNTAXES: dict[str, Callable[[str, Value], list[str]]] = {
    "env": lambda n, v: [f"{n}={_q(v, chr(39)) if v.spaces or len(v.lines) > 1 else v.flat}"],
    "export": lambda n, v: [f"export {n}='{v.flat}'"],
    "yaml": lambda n, v: ["database:", f"  {n}: {v.flat}", "  port: 5432"],
    "yaml-quoted": lambda n, v: ["database:", f'  {n}: "{v.flat}"'],
    "yaml-literal": lambda n, v: [
        "auth:",
        f"  {n}: |",
        *_indented(v.lines, "    "),
        "  retries: 3",
    ],
    "yaml-folded": lambda n, v: [
        "auth:",
        f"  {n}: >-",
        *_indented(v.lines, "    "),
        "  retries: 3",
    ],
    "yaml-continued": lambda n, v: [
        "auth:",
        f'  {n}: "{_split(v)[0]}',
        f'    {_split(v)[1]}"',
        "  retries: 3",
    ],
    "yaml-env-list": lambda n, v: [
        "services:",
        "  app:",
        "    environment:",
        f"      - {n}={v.flat}",
        "      - MODE=production",
    ],
    "k8s-env": lambda n, v: [
        "env:",
        f"  - name: {n}",
        f"    value: {_plain_or_quoted(v)}",
        "  - name: MODE",
        "    value: production",
    ],
    "toml": lambda n, v: ["[database]", f'{n} = "{v.flat}"', "port = 5432"],
    "toml-multiline": lambda n, v: ["[database]", f'{n} = """', *v.lines, '"""'],
    "hcl": lambda n, v: ['resource "db_instance" "main" {', f'  {n} = "{v.flat}"', "}"],
    "hcl-heredoc": lambda n, v: [
        'resource "db_instance" "main" {',
        f"  {n} = <<EOT",
        *v.lines,
        "EOT",
        "}",
    ],
    "hcl-heredoc-indent": lambda n, v: [
        'resource "db_instance" "main" {',
        f"  {n} = <<-EOT",
        *_indented(v.lines, "    "),
        "  EOT",
        "}",
    ],
    "json": lambda n, v: [json.dumps({"user": "app", n: v.text})],
    "json-pretty": lambda n, v: json.dumps({"user": "app", n: v.text}, indent=2).splitlines(),
    "json-parent": lambda n, v: json.dumps(
        {"outputs": {n: {"value": v.text, "type": "string"}}}, indent=2
    ).splitlines(),
    "terraform-sensitive": lambda n, v: json.dumps(
        {"outputs": {"primary": {"sensitive": True, "type": "string", "value": v.text}}}, indent=2
    ).splitlines(),
    "ini": lambda n, v: ["[client]", f"{n} = {v.flat}", "host = db.internal"],
    "properties-continued": lambda n, v: [
        f"{n}={_split(v)[0]}\\",
        f"    {_split(v)[1]}",
        "host=db.internal",
    ],
    "systemd": lambda n, v: ["[Service]", f'Environment="{n}={v.flat}"', "ExecStart=/usr/bin/app"],
    "dockerfile": lambda n, v: ["FROM mysql:8", f"ENV {n} {v.flat}", "EXPOSE 3306"],
    "name-value": lambda n, v: ["port 6379", f"{n} {_plain_or_quoted(v)}", "appendonly yes"],
    "xml-element": lambda n, v: ["<server>", f"  <{n}>{v.flat}</{n}>", "</server>"],
    "xml-attribute": lambda n, v: [f'<datasource url="jdbc:db://h/app" {n}="{v.flat}" />'],
    "xml-name-value": lambda n, v: [
        "<property>",
        f"  <name>{n}</name>",
        f"  <value>{v.flat}</value>",
        "</property>",
    ],
    "sql-set-password": lambda n, v: [f"SET PASSWORD FOR 'app'@'%' = '{v.flat}';"],
    "sql-create-user": lambda n, v: [f"CREATE USER app WITH PASSWORD '{v.flat}';"],
    "csv": lambda n, v: [
        f"user,{n},host",
        f'app,"{v.flat}",db.internal' if v.spaces else f"app,{v.flat},db.internal",
    ],
    "tsv": lambda n, v: [f"user\t{n}\thost", f"app\t{v.flat}\tdb.internal"],
    "markdown-table": lambda n, v: [
        f"| user | {n} | host |",
        "| --- | --- | --- |",
        f"| app | {v.flat} | db.internal |",
    ],
    "aligned-key-value": lambda n, v: [
        "====== Data ======",
        "Key          Value",
        "---          -----",
        f"{n}     {v.flat}",
        "user         app",
    ],
    "cli-flag": lambda n, v: [
        f"deploy-tool --{n.replace('_', '-').replace('.', '-').lower()} {_q(v, chr(39)) if v.spaces or len(v.lines) > 1 else v.flat} --region eu"
    ],
    # command lines: a client's password option glued or separate, user:pass, user/pass@db, stdin
    "cli-glued": lambda n, v: [
        f"mysql -h db.internal -u app -p{_q(v, chr(39)) if v.spaces or len(v.lines) > 1 else v.flat} appdb"
    ],
    "cli-separate": lambda n, v: [
        f"sshpass -p {_q(v, chr(39)) if v.spaces or len(v.lines) > 1 else v.flat} ssh deploy@db.internal"
    ],
    "cli-user-pass": lambda n, v: [
        f"curl -sS -u {_q(Value(('app:' + v.flat,)), chr(39)) if v.spaces or len(v.lines) > 1 else 'app:' + v.flat} https://api.internal/v1"
    ],
    "cli-position": lambda n, v: [f'sqlplus -s "app/{v.flat}@db.internal:1521/APP"'],
    "cli-stdin": lambda n, v: [
        f"echo '{v.flat}' | docker login -u app --password-stdin registry.internal"
    ],
    # the value on the lines after its name's (issue 31, cause 1)
    "yaml-next-line": lambda n, v: [
        "database:",
        f"  {n}:",
        f"    {_plain_or_quoted(v)}",
        "  port: 5432",
    ],
    "json-next-line": lambda n, v: [
        "{",
        f'  "{n}":',
        f"    {json.dumps(v.text)},",
        '  "port": 5432',
        "}",
    ],
    "ini-next-line": lambda n, v: ["[client]", f"{n} =", f"    {v.flat}", "host = db.internal"],
    "sql-next-line": lambda n, v: [
        "CREATE ROLE app WITH LOGIN",
        "  PASSWORD",
        f"  '{v.flat}'",
        "  VALID UNTIL '2027-01-01';",
    ],
    "php-nowdoc": lambda n, v: [f"${_ident(n)} = <<<'EOT'", *v.lines, "EOT;"],
    "lua-long-string": lambda n, v: [f"local {_ident(n)} = [[", *v.lines, "]]"],
    "rust-raw-string": lambda n, v: [f'let {_ident(n)} = r#"', *v.lines, '"#;'],
    "string-concat": lambda n, v: [f'{_ident(n)} = "{_split(v)[0]}" +', f'    "{_split(v)[1]}";'],
    "paren-concat": lambda n, v: [
        f"{_ident(n)} = (",
        f'    "{_split(v)[0]}"',
        f'    "{_split(v)[1]}"',
        ")",
    ],
    "python-kwarg": lambda n, v: [
        f'client = Client(user="app", {n.replace(".", "_").replace("-", "_")}="{v.flat}")'
    ],
    "js-object": lambda n, v: ["const config = {", f'  "{n}": "{v.flat}",', "};"],
    "php-array": lambda n, v: [f"'{n}' => '{v.flat}',"],
}

# --- wrappers: how a tool shows the lines ------------------------------------------------------------


def _numbered(fmt: str) -> Callable[[list[str]], list[str]]:
    return lambda lines: [fmt.format(n=i + 1, line=line) for i, line in enumerate(lines)]


WRAPPERS: dict[str, Callable[[list[str]], list[str]]] = {
    "none": lambda lines: lines,
    "read_file rows": _numbered("{n}:{line}"),
    "arrow rows": _numbered("{n:>6}\u2192{line}"),
    "cat -n rows": _numbered("{n:>6}\t{line}"),
    "grep rows": _numbered("config/app.conf:{n}:{line}"),
    "diff added": lambda lines: [
        "--- a/app.conf",
        "+++ b/app.conf",
        f"@@ -0,0 +1,{len(lines)} @@",
        *(f"+{line}" for line in lines),
    ],
    "diff context": lambda lines: [
        "@@ -1,9 +1,9 @@",
        " # settings",
        *(f" {line}" for line in lines),
        "-old = 1",
        "+old = 2",
    ],
    "hashline": lambda lines: ["[config/app.conf#1A2B]", "PUT 3:", *(f"+{line}" for line in lines)],
}

# --- encodings ------------------------------------------------------------------------------------


def _b64(text: str) -> str:
    raw = base64.b64encode(text.encode()).decode()
    return "\n".join(raw[i : i + 76] for i in range(0, len(raw), 76))


ENCODINGS: dict[str, Callable[[str], str]] = {
    "plain": lambda text: text,
    "json string": lambda text: json.dumps({"body": text}),
    "base64": _b64,
    "percent": lambda text: quote(text, safe=""),
}

LOCATIONS = (
    "user",
    "tool result",
    "arguments",
    "title",
    "cwd",
    "reasoning",
    "metadata",
    "aborted call",
)

AXES: dict[str, tuple[str, ...]] = {
    "syntax": tuple(SYNTAXES),
    "name": tuple(NAMES),
    "shape": tuple(SHAPES),
    "wrapper": tuple(WRAPPERS),
    "location": LOCATIONS,
    "encoding": tuple(ENCODINGS),
}

# --- cases ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    index: int
    axes: dict[str, str]
    text: str
    needles: tuple[str, ...]
    """Strings of which none may survive an export."""


SPLIT: frozenset[str] = frozenset(
    {"yaml-continued", "properties-continued", "string-concat", "paren-concat"}
)
"""Syntaxes that cut a one-line value over two lines (``_split``)."""


def _needles(value: Value, syntax: str, encoding: str, plain: str, text: str) -> tuple[str, ...]:
    pieces = _split(value) if syntax in SPLIT else value.lines
    parts = [
        word
        for piece in pieces
        for word in ([piece] if " " not in piece else piece.split(" "))
        if len(word) >= 5
    ]
    if encoding == "base64":
        # the lines of base64 that encode a byte of the value
        raw = plain.encode()
        lines = text.split("\n")
        out = []
        for part in parts:
            at = raw.find(part.encode())
            end = at + len(
                part.encode()
            )  # base64 characters [4 * at // 3, ceil(4 * end / 3)) hold it
            first, last = at * 4 // 3 // 76, (-(-4 * end // 3) - 1) // 76
            out += [line for line in lines[first : last + 1] if line not in out]
        return tuple(out)
    if encoding == "json string":
        return tuple(json.dumps(p)[1:-1] for p in parts)
    if encoding == "percent":
        return tuple(quote(p, safe="") for p in parts)
    return tuple(parts)


def make_case(index: int, axes: dict[str, str]) -> Case:
    rng = random.Random(index * 7919 + 31)
    value = SHAPES[axes["shape"]](rng)
    lines = SYNTAXES[axes["syntax"]](NAMES[axes["name"]], value)
    text = "\n".join(
        WRAPPERS[axes["wrapper"]]([line for chunk in lines for line in chunk.split("\n")])
    )
    encoded = ENCODINGS[axes["encoding"]](text)
    return Case(
        index, dict(axes), encoded, _needles(value, axes["syntax"], axes["encoding"], text, encoded)
    )


def _total() -> int:
    n = 1
    for values in AXES.values():
        n *= len(values)
    return n


def _at(index: int) -> dict[str, str]:
    """The ``index``-th combination of the product (mixed radix over ``AXES``)."""
    out = {}
    for axis, values in AXES.items():
        index, k = divmod(index, len(values))
        out[axis] = values[k]
    return out


DEFAULT_SAMPLE = 1200


def sample(count: int | None = None, seed: int = 31) -> list[Case]:
    """``count`` cases drawn from the whole product (each axis value equally often, up to one),
    the same every run; all of them with ``RHO_DESK_FORMS_FULL=1``."""
    total = _total()
    if count is None:
        count = total if os.environ.get("RHO_DESK_FORMS_FULL") else DEFAULT_SAMPLE
    if count >= total:
        indices: list[int] | range = range(total)
    else:
        # stratified: walk the axes round-robin so each value of each axis is drawn about equally
        rng = random.Random(seed)
        indices = []
        seen: set[int] = set()
        for i in itertools.count():
            if len(indices) >= count:
                break
            combo = {
                axis: values[(i + rng.randrange(len(values))) % len(values)]
                for axis, values in AXES.items()
            }
            index = _index_of(combo)
            if index not in seen:
                seen.add(index)
                indices.append(index)
    return [make_case(i, _at(i)) for i in indices]


def _index_of(combo: dict[str, str]) -> int:
    index = 0
    scale = 1
    for axis, values in AXES.items():
        index += values.index(combo[axis]) * scale
        scale *= len(values)
    return index


# --- planting and exporting ---------------------------------------------------------------------------


def _messages(case: Case) -> tuple[list[Message], dict[str, str]]:
    where = case.axes["location"]
    text = case.text
    cid = f"call-{case.index}"
    if where == "user":
        return [Message.user_text(text)], {}
    if where == "tool result":
        call = ContentBlock.of_tool_call(cid, "read_file", {"path": "config/app.conf"})
        return [
            Message.enriched(AssistantMessage(content=(call,), provenance=IDENTITY)),
            Message.result(cid, True, text),
        ], {}
    if where == "arguments":
        call = ContentBlock.of_tool_call(cid, "write", {"path": "config/app.conf", "content": text})
        return [
            Message.enriched(AssistantMessage(content=(call,), provenance=IDENTITY)),
            Message.result(cid, True, "ok"),
        ], {}
    if where == "reasoning":
        return [
            Message.enriched(
                AssistantMessage(
                    content=(ContentBlock.of_text("Done."),),
                    provenance=IDENTITY,
                    reasoning_summary=text,
                )
            )
        ], {}
    if where == "aborted call":
        partial = PartialToolCall(
            id=cid,
            name="write",
            arguments=json.dumps({"path": "config/app.conf", "content": text})[:-1],
        )
        aborted = AbortedAssistant(
            content=(ContentBlock.of_text("Writing"),),
            reasoning="",
            provenance=IDENTITY,
            tool_calls=(partial,),
            usage=ModelUsage(input_tokens=10),
        )
        return [Message.aborted(aborted)], {}
    if where == "title":
        return [], {"title": text}
    if where == "cwd":
        return [], {"cwd": text}
    assert where == "metadata"
    return [], {f"note.{case.index}": text}


def session_of(cases: list[Case]) -> SessionSnapshot:
    """One session holding every case at its location (each in messages or keys of its own)."""
    history: list[Message] = [Message.system_text("You are Rho.")]
    metadata: dict[str, str] = {}
    for case in cases:
        messages, meta = _messages(case)
        history.append(Message.user_text(f"case {case.index}"))
        history += messages
        for k, v in meta.items():
            metadata[k if k not in metadata else f"{k}.{case.index}"] = v
    return SessionSnapshot.new("gen-0000", 1, history, IDENTITY, metadata=metadata)


@dataclass
class Outcome:
    case: Case
    leaked: bool
    blocked: bool
    fmt: str


@dataclass
class Rates:
    """Per axis value: cases, leaks, and exports the audit blocked."""

    cases: dict[tuple[str, str], int] = field(default_factory=dict)
    leaks: dict[tuple[str, str], int] = field(default_factory=dict)
    blocked: dict[tuple[str, str], int] = field(default_factory=dict)
    outcomes: list[Outcome] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)
        for axis, value in outcome.case.axes.items():
            key = (axis, value)
            self.cases[key] = self.cases.get(key, 0) + 1
            self.leaks[key] = self.leaks.get(key, 0) + outcome.leaked
            self.blocked[key] = self.blocked.get(key, 0) + outcome.blocked

    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.leaked or o.blocked]


BATCH = 40
"""Cases per exported session (each its own messages: a batch exports once)."""


def _batches(cases: list[Case]) -> Iterator[list[Case]]:
    for i in range(0, len(cases), BATCH):
        yield cases[i : i + BATCH]


def leak_rates(cases: list[Case], formats: tuple[str, ...] = ("json", "markdown", "html")) -> Rates:
    """Export the cases (in batches) in each format; a case leaks when one of its needles is in the
    exported bytes, and is blocked when its batch's export was blocked (the batch is then exported
    case by case to tell which). Markdown and HTML show no metadata but the title, nor partial calls."""
    rates = Rates()
    for fmt in formats:
        for batch in _batches(cases):
            result = export_snapshot(session_of(batch), Selection.everything(), key=KEY, fmt=fmt)
            for case in batch:
                blocked = False
                if result.blocked:
                    alone = export_snapshot(
                        session_of([case]), Selection.everything(), key=KEY, fmt=fmt
                    )
                    blocked = alone.blocked
                data = result.data if not result.blocked else alone.data
                text = data.decode("utf-8", "replace")
                if fmt == "json":
                    leaked = any(json.dumps(n)[1:-1] in text for n in case.needles)
                elif fmt == "html":
                    import html

                    text = html.unescape(text)
                    leaked = any(n in text for n in case.needles)
                else:
                    leaked = any(n in text for n in case.needles)
                rates.add(Outcome(case, leaked, blocked, fmt))
    return rates


def leak_table(rates: Rates) -> str:
    """The Markdown table docs/security.md shows: per axis value, cases (case × format), leaks,
    blocked exports."""
    lines = ["| axis | value | exports | leaked | blocked |", "| --- | --- | ---: | ---: | ---: |"]
    for axis, values in AXES.items():
        for value in values:
            key = (axis, value)
            lines.append(
                f"| {axis} | {value} | {rates.cases.get(key, 0)} | {rates.leaks.get(key, 0)} | {rates.blocked.get(key, 0)} |"
            )
    return "\n".join(lines)
