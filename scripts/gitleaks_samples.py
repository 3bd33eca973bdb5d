"""Extract gitleaks' per-rule true- and false-positive samples into a JSON fixture.

gitleaks (MIT) defines each rule in Go under ``cmd/generate/config/rules/*.go`` and checks it with
``utils.Validate(rule, truePositives, falsePositives)``. Many samples are built at run time:
``utils.GenerateSampleSecrets(identifier, secret)`` puts a secret into some thirty assignment
templates, ``secrets.NewSecret(regex)`` draws a random string matching a regex. This script reads
the Go sources of one commit from a git directory and evaluates the sample expressions with a small
interpreter of the Go they use (string literals, ``+``, slices, maps, ``append``, ``fmt.Sprintf``,
``range`` loops, base64, the ``utils`` and ``secrets`` helpers), drawing random strings from a
generator seeded by the rule's function name, so the output is the same on every run.

A sample whose value the interpreter cannot compute is left out and counted under ``skipped``
with the reason. The fixture records the commit, its date and gitleaks' licence text.

    python scripts/gitleaks_samples.py GIT_DIR [COMMIT] > tests/fixtures/gitleaks/samples.json

``GIT_DIR`` is a clone (or bare mirror) of github.com/gitleaks/gitleaks; ``COMMIT`` defaults to HEAD.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

try:  # Python 3.11+
    import re._constants as sre_constants  # type: ignore[import-not-found]
    import re._parser as sre_parse  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

RULES_DIR = "cmd/generate/config/rules"
REPOSITORY = "https://github.com/gitleaks/gitleaks"


# --- reading the sources -------------------------------------------------------------------------


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", git_dir, *args], check=True, capture_output=True, text=True
    ).stdout


# --- tokens ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tok:
    kind: str  # str, int, ident, op, ;
    value: str


_OPS = sorted(
    [
        ":=",
        "...",
        "==",
        "!=",
        "&&",
        "||",
        "+=",
        "<-",
        "<=",
        ">=",
        "++",
        "--",
        "+",
        "-",
        "*",
        "/",
        "%",
        "&",
        "|",
        "!",
        "<",
        ">",
        "=",
        ":",
        ",",
        ".",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "^",
        "#",
        "~",
        "?",
        "@",
        "$",
        "\\",
    ],
    key=len,
    reverse=True,
)
_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
}


def _go_string(text: str, i: int) -> tuple[str, int]:
    """An interpreted string literal starting at ``text[i] == '"'``: its value and the index after it."""
    out = []
    i += 1
    while text[i] != '"':
        c = text[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = text[i + 1]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e == "x":
            out.append(chr(int(text[i + 2 : i + 4], 16)))
            i += 4
        elif e == "u":
            out.append(chr(int(text[i + 2 : i + 6], 16)))
            i += 6
        elif e == "U":
            out.append(chr(int(text[i + 2 : i + 10], 16)))
            i += 10
        elif e in "01234567":
            out.append(chr(int(text[i + 1 : i + 4], 8)))
            i += 4
        else:
            raise SyntaxError(f"escape \\{e}")
    return "".join(out), i + 1


def tokens(text: str) -> list[Tok]:
    """Go tokens, with Go's automatic semicolons at line ends."""
    out: list[Tok] = []
    i = 0
    n = len(text)

    def newline() -> None:
        if out and (
            out[-1].kind in ("str", "int", "ident") or out[-1].value in (")", "]", "}", "++", "--")
        ):
            out.append(Tok(";", ";"))

    while i < n:
        c = text[i]
        if c == "\n":
            newline()
            i += 1
        elif c in " \t\r":
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.index("*/", i)
            if "\n" in text[i:j]:
                newline()
            i = j + 2
        elif c == '"':
            value, i = _go_string(text, i)
            out.append(Tok("str", value))
        elif c == "`":
            j = text.index("`", i + 1)
            out.append(Tok("str", text[i + 1 : j].replace("\r", "")))
            i = j + 1
        elif c == "'":
            j = text.index("'", i + 1)
            while text[j - 1] == "\\" and text[j - 2] != "\\":
                j = text.index("'", j + 1)
            out.append(Tok("int", text[i : j + 1]))
            i = j + 1
        elif c.isdigit():
            m = re.compile(r"[0-9a-fA-FxX_.]+").match(text, i)
            assert m is not None
            out.append(Tok("int", m.group()))
            i = m.end()
        elif c.isalpha() or c == "_":
            m = re.compile(r"\w+").match(text, i)
            assert m is not None
            out.append(Tok("ident", m.group()))
            i = m.end()
        elif c == ";":
            out.append(Tok(";", ";"))
            i += 1
        else:
            for op in _OPS:
                if text.startswith(op, i):
                    out.append(Tok("op", op))
                    i += len(op)
                    break
            else:
                raise SyntaxError(f"character {c!r}")
    newline()
    return out


