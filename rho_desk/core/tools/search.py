"""``grep`` and ``glob`` over a workspace folder, with Rho's walk and its result text.

The walk follows Rho's (the ``ignore`` crate with its defaults): files in name order, depth
first, symlinks not followed, ``.git`` skipped, hidden entries skipped unless asked for, and the
patterns of ``.gitignore``, ``.ignore`` and ``.git/info/exclude`` honoured (negations included),
whether or not the folder is a git repository. At most 200,000 entries and 15 seconds per search.

``grep`` reads each regular file of at most 5 MiB, skips files with a NUL in the first 8 KiB
or that are not UTF-8, and tests each line with the pattern (Python ``re``; Rho uses Rust's
``regex``, whose syntax agrees for everything but exotic constructs). A whole-file search first
rules out files without any match, which keeps it close to ``grep -rn``.

The walk goes by descriptors: each folder is opened from its parent's descriptor with
``O_NOFOLLOW``, and each file likewise, so a folder swapped for a symlink while a search runs is
skipped, never followed out of the workspace. A file with several hard links counts as outside
the workspace (its other name may be anywhere): ``grep`` does not read it, unless the workspace
admits it (a granted file), and says how many it left out.
"""

from __future__ import annotations

import operator
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Final

from .beneath import open_file_beneath
from .protocol import ToolError, ToolErrorKind
from .text import file_hash, format_header

__all__ = [
    "GlobRequest",
    "GrepRequest",
    "compile_glob",
    "glob_workspace",
    "grep_workspace",
    "walk_files",
]

MAX_ENTRIES: Final = 200_000
SEARCH_DEADLINE: Final = 15.0
DEFAULT_MAX_RESULTS: Final = 200
MAX_RESULTS_CEILING: Final = 1_000
DEFAULT_MAX_PER_FILE: Final = 10
MAX_PER_FILE_CEILING: Final = 100
MAX_FILE_BYTES: Final = 5 * 1024 * 1024
BINARY_SNIFF_BYTES: Final = 8 * 1024
MAX_LINE_CHARS: Final = 200
_DIRECTORY: Final = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_SUBFOLDER: Final = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
_FILE: Final = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC


# -- glob patterns ------------------------------------------------------------------------------


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                at_start = i == 0 or pattern[i - 1] == "/"
                after = i + 2
                if at_start and after < n and pattern[after] == "/":
                    out.append("(?:.*/)?")
                    i = after + 1
                    continue
                if at_start and after == n:
                    out.append(".*")
                    i = after
                    continue
                out.append("[^/]*")
                i = after
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {"{": 1, "}": -1}.get(pattern[j], 0)
                j += 1
            if depth:
                out.append(re.escape(c))
            else:
                parts, level, start = [], 0, i + 1
                for k in range(i + 1, j - 1):
                    ch = pattern[k]
                    if ch == "{":
                        level += 1
                    elif ch == "}":
                        level -= 1
                    elif ch == "," and level == 0:
                        parts.append(pattern[start:k])
                        start = k + 1
                parts.append(pattern[start : j - 1])
                out.append("(?:" + "|".join(_translate(p) for p in parts) + ")")
                i = j
                continue
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 1
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_glob(pattern: str) -> re.Pattern[str]:
    """Rho's ``PathGlob``: a pattern without ``/`` matches at any depth; ``*`` stops at ``/``."""
    anchored = pattern if "/" in pattern else f"**/{pattern}"
    try:
        return re.compile(f"(?s:{_translate(anchored)})\\Z")
    except re.error as exc:
        raise ToolError(ToolErrorKind.EXECUTION, f"invalid glob '{pattern}': {exc}") from None


# -- ignore files ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]
    source: str
    negated: bool
    dir_only: bool
    base: str
    """Folder of the ignore file, relative to the walk root ("" for the root)."""