# --- syntax ------------------------------------------------------------------------------------------


class Unsupported(Exception):
    """A construct the interpreter does not evaluate."""


@dataclass
class Node:
    kind: str
    args: list[Any] = field(default_factory=list)


class Parser:
    def __init__(self, toks: list[Tok]) -> None:
        self.toks = toks
        self.i = 0

    def peek(self, k: int = 0) -> Tok:
        return self.toks[self.i + k] if self.i + k < len(self.toks) else Tok("eof", "")

    def next(self) -> Tok:
        tok = self.peek()
        self.i += 1
        return tok

    def accept(self, value: str) -> bool:
        if self.peek().value == value and self.peek().kind in ("op", ";", "ident"):
            self.i += 1
            return True
        return False

    def expect(self, value: str) -> None:
        if not self.accept(value):
            raise SyntaxError(f"expected {value!r}, found {self.peek()}")

    def skip_balanced(self) -> None:
        """Skip from an opening bracket to its closing one."""
        depth = 0
        while True:
            tok = self.next()
            if tok.kind == "op" and tok.value in "([{":
                depth += 1
            elif tok.kind == "op" and tok.value in ")]}":
                depth -= 1
                if depth == 0:
                    return

    # top level

    def file(self) -> Iterator[tuple[str, Any]]:
        while self.peek().kind != "eof":
            tok = self.next()
            if tok.value == "func":
                if self.peek().value == "(":
                    self.skip_balanced()  # a method receiver
                name = self.next().value
                params = self.params()
                while self.peek().value != "{":
                    self.next()  # the result type
                yield "func", (name, params, self.block())
            elif tok.value in ("var", "const") and self.peek().value != "(":
                name = self.next().value
                yield "var", (name, self.var_rest())
            elif tok.value in ("var", "const"):
                self.expect("(")
                while not self.accept(")"):
                    if self.accept(";"):
                        continue
                    name = self.next().value
                    yield "var", (name, self.var_rest())
            elif tok.value == "import" and self.peek().value == "(":
                self.skip_balanced()

    def var_rest(self) -> Any:
        """After ``var NAME``: an optional type, then ``= expr`` (or nothing)."""
        if self.accept("="):
            return self.expr()
        self.type_()
        if self.accept("="):
            return self.expr()
        return Node("zero")

    def params(self) -> list[str]:
        self.expect("(")
        names: list[str] = []
        group: list[str] = []
        while not self.accept(")"):
            tok = self.next()
            if tok.kind == "ident" and self.peek().value in (",", ")") and not group:
                names.append(tok.value)
            elif tok.kind == "ident" and not group:
                names.append(tok.value)
                group.append(tok.value)
                self.type_()
                group.clear()
            if self.peek().value == ",":
                self.next()
        return names

    def block(self) -> list[Any]:
        self.expect("{")
        stmts = []
        while not self.accept("}"):
            if self.accept(";"):
                continue
            stmts.append(self.stmt())
        return stmts

    def stmt(self) -> Any:
        tok = self.peek()
        if tok.value == "return" and tok.kind == "ident":
            self.next()
            if self.peek().kind == ";" or self.peek().value == "}":
                return Node("return", [None])
            return Node("return", [self.expr_list()])
        if tok.value in ("var", "const") and tok.kind == "ident":
            self.next()
            if not self.accept("("):
                name = self.next().value
                return Node("define", [[name], [self.var_rest()]])
            group = []
            while not self.accept(")"):
                if self.accept(";"):
                    continue
                name = self.next().value
                group.append(Node("define", [[name], [self.var_rest()]]))
            return Node("group", group)
        if tok.value == "for" and tok.kind == "ident":
            self.next()
            return self.for_()
        if tok.value in ("if", "switch", "select", "go", "defer") and tok.kind == "ident":
            self.next()
            while self.peek().value != "{":
                self.next()
            self.skip_balanced()
            while self.peek().value == "else":
                self.next()
                while self.peek().value != "{":
                    self.next()
                self.skip_balanced()
            return Node("unsupported", [tok.value])
        if tok.value in ("continue", "break") and tok.kind == "ident":
            self.next()
            return Node(tok.value)
        left = self.expr_list()
        for op in (":=", "=", "+="):
            if self.accept(op):
                return Node(
                    {":=": "define", "=": "assign", "+=": "append_assign"}[op],
                    [left, self.expr_list()],
                )
        if self.accept("++") or self.accept("--"):
            return Node("unsupported", ["++"])
        return Node("expr", [left])

    def for_(self) -> Any:
        # for k, v := range X {  |  for _, v := range X {  |  for {  |  for cond {
        header: list[Tok] = []
        while self.peek().value != "{":
            header.append(self.next())
        body = self.block()
        values = [t.value for t in header]
        if "range" in values and ":=" in values:
            names = [v for v in values[: values.index(":=")] if v != ","]
            sub = Parser(header[values.index("range") + 1 :])
            return Node("range", [names, sub.expr(), body])
        return Node("loop", [header, body])

    def expr_list(self) -> list[Any]:
        out = [self.expr()]
        while self.accept(","):
            out.append(self.expr())
        return out

    # expressions

    _BINARY: Final = frozenset(
        {"+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "|", "&", "^"}
    )

    def expr(self) -> Any:
        left = self.unary()
        while self.peek().kind == "op" and self.peek().value in self._BINARY:
            op = self.next().value
            left = Node("binary", [op, left, self.unary()])
        return left

    def unary(self) -> Any:
        if self.peek().kind == "op" and self.peek().value in ("&", "-", "!", "*", "<-", "^"):
            op = self.next().value
            return Node("unary", [op, self.unary()])
        return self.primary()

    def type_(self) -> Any:
        tok = self.peek()
        if tok.value == "[":
            self.next()
            if self.accept("]"):
                return Node("slice_type", [self.type_()])
            self.expr()
            self.expect("]")
            return Node("array_type", [self.type_()])
        if tok.value == "map":
            self.next()
            self.expect("[")
            key = self.type_()
            self.expect("]")
            return Node("map_type", [key, self.type_()])
        if tok.value == "*":
            self.next()
            return Node("pointer_type", [self.type_()])
        if tok.value == "func":
            self.next()
            self.skip_balanced()
            if self.peek().value == "(":
                self.skip_balanced()
            elif self.peek().kind == "ident" or self.peek().value in ("[", "*"):
                self.type_()
            return Node("func_type")
        if tok.value == "struct" or tok.value == "interface":
            self.next()
            self.skip_balanced()
            return Node("named_type", [tok.value])
        name = self.next().value
        while self.peek().value == "." and self.peek(1).kind == "ident":
            self.next()
            name += "." + self.next().value
        return Node("named_type", [name])

    def primary(self) -> Any:
        tok = self.peek()
        if tok.kind == "str":
            self.next()
            node: Any = Node("str", [tok.value])
        elif tok.kind == "int":
            self.next()
            node = Node("int", [tok.value])
        elif tok.value == "(":
            self.next()
            node = self.expr()
            self.expect(")")
        elif tok.value in ("[", "map") or (tok.value == "struct" and tok.kind == "ident"):
            typ = self.type_()
            if self.peek().value == "{":
                node = Node("composite", [typ, self.elements()])
            else:
                node = Node("type", [typ])
        elif tok.value == "func" and tok.kind == "ident":
            self.next()
            self.skip_balanced()  # parameters
            while self.peek().value != "{":
                self.next()
            self.skip_balanced()
            node = Node("funclit")
        elif tok.kind == "ident":
            self.next()
            node = Node("name", [tok.value])
        else:
            raise SyntaxError(f"unexpected {tok}")
        while True:
            tok = self.peek()
            if tok.value == "." and self.peek(1).kind == "ident":
                self.next()
                node = Node("select", [node, self.next().value])
            elif tok.value == "." and self.peek(1).value == "(":
                self.next()
                self.skip_balanced()  # a type assertion
                node = Node("unsupported", ["type assertion"])
            elif tok.value == "(":
                self.next()
                args = []
                spread = False
                while not self.accept(")"):
                    if (
                        self.peek().value in ("[", "map", "*")
                        and node.kind == "name"
                        and node.args[0] in ("make", "new")
                    ):
                        args.append(Node("type", [self.type_()]))
                    else:
                        args.append(self.expr())
                    if self.accept("..."):
                        spread = True
                    self.accept(",")
                node = Node("call", [node, args, spread])
            elif tok.value == "[":
                self.next()
                lo = None if self.peek().value == ":" else self.expr()
                if self.accept(":"):
                    hi = None if self.peek().value == "]" else self.expr()
                    self.expect("]")
                    node = Node("slice", [node, lo, hi])
                else:
                    self.expect("]")
                    node = Node("index", [node, lo])
            elif tok.value == "{" and node.kind in ("name", "select") and self._composite_ok(node):
                node = Node("composite", [node, self.elements()])
            else:
                return node

    @staticmethod
    def _composite_ok(node: Node) -> bool:
        name = node.args[0] if node.kind == "name" else node.args[1]
        return (isinstance(name, str) and name[:1].isupper()) or node.kind == "select"

    def elements(self) -> list[tuple[Any, Any]]:
        self.expect("{")
        out: list[tuple[Any, Any]] = []
        while not self.accept("}"):
            if self.accept(";"):
                continue
            first = self.elements_value()
            if self.accept(":"):
                out.append((first, self.elements_value()))
            else:
                out.append((None, first))
            self.accept(",")
            self.accept(";")
        return out

    def elements_value(self) -> Any:
        if self.peek().value == "{":
            return Node("composite", [None, self.elements()])
        return self.expr()


# --- values ----------------------------------------------------------------------------------------


class Sample(str):
    """A sample string that knows the secret it was built around (``GenerateSampleSecrets``)."""

    secret: str | None = None


def _sample(text: str, secret: str | None) -> Sample:
    s = Sample(text)
    s.secret = secret
    return s


@dataclass
class Unknown:
    """A value the interpreter could not compute, and why."""

    reason: str


@dataclass
class GoFunc:
    name: str
    params: list[str]
    body: list[Any]


class Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class Captured(Exception):
    pass


# --- random strings from a regex (what secrets.NewSecret does) ---------------------------------------

_PRINTABLE = [chr(c) for c in range(0x21, 0x7F)]
_WORD = string.ascii_letters + string.digits + "_"
_CATEGORIES = {
    sre_constants.CATEGORY_DIGIT: string.digits,
    sre_constants.CATEGORY_WORD: _WORD,
    sre_constants.CATEGORY_SPACE: " ",
    sre_constants.CATEGORY_NOT_DIGIT: string.ascii_letters,
    sre_constants.CATEGORY_NOT_WORD: "-.+",
    sre_constants.CATEGORY_NOT_SPACE: string.ascii_letters,
}
REPEAT_LIMIT = 1
"""Extra repetitions drawn for an unbounded repeat (``+``, ``*``, ``{n,}``); gitleaks calls
``reggen``'s ``Generate(1)``."""


def _class_chars(items: list[Any]) -> list[str]:
    chars: list[str] = []
    negate = False
    for op, arg in items:
        if op is sre_constants.NEGATE:
            negate = True
        elif op is sre_constants.LITERAL:
            chars.append(chr(arg))
        elif op is sre_constants.RANGE:
            chars.extend(chr(c) for c in range(arg[0], arg[1] + 1))
        elif op is sre_constants.CATEGORY:
            chars.extend(_CATEGORIES[arg])
        else:
            raise Unsupported(f"class item {op}")
    if negate:
        excluded = set(chars)
        return [c for c in _PRINTABLE if c not in excluded]
    return sorted(set(chars))


def _generate(items: Any, rng: random.Random, out: list[str]) -> None:
    for op, arg in items:
        if op is sre_constants.LITERAL:
            out.append(chr(arg))
        elif op is sre_constants.NOT_LITERAL:
            out.append(rng.choice([c for c in _PRINTABLE if ord(c) != arg]))
        elif op is sre_constants.ANY:
            out.append(rng.choice(_PRINTABLE))
        elif op is sre_constants.IN:
            out.append(rng.choice(_class_chars(arg)))
        elif op in (
            sre_constants.MAX_REPEAT,
            sre_constants.MIN_REPEAT,
            getattr(sre_constants, "POSSESSIVE_REPEAT", None),
        ):
            lo, hi, sub = arg
            hi = lo + REPEAT_LIMIT if hi is sre_constants.MAXREPEAT else hi
            for _ in range(rng.randint(lo, hi)):
                _generate(sub, rng, out)
        elif op is sre_constants.SUBPATTERN:
            _generate(arg[-1], rng, out)
        elif op is sre_constants.BRANCH:
            _generate(rng.choice(arg[1]), rng, out)
        elif op is sre_constants.AT:
            pass  # anchors and \b generate nothing
        elif op is sre_constants.CATEGORY:
            out.append(rng.choice(_CATEGORIES[arg]))
        else:
            raise Unsupported(f"regex operator {op}")


def new_secret(regex: str, rng: random.Random) -> str:
    if "[:" in regex or "\\p" in regex:
        raise Unsupported("POSIX or Unicode class in a generated secret")
    parsed = sre_parse.parse(regex.replace("\\z", "\\Z"))
    out: list[str] = []
    _generate(parsed, rng, out)
    return "".join(out)


# --- the helpers gitleaks' rule files call ------------------------------------------------------------

# utils.GenerateSampleSecrets' templates (cmd/generate/config/utils/generate.go), in source order
_SAMPLE_TEMPLATE_RE = re.compile(r'^\s*"([^"]+)":\s*(.+?),\s*$', re.MULTILINE)


def sample_templates(source: str) -> list[tuple[str, str]]:
    """The ``name: template`` pairs of ``GenerateSampleSecrets`` (commented-out ones excluded)."""
    body = source[source.index("func GenerateSampleSecrets") :]
    body = body[body.index("samples := map[string]string{") : body.index("replacer :=")]
    out = []
    for m in _SAMPLE_TEMPLATE_RE.finditer(body):
        value = Parser(tokens(m.group(2))).expr()
        assert value.kind == "str", m.group()
        out.append((m.group(1), value.args[0]))
    return out


class Interpreter:
    def __init__(self, templates: list[tuple[str, str]]) -> None:
        self.templates = templates
        self.globals: dict[str, Any] = {}
        self.funcs: dict[str, GoFunc] = {}
        self.rng = random.Random(0)
        self.captured: list[tuple[Any, Any, Any]] = []

    # builtins by dotted name
    def builtin(self, name: str) -> Callable[..., Any] | None:
        rng = self.rng
        table: dict[str, Callable[..., Any]] = {
            "utils.Numeric": lambda size: f"[0-9]{{{size}}}",
            "utils.Hex": lambda size: f"[a-f0-9]{{{size}}}",
            "utils.AlphaNumeric": lambda size: f"[a-z0-9]{{{size}}}",
            "utils.AlphaNumericExtendedShort": lambda size: f"[a-z0-9_-]{{{size}}}",
            "utils.AlphaNumericExtended": lambda size: f"[a-z0-9=_\\-]{{{size}}}",
            "utils.AlphaNumericExtendedLong": lambda size: f"[a-z0-9\\/=_\\+\\-]{{{size}}}",
            "utils.Hex8_4_4_4_12": lambda: (
                "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
            ),
            "secrets.NewSecret": lambda regex: new_secret(regex, rng),
            "newPlausibleSecret": self.plausible,
            "utils.GenerateSampleSecret": lambda ident, secret: _sample(
                f'{ident}_api_token = "{secret}"', secret
            ),
            "utils.GenerateSampleSecrets": self.sample_secrets,
            "utils.Validate": self.capture,
            "utils.ValidateWithPaths": self.capture,
            "fmt.Sprintf": _sprintf,
            "strings.ToUpper": str.upper,
            "strings.ToLower": str.lower,
            "strings.Repeat": lambda s, n: s * n,
            "strings.ReplaceAll": lambda s, a, b: s.replace(a, b),
            "strings.Join": lambda items, sep: sep.join(items),
            "string": lambda b: (
                b.decode("utf-8", "surrogateescape") if isinstance(b, bytes) else str(b)
            ),
            "len": len,
            "b64.StdEncoding.EncodeToString": lambda b: base64.b64encode(_bytes(b)).decode(),
            "b64.RawStdEncoding.EncodeToString": lambda b: (
                base64.b64encode(_bytes(b)).decode().rstrip("=")
            ),
            "b64.URLEncoding.EncodeToString": lambda b: base64.urlsafe_b64encode(
                _bytes(b)
            ).decode(),
            "b64.RawURLEncoding.EncodeToString": lambda b: (
                base64.urlsafe_b64encode(_bytes(b)).decode().rstrip("=")
            ),
            "base64.StdEncoding.EncodeToString": lambda b: base64.b64encode(_bytes(b)).decode(),
            "regexp.MustCompile": lambda pattern: Unknown("a compiled regex"),
            "utils.GenerateSemiGenericRegex": lambda *a: Unknown("a rule regex"),
            "utils.GenerateUniqueTokenRegex": lambda *a: Unknown("a rule regex"),
            "utils.MergeRegexps": lambda *a: Unknown("a rule regex"),
        }
        return table.get(name)

    def plausible(self, regex: str) -> str:
        stop = self.globals.get("DefaultStopWords") or []
        for _ in range(10_000):
            secret = new_secret(regex, self.rng)
            if not re.search("[1-9]", secret):
                continue
            lowered = secret.lower()
            if any(word in lowered for word in stop):
                continue
            return secret
        raise Unsupported("no plausible secret drawn")

    def sample_secrets(self, ident: str, secret: str) -> list[Sample]:
        out = []
        for _, template in self.templates:
            text = (
                template.replace("{i}", ident).replace("{I}", ident.upper()).replace("{s}", secret)
            )
            out.append(_sample(text, secret))
        return out

    def capture(self, rule: Any, tps: Any, fps: Any) -> Any:
        self.captured.append((rule, tps, fps))
        raise Captured

    # evaluation

    def run_rule(self, name: str) -> tuple[Any, Any, Any] | None:
        func = self.funcs[name]
        self.rng = random.Random(zlib.crc32(name.encode()))
        self.captured.clear()
        try:
            self.call(func, [])
        except Captured:
            return self.captured[-1]
        return None

    def call(self, func: GoFunc, args: list[Any]) -> Any:
        env: dict[str, Any] = dict(zip(func.params, args, strict=False))
        try:
            self.exec_block(func.body, env)
        except Return as r:
            return r.value
        return None

    def exec_block(self, body: list[Any], env: dict[str, Any]) -> None:
        for stmt in body:
            self.exec(stmt, env)

    def exec(self, stmt: Node, env: dict[str, Any]) -> None:
        kind = stmt.kind
        if kind == "return":
            values = stmt.args[0]
            raise Return(None if values is None else self.eval(values[0], env))
        if kind in ("define", "assign", "append_assign"):
            targets, values = stmt.args
            results = [self.eval(v, env) for v in values]
            for target, value in zip(targets, results, strict=False):
                if isinstance(target, Node) and target.kind != "name":
                    self.assign_to(target, value, env)
                    continue
                name = target if isinstance(target, str) else target.args[0]
                if kind == "append_assign":
                    value = _add(env.get(name, self.globals.get(name)), value)
                if name != "_":
                    env[name] = value
            return
        if kind == "expr":
            self.eval(stmt.args[0][0], env)
            return
        if kind == "group":
            self.exec_block(stmt.args, env)
            return
        if kind == "range":
            names, source, body = stmt.args
            collection = self.eval(source, env)
            if isinstance(collection, Unknown):
                raise Unsupported(collection.reason)
            items = (
                list(collection.items())
                if isinstance(collection, dict)
                else list(enumerate(collection))
            )
            for key, value in items:
                if names and names[0] != "_":
                    env[names[0]] = key
                if len(names) > 1 and names[1] != "_":
                    env[names[1]] = value
                self.exec_block(body, env)
            return
        raise Unsupported(f"{kind} statement")

    def assign_to(self, target: Node, value: Any, env: dict[str, Any]) -> None:
        if target.kind == "select":
            obj = self.eval(target.args[0], env)
            if isinstance(obj, dict):
                obj[target.args[1]] = value
                return
        if target.kind == "index":
            obj = self.eval(target.args[0], env)
            key = self.eval(target.args[1], env)
            if isinstance(obj, (dict, list)):
                obj[key] = value
                return
        raise Unsupported("assignment target")

    def eval(self, node: Any, env: dict[str, Any]) -> Any:
        kind = node.kind
        if kind == "str":
            return node.args[0]
        if kind == "int":
            text = node.args[0].replace("_", "")
            if text.startswith("'"):
                return ord(text[1:-1])
            return float(text) if "." in text else int(text, 0)
        if kind == "name":
            name = node.args[0]
            if name in env:
                return env[name]
            if name in self.globals:
                return self.globals[name]
            if name in ("nil",):
                return None
            if name in ("true", "false"):
                return name == "true"
            if name in self.funcs or self.builtin(name) is not None:
                return ("func", name)
            return Unknown(f"name {name}")
        if kind == "select":
            dotted = _dotted(node)
            if dotted is not None and self.builtin(dotted) is not None:
                return ("func", dotted)
            obj = self.eval(node.args[0], env)
            if isinstance(obj, dict):
                return obj.get(node.args[1], Unknown(f"field {node.args[1]}"))
            return Unknown(f"selector {dotted}")
        if kind == "binary":
            op, left, right = node.args
            a, b = self.eval(left, env), self.eval(right, env)
            if op == "+":
                return _add(a, b)
            raise Unsupported(f"operator {op}")
        if kind == "unary":
            op, operand = node.args
            value = self.eval(operand, env)
            if op in ("&", "*"):
                return value
            raise Unsupported(f"unary {op}")
        if kind == "composite":
            typ, elements = node.args
            return self.composite(typ, elements, env)
        if kind == "call":
            return self.eval_call(node, env)
        if kind == "index":
            obj = self.eval(node.args[0], env)
            key = self.eval(node.args[1], env)
            if isinstance(obj, (dict, list, str)):
                return obj[key]
            raise Unsupported("index")
        if kind == "slice":
            obj = self.eval(node.args[0], env)
            lo = 0 if node.args[1] is None else self.eval(node.args[1], env)
            hi = None if node.args[2] is None else self.eval(node.args[2], env)
            return obj[lo:hi]
        if kind == "type":
            return node
        if kind == "zero":
            return None  # a declared variable without a value (a nil slice)
        if kind == "funclit":
            return Unknown("a function literal")
        if kind == "unsupported":
            return Unknown(node.args[0])
        raise Unsupported(f"expression {kind}")

    def composite(self, typ: Any, elements: list[tuple[Any, Any]], env: dict[str, Any]) -> Any:
        type_kind = typ.kind if isinstance(typ, Node) else None
        if type_kind == "slice_type" or type_kind == "array_type":
            return [self.eval_elem(v, env) for _, v in elements]
        if type_kind == "map_type":
            return {self.eval(k, env): self.eval_elem(v, env) for k, v in elements}
        # a struct: fields by name
        out: dict[str, Any] = {}
        for k, v in elements:
            if k is None:
                out[str(len(out))] = self.eval_elem(v, env)
            elif k.kind == "name":
                try:
                    out[k.args[0]] = self.eval_elem(v, env)
                except Unsupported as e:
                    out[k.args[0]] = Unknown(str(e))
            else:
                out[str(self.eval(k, env))] = self.eval_elem(v, env)
        return out

    def eval_elem(self, node: Any, env: dict[str, Any]) -> Any:
        try:
            return self.eval(node, env)
        except Unsupported as e:
            return Unknown(str(e))

    def eval_call(self, node: Node, env: dict[str, Any]) -> Any:
        callee, arg_nodes, spread = node.args
        if callee.kind == "name" and callee.args[0] == "append":
            base = self.eval(arg_nodes[0], env)
            base = [] if base is None else list(base) if isinstance(base, list) else base
            if isinstance(base, Unknown):
                return base
            rest = [self.eval_elem(a, env) for a in arg_nodes[1:]]
            if spread:
                last = rest.pop()
                base += rest
                if isinstance(last, Unknown):
                    base.append(last)
                else:
                    base += list(last or [])
            else:
                base += rest
            return base
        if callee.kind == "name" and callee.args[0] == "make":
            typ = arg_nodes[0]
            return {} if typ.kind == "type" and typ.args[0].kind == "map_type" else []
        if callee.kind in ("type",) or (callee.kind == "name" and callee.args[0] == "[]byte"):
            return _bytes(self.eval(arg_nodes[0], env))
        name = _dotted(callee)
        if name is None and callee.kind == "slice_type":
            return _bytes(self.eval(arg_nodes[0], env))
        args = [self.eval(a, env) for a in arg_nodes]
        if spread and args and isinstance(args[-1], list):
            args = args[:-1] + args[-1]
        if name in ("utils.Validate", "utils.ValidateWithPaths"):
            return self.capture(*args)
        if any(isinstance(a, Unknown) for a in args):
            return next(a for a in args if isinstance(a, Unknown))
        function = self.builtin(name) if name is not None else None
        if function is not None:
            return function(*args)
        if name in self.funcs:
            return self.call(self.funcs[name], args)
        if callee.kind == "type":
            return _bytes(args[0])
        raise Unsupported(f"call of {name}")


def _bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    raise Unsupported("bytes of a non-string")


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, Unknown):
        return a
    if isinstance(b, Unknown):
        return b
    if isinstance(a, str) and isinstance(b, str):
        return str(a) + str(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a + b
    raise Unsupported("+ of mixed types")


def _dotted(node: Any) -> str | None:
    if node.kind == "name":
        return str(node.args[0])
    if node.kind == "select":
        inner = _dotted(node.args[0])
        return None if inner is None else f"{inner}.{node.args[1]}"
    return None


def _sprintf(fmt: str, *args: Any) -> str:
    it = iter(args)

    def one(m: re.Match[str]) -> str:
        if m.group() == "%%":
            return "%"
        value = next(it)
        if m.group(1) == "q":
            return json.dumps(value)
        return str(value)

    return re.sub(r"%%|%[-+# 0-9.]*([svdq])", one, fmt)


# --- the whole run ---------------------------------------------------------------------------------


def _samples(value: Any, where: str, skipped: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if value is None:
        return []
    if isinstance(value, Unknown):
        skipped.append({"list": where, "count": None, "reason": value.reason})
        return []
    # ValidateWithPaths: {file path: content}; the rule may look at the path too
    items = list(value.items()) if isinstance(value, dict) else [(None, item) for item in value]
    out: list[dict[str, Any]] = []
    for path, item in items:
        if isinstance(item, Unknown):
            skipped.append({"list": where, "count": 1, "reason": item.reason})
        elif isinstance(item, str):
            entry: dict[str, Any] = {"text": str(item)}
            if isinstance(item, Sample) and item.secret is not None and item.secret in item:
                entry["secret"] = item.secret
            if path is not None:
                entry["path"] = path
            out.append(entry)
        else:
            skipped.append({"list": where, "count": 1, "reason": f"a {type(item).__name__}"})
    return out


def extract(git_dir: str, commit: str = "HEAD") -> dict[str, Any]:
    sha = git(git_dir, "rev-parse", commit).strip()
    date = git(git_dir, "show", "-s", "--format=%cI", sha).strip()
    licence = git(git_dir, "show", f"{sha}:LICENSE")
    templates = sample_templates(
        git(git_dir, "show", f"{sha}:cmd/generate/config/utils/generate.go")
    )
    names = [
        line
        for line in git(git_dir, "ls-tree", "--name-only", f"{sha}:{RULES_DIR}").split()
        if line.endswith(".go") and not line.endswith("_test.go")
    ]
    interp = Interpreter(templates)
    origin: dict[str, str] = {}
    for file in names:
        parser = Parser(tokens(git(git_dir, "show", f"{sha}:{RULES_DIR}/{file}")))
        for kind, payload in parser.file():
            if kind == "func":
                name, params, body = payload
                interp.funcs[name] = GoFunc(name, params, body)
                origin[name] = file
            else:
                name, expr = payload
                try:
                    interp.globals[name] = interp.eval(expr, {})
                except Unsupported as e:
                    interp.globals[name] = Unknown(str(e))
    # the rules gitleaks' generator puts in its default config, in its order
    main = git(git_dir, "show", f"{sha}:cmd/generate/config/main.go")
    rule_funcs = re.findall(r"^\s*rules\.(\w+)\(\),?\s*$", main, re.MULTILINE)
    rules: list[dict[str, Any]] = []
    for func in rule_funcs:
        entry: dict[str, Any] = {"function": func, "file": f"{RULES_DIR}/{origin.get(func, '?')}"}
        skipped: list[dict[str, Any]] = []
        try:
            captured = interp.run_rule(func)
        except (Unsupported, KeyError, IndexError, TypeError, ValueError) as e:
            captured = None
            skipped.append({"list": "both", "count": None, "reason": f"{type(e).__name__}: {e}"})
        if captured is None:
            entry.update(
                id=None,
                tps=[],
                fps=[],
                skipped=skipped or [{"list": "both", "count": None, "reason": "no Validate call"}],
            )
            rules.append(entry)
            continue
        rule, tps, fps = captured
        entry["id"] = rule.get("RuleID") if isinstance(rule, dict) else None
        entry["tps"] = _samples(tps, "tps", skipped)
        entry["fps"] = _samples(fps, "fps", skipped)
        entry["skipped"] = skipped
        rules.append(entry)
    return {
        "source": REPOSITORY,
        "commit": sha,
        "date": date,
        "path": RULES_DIR,
        "licence": licence,
        "generated_by": "scripts/gitleaks_samples.py",
        "note": "Samples from the tps/fps lists of gitleaks' rule definitions; generated secrets are drawn "
        "from a random generator seeded by the rule's function name (not gitleaks' own draws).",
        "rules": rules,
    }


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    data = extract(argv[1], argv[2] if len(argv) == 3 else "HEAD")
    json.dump(data, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