def _parse_ignore(folder: int, relative: str, base: str) -> list[_Rule]:
    try:
        with open(
            open_file_beneath(folder, PurePosixPath(relative)), encoding="utf-8", errors="replace"
        ) as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    rules: list[_Rule] = []
    for raw in lines:
        line = raw.rstrip()
        if raw.endswith("\\ "):
            line = raw[:-2] + " "
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated or line.startswith("\\"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        body = line.lstrip("/") if "/" in line else f"**/{line}"
        source = f"(?s:{_translate(body)})(?:/.*)?\\Z"
        try:
            regex = re.compile(source)
        except re.error:
            continue
        rules.append(_Rule(regex, source, negated, dir_only, base))
    return rules


def _ignored(rules: list[_Rule], relative: str, is_dir: bool) -> bool:
    verdict = False
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        if rule.base:
            if not relative.startswith(rule.base + "/"):
                continue
            local = relative[len(rule.base) + 1 :]
        else:
            local = relative
        if rule.regex.match(local):
            verdict = not rule.negated
    return verdict


class _Ignore:
    """The ignore rules in force in one folder, with one combined regex when none negates."""

    __slots__ = ("any_rules", "dirs", "files", "rules", "simple")

    def __init__(self, rules: list[_Rule]) -> None:
        self.rules = rules
        self.any_rules = bool(rules)
        self.files: re.Pattern[str] | None = None
        self.dirs: re.Pattern[str] | None = None
        self.simple = not any(rule.negated for rule in rules)
        if rules and self.simple:

            def combined(selected: list[_Rule]) -> re.Pattern[str] | None:
                parts = [
                    f"(?:{re.escape(r.base) + '/' if r.base else ''}{r.source})" for r in selected
                ]
                return re.compile("|".join(parts)) if parts else None

            self.files = combined([r for r in rules if not r.dir_only])
            self.dirs = combined(rules)

    def ignored(self, relative: str, is_dir: bool) -> bool:
        if not self.any_rules:
            return False
        if self.simple:
            matcher = self.dirs if is_dir else self.files
            return matcher is not None and matcher.match(relative) is not None
        return _ignored(self.rules, relative, is_dir)


# -- the walk ------------------------------------------------------------------------------------


_by_name = operator.attrgetter("name")


def _listing(folder: int) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as listing:
            return sorted(listing, key=_by_name)
    except OSError:
        return []


def _folder_rules(folder: int, relative: str, inherited: list[_Rule]) -> list[_Rule]:
    rules = list(inherited)
    for name in (".gitignore", ".ignore"):
        rules.extend(_parse_ignore(folder, name, relative))
    return rules


def walk_files(
    root: str | int,
    *,
    hidden: bool,
    cancelled: Callable[[], bool] = lambda: False,
    stats: dict[str, Any] | None = None,
) -> Iterator[tuple[int, str, str]]:
    """Yield ``(folder_fd, name, relative)`` for each file under ``root`` in Rho's walk order.

    ``root`` is a folder's path or an open descriptor for it (not closed here); ``folder_fd`` is
    open while the file is being yielded. Stops early (recording ``stats["stop"]``) on the entry
    limit, the deadline or cancellation.
    """
    deadline = time.monotonic() + SEARCH_DEADLINE
    state = stats if stats is not None else {}
    state["stop"] = None
    top = (
        os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        if isinstance(root, str)
        else os.dup(root)
    )
    rules = _folder_rules(top, "", _parse_ignore(top, ".git/info/exclude", ""))
    stack: list[tuple[int, Iterator[os.DirEntry[str]], str, list[_Rule], _Ignore]] = [
        (top, iter(_listing(top)), "", rules, _Ignore(rules))
    ]
    try:
        yield from _walk(stack, hidden, cancelled, deadline, state)
    finally:
        for entry in stack:
            os.close(entry[0])


def _walk(
    stack: list[tuple[int, Iterator[os.DirEntry[str]], str, list[_Rule], _Ignore]],
    hidden: bool,
    cancelled: Callable[[], bool],
    deadline: float,
    state: dict[str, Any],
) -> Iterator[tuple[int, str, str]]:
    seen = 0
    while stack:
        folder, entries, relative, folder_rules, ignore = stack[-1]
        prefix = relative + "/" if relative else ""
        for entry in entries:
            seen += 1
            if not seen & 0xFF and time.monotonic() >= deadline:
                state["stop"] = "deadline"
                return
            if seen > MAX_ENTRIES:
                state["stop"] = "scan"
                return
            name = entry.name
            if name[0] == "." and (not hidden or name == ".git"):
                continue
            rel = prefix + name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = not is_dir and entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if ignore.any_rules and ignore.ignored(rel, is_dir):
                continue
            if is_dir:
                try:
                    sub = os.open(name, _SUBFOLDER, dir_fd=folder)
                except OSError:
                    continue  # gone, or swapped for a symlink since it was listed
                sub_rules = _folder_rules(sub, rel, folder_rules)
                sub_ignore = ignore if len(sub_rules) == len(folder_rules) else _Ignore(sub_rules)
                stack.append((sub, iter(_listing(sub)), rel, sub_rules, sub_ignore))
                break
            if is_file:
                if cancelled():
                    state["stop"] = "cancelled"
                    return
                yield folder, name, rel
        else:
            os.close(folder)
            stack.pop()


_NARROW_GREP: Final = "the pattern, path, or glob"
_NARROW_GLOB: Final = "the pattern or path"


def _with_reasons(counts: str, reasons: list[str], narrow: str) -> str:
    if not reasons:
        return counts
    text = {
        "result": f"result limit reached; narrow {narrow}",
        "scan": f"scan limit reached; narrow {narrow}",
        "deadline": "time limit reached",
        "cancelled": "cancelled",
    }
    rendered = [text.get(reason, reason) for reason in reasons]
    return f"{counts} ({'; '.join(rendered)})"


def _clamp(value: Any, default: int, ceiling: int, name: str) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ToolError(
            ToolErrorKind.INVALID_ARGUMENTS,
            f"invalid arguments: {name} must be a non-negative integer",
        )
    return min(max(value, 1), ceiling)


def _opt_str(args: Mapping[str, Any], name: str) -> str | None:
    value = args.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ToolError(
            ToolErrorKind.INVALID_ARGUMENTS, f"invalid arguments: {name} must be a string"
        )
    return value


def _opt_bool(args: Mapping[str, Any], name: str) -> bool | None:
    value = args.get(name)
    if value is None:
        return None
    if not isinstance(value, bool):
        raise ToolError(
            ToolErrorKind.INVALID_ARGUMENTS, f"invalid arguments: {name} must be a boolean"
        )
    return value


def _req_str(args: Mapping[str, Any], name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        raise ToolError(
            ToolErrorKind.INVALID_ARGUMENTS, f"invalid arguments: missing field `{name}`"
        )
    return value


# -- grep ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GrepRequest:
    path: str
    pattern_display: str
    regex: re.Pattern[str]
    prefilter: re.Pattern[str] | None
    literals: tuple[bytes, ...]
    glob: re.Pattern[str] | None
    hidden: bool
    max_results: int
    max_per_file: int
    output_mode: str

    @classmethod
    def parse(cls, args: Mapping[str, Any]) -> GrepRequest:
        pattern = _req_str(args, "pattern")
        literal = _opt_bool(args, "literal") or False
        case_sensitive = _opt_bool(args, "case_sensitive")
        source = re.escape(pattern) if literal else pattern
        flags = 0 if case_sensitive is None or case_sensitive else re.IGNORECASE
        try:
            regex = re.compile(source, flags)
        except (re.error, OverflowError) as exc:
            raise ToolError(
                ToolErrorKind.EXECUTION, f"invalid pattern '{pattern}': {exc}"
            ) from None
        prefilter = None
        if "\\A" not in source and "\\Z" not in source and "\\z" not in source:
            try:
                prefilter = re.compile(source, flags | re.MULTILINE)
            except re.error:
                prefilter = None
        mode = _opt_str(args, "output_mode") or "content"
        if mode not in ("content", "files_with_matches", "count"):
            raise ToolError(
                ToolErrorKind.EXECUTION,
                f"invalid output_mode '{mode}': expected content, files_with_matches, or count",
            )
        glob = _opt_str(args, "glob")
        return cls(
            path=_opt_str(args, "path") or ".",
            pattern_display=pattern,
            regex=regex,
            prefilter=prefilter,
            literals=tuple(_required_literals(source, flags)),
            glob=compile_glob(glob) if glob is not None else None,
            hidden=_opt_bool(args, "include_hidden") or False,
            max_results=_clamp(
                args.get("max_results"), DEFAULT_MAX_RESULTS, MAX_RESULTS_CEILING, "max_results"
            ),
            max_per_file=_clamp(
                args.get("max_per_file"), DEFAULT_MAX_PER_FILE, MAX_PER_FILE_CEILING, "max_per_file"
            ),
            output_mode=mode,
        )


_FIRST_READ: Final = 64 * 1024


class _Linked(Exception):
    """The file has several hard links and the workspace does not admit it."""


def _single_link(info: os.stat_result) -> bool:
    return info.st_nlink <= 1


def _read_searchable(
    folder: int, name: str, admits: Callable[[os.stat_result], bool] = _single_link
) -> bytes | None:
    """The bytes of a regular file of at most 5 MiB without a NUL in its first 8 KiB.

    Raises:
        _Linked: ``admits`` refuses it (several hard links).
    """
    try:
        # The walk saw a regular file; one swapped in since for a FIFO reads as empty, never blocks.
        fd = os.open(name, _FILE, dir_fd=folder)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if info.st_nlink > 1 and not admits(info):
            raise _Linked(name)
        data = os.read(fd, _FIRST_READ)
        if len(data) == _FIRST_READ:  # a larger file: check its size, then read the rest
            if info.st_size > MAX_FILE_BYTES:
                return None
            parts = [data]
            total = len(data)
            while total <= MAX_FILE_BYTES:
                more = os.read(fd, MAX_FILE_BYTES + 1 - total)
                if not more:
                    break
                parts.append(more)
                total += len(more)
            data = b"".join(parts)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES or data.find(b"\0", 0, BINARY_SNIFF_BYTES) != -1:
        return None
    return data


def _required_literals(source: str, flags: int) -> list[bytes]:
    """Substrings every match must contain (top-level literal runs), as UTF-8 bytes.

    A file without one of them cannot match, so it is ruled out without decoding it. Patterns
    with case folding, alternation at the top, or anything unusual give none (no shortcut).
    """
    if flags & re.IGNORECASE:
        return []
    try:
        import re._parser as sre_parse  # type: ignore[import-not-found]
    except ImportError:  # a Python without this internal module: no shortcut
        return []
    try:
        parsed = sre_parse.parse(source, flags)
    except Exception:
        return []
    if parsed.state.flags & re.IGNORECASE:  # an inline (?i)
        return []
    literal_code = sre_parse.LITERAL
    runs: list[str] = []
    current: list[str] = []
    for op, value in list(parsed):
        if op is literal_code:
            current.append(chr(value))
            continue
        if current:
            runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    runs = [run for run in runs if len(run) >= 2]
    runs.sort(key=len, reverse=True)
    return [run.encode("utf-8") for run in runs[:2]]


def _cut(line: str) -> str:
    return line[:MAX_LINE_CHARS] + "…" if len(line) > MAX_LINE_CHARS else line


def _join(root: str, relative: str) -> str:
    root = root.strip()
    if not root or root == ".":
        return relative
    return f"{root}/{relative}"


def grep_workspace(
    root: str | int,
    display_root: str,
    request: GrepRequest,
    *,
    hashline: bool = True,
    cancelled: Callable[[], bool] = lambda: False,
    admits: Callable[[os.stat_result], bool] = _single_link,
) -> str:
    """Rho's ``grep`` result text for ``request`` under the folder ``root`` (a real path or a
    descriptor). ``admits``: whether a file with several hard links may be read (default: none)."""
    content_mode = request.output_mode == "content"
    retain = request.max_per_file if content_mode else 0
    stop_early = request.output_mode == "files_with_matches"
    is_match = request.regex.search
    prefilter = request.prefilter.search if request.prefilter is not None else None
    glob = request.glob.match if request.glob is not None else None
    literals = request.literals
    first = literals[0] if literals else None
    second = literals[1] if len(literals) > 1 else None
    hits: list[tuple[str, str | None, int, list[tuple[int, str]]]] = []
    shown = total_matches = per_file_truncated = 0
    stats: dict[str, Any] = {}
    stop: str | None = None
    linked = 0
    for folder, name, relative in walk_files(
        root, hidden=request.hidden, cancelled=cancelled, stats=stats
    ):
        if glob is not None and glob(relative) is None:
            continue
        try:
            data = _read_searchable(folder, name, admits)
        except _Linked:
            linked += 1
            continue
        if data is None or (
            first is not None and (first not in data or (second is not None and second not in data))
        ):
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if prefilter is not None and prefilter(text) is None:
            continue
        total = 0
        lines: list[tuple[int, str]] = []
        body = text[:-1] if text.endswith("\n") else text
        for index, line in enumerate(body.split("\n"), 1):
            if line.endswith("\r"):
                line = line[:-1]
            if is_match(line) is None:
                continue
            total += 1
            if len(lines) < retain:
                lines.append((index, _cut(line)))
            if stop_early:
                break
        if total == 0:
            continue
        total_matches += total
        if retain > 0 and total > len(lines):
            per_file_truncated += 1
        lines = lines[: request.max_results - shown]
        shown += len(lines) if content_mode else 1
        tag = file_hash(text) if content_mode and hashline else None
        hits.append((relative, tag, total, lines))
        if shown >= request.max_results:
            stop = "result"
            break
    if stop is None:
        stop = stats.get("stop")
    reasons: list[str] = [stop] if stop else []
    if per_file_truncated:
        reasons.append(
            f"{per_file_truncated} files truncated by max_per_file; raise max_per_file or narrow the pattern"
        )
    if linked:
        reasons.append(
            f"{linked} files with several hard links not searched: another of their names may be outside "
            "the workspace, so they count as outside"
        )
    if not hits:
        return _with_reasons(
            f"no matches for '{request.pattern_display}' under {display_root}",
            reasons,
            _NARROW_GREP,
        )
    body_lines: list[str] = []
    if content_mode:
        for relative, tag, total, lines in hits:
            path = _join(display_root, relative)
            body_lines.append(format_header(path, tag) if tag is not None else path)
            body_lines.extend(f"{number} | {text}" for number, text in lines)
            if total > len(lines):
                body_lines.append(f"... +{total - len(lines)} more in this file")
        if shown == total_matches:
            counts = f"{shown} matches in {len(hits)} files"
        else:
            counts = f"{shown} matches shown ({total_matches} total) in {len(hits)} files"
    elif request.output_mode == "files_with_matches":
        body_lines = [_join(display_root, relative) for relative, _, _, _ in hits]
        counts = f"{len(hits)} files"
    else:
        body_lines = [f"{_join(display_root, relative)}:{total}" for relative, _, total, _ in hits]
        counts = f"{total_matches} matches in {len(hits)} files"
    return "\n".join(body_lines) + "\n\n" + _with_reasons(counts, reasons, _NARROW_GREP)


# -- glob ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GlobRequest:
    path: str
    pattern_display: str
    glob: re.Pattern[str]
    hidden: bool
    max_results: int

    @classmethod
    def parse(cls, args: Mapping[str, Any]) -> GlobRequest:
        pattern = _req_str(args, "pattern")
        return cls(
            path=_opt_str(args, "path") or ".",
            pattern_display=pattern,
            glob=compile_glob(pattern),
            hidden=_opt_bool(args, "include_hidden") or False,
            max_results=_clamp(
                args.get("max_results"), DEFAULT_MAX_RESULTS, MAX_RESULTS_CEILING, "max_results"
            ),
        )


def glob_workspace(
    root: str | int,
    display_root: str,
    request: GlobRequest,
    *,
    cancelled: Callable[[], bool] = lambda: False,
) -> str:
    """Rho's ``glob`` result text."""
    matches: list[str] = []
    stats: dict[str, Any] = {}
    stop: str | None = None
    for _folder, _name, relative in walk_files(
        root, hidden=request.hidden, cancelled=cancelled, stats=stats
    ):
        if request.glob.match(relative) is None:
            continue
        matches.append(relative)
        if len(matches) >= request.max_results:
            stop = "result"
            break
    if stop is None:
        stop = stats.get("stop")
    reasons = [stop] if stop else []
    if not matches:
        return _with_reasons(
            f"no files matching '{request.pattern_display}' under {display_root}",
            reasons,
            _NARROW_GLOB,
        )
    return (
        "\n".join(matches) + "\n\n" + _with_reasons(f"{len(matches)} files", reasons, _NARROW_GLOB)
    )
