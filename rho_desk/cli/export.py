"""``rho-desk export PATH (--include C,... | --exclude C,...) [--history display|model] [-o FILE] ...``.

Writes a redacted export and its signed receipt, atomically, after auditing the exact bytes. The
export holds the conversation as shown (``--history display``, the default: a
``rho-desk.display-export`` JSON document, or a Markdown/HTML transcript) or the model context
(``--history model``: a schema-2 snapshot as JSON). Critical or high findings block the export
(nothing is written, exit 1) unless ``--allow-findings`` is given; the override is recorded in
the receipt. rho-desk's own keys (fingerprint, signing) come from the keyring, or from the key
file when there is no secure keyring (``--key-file`` chooses another). Exit status: 0 written
with no finding; 1 findings (written or blocked), or the keys are unavailable; 2 bad usage or
input (unknown class names list the valid ones; an output that is the input).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .status import EXIT_OK, EXIT_PROBLEMS, fail

if TYPE_CHECKING:
    from ..core.export import ExportSource, Selection
    from ..core.secrets.keys import KeySource

_EXTENSIONS = {"json": "json", "markdown": "md", "html": "html"}
_BY_EXTENSION = {
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "export",
        help="export a session with chosen content classes, secrets redacted, audited, with a receipt",
        description=(
            "Export a session at a revision. Classes: instructions, user, assistant, tool_records, "
            "images, documents, reasoning_summaries, provider_context, metadata (or all, none). "
            "Secrets are always redacted. The exact bytes are audited before anything is written."
        ),
    )
    parser.add_argument(
        "path",
        type=Path,
        help="a snapshot JSON document, a Rho session file, or another agent's session (Claude Code, Codex, Gemini CLI, Pi: its file; opencode: <opencode.db>#<id>)",
    )
    add_selection_arguments(parser, "export", "write")
    parser.add_argument(
        "-o", "--output", type=Path, help="the export file (default: rho-session-<id>-r<rev>.<ext>)"
    )
    parser.add_argument(
        "--receipt", type=Path, help="the receipt file (default: <output>.receipt.json)"
    )
    parser.add_argument(
        "--format",
        choices=("json", "markdown", "html"),
        help="output format (default: from -o, else json)",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace existing output and receipt files"
    )
    add_key_file_option(parser)
    parser.set_defaults(handler=run)


def add_selection_arguments(parser: argparse.ArgumentParser, verb: str, effect: str) -> None:
    """What leaves the machine, the same for ``export`` and ``publish``: the classes, the
    history, the revision, and whether findings block (``verb`` and ``effect`` word the help)."""
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--include", metavar="C,...", help="the classes to keep (the others are excluded)"
    )
    which.add_argument(
        "--exclude", metavar="C,...", help="the classes to leave out (the others are kept)"
    )
    parser.add_argument(
        "--history",
        choices=("display", "model"),
        help="display: the conversation as shown (default); model: the model context (a snapshot)",
    )
    parser.add_argument(
        "--revision", type=int, help=f"the revision to {verb} (default: the latest)"
    )
    parser.add_argument(
        "--allow-findings",
        action="store_true",
        help=f"{effect} even with critical or high findings (recorded)",
    )


def selection_and_source(args: argparse.Namespace, verb: str) -> tuple[Selection, ExportSource]:
    """The parsed class selection and what to export, from :func:`add_selection_arguments`'s
    options (a note on stderr when a snapshot document can only give the model context)."""
    from ..core.export import Selection, parse_classes, read_export_source

    if args.include is not None:
        selection = Selection.including(parse_classes(args.include, source="--include"))
    else:
        selection = Selection.excluding(parse_classes(args.exclude, source="--exclude"))
    source = read_export_source(args.path, args.revision, args.history)
    if args.history is None and source.history == "model":
        print(
            f"rho-desk: note: {args.path.name} is a snapshot document: it holds only the model context, "
            f"which is {verb}",
            file=sys.stderr,
        )
    return selection, source


def add_key_file_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--key-file",
        type=Path,
        metavar="FILE",
        help="keep rho-desk's own keys in FILE (default: the keyring, or <config folder>/keys without a secure keyring)",
    )


def key_source(args: argparse.Namespace) -> KeySource:
    """rho-desk's key source for this command; a key file entry created says so on stderr."""
    from ..keys import default_key_source

    return default_key_source(
        getattr(args, "key_file", None),
        notice=lambda text: print(f"rho-desk: {text}", file=sys.stderr),
    )


def _format(args: argparse.Namespace) -> str:
    from ..core.errors import InputError

    explicit = args.format
    if args.output is None:
        return explicit or "json"
    by_ext = _BY_EXTENSION.get(args.output.suffix.lower())
    if explicit and by_ext and explicit != by_ext:
        raise InputError(f"--format {explicit} does not match the extension of {args.output}")
    if explicit is None and by_ext is None and args.output.suffix:
        raise InputError(f"cannot tell the format from {args.output.name}; pass --format")
    return explicit or by_ext or "json"


def run(args: argparse.Namespace) -> int:
    from ..core.export import build_export, check_outputs, sign_export, write_files_atomic
    from ..providers.export_secrets import load_export_secrets

    fmt = _format(args)
    selection, source = selection_and_source(args, "exported")
    snapshot, history = source.snapshot, source.history
    output = args.output or Path(
        f"rho-session-{snapshot.session_id[:8]}-r{snapshot.revision}.{_EXTENSIONS[fmt]}"
    )
    if not output.suffix:
        output = output.with_name(f"{output.name}.{_EXTENSIONS[fmt]}")
    receipt_path = args.receipt or output.with_name(output.name + ".receipt.json")
    check_outputs([output, receipt_path], [args.path])
    if not args.force:
        from ..core.export import OutputExists

        for path in (output, receipt_path):
            if os.path.lexists(path):
                raise OutputExists(f"refusing to overwrite {path}; pass --force to replace it")

    secrets = load_export_secrets(key_source(args))
    # the two calls the export dialog makes too: the export as previewed, then its signed receipt
    result = build_export(
        source, selection, keys=secrets.keys, known_secrets=secrets.credentials, fmt=fmt
    )
    signed = sign_export(
        result,
        keys=secrets.keys,
        output_name=output.name,
        source_name=source.name,
        allow_findings=args.allow_findings,
    )
    report = result.report
    for finding in report.findings:
        print(f"finding: {finding.describe()}", file=sys.stderr)
    if signed.receipt_bytes is None:
        return fail(
            f"export blocked: {len(report.blocking)} critical or high finding(s); nothing was written "
            "(re-run with --allow-findings to write it anyway, recorded in the receipt)",
            EXIT_PROBLEMS,
        )
    write_files_atomic(
        [(output, result.data), (receipt_path, signed.receipt_bytes)],
        overwrite=args.force,
        inputs=[args.path],
    )
    excluded = ", ".join(selection.excluded_names()) or "none"
    print(
        f"wrote {output} ({fmt}, {history} history, {len(result.data)} bytes, sha256 {result.sha256})"
    )
    print(f"receipt {receipt_path} (signed)")
    print(
        f"excluded classes: {excluded}; secrets redacted: {len(result.redactions)}; findings: {len(report.findings)}"
    )
    if report.findings:
        if result.blocked:
            print(
                "written despite critical or high findings (--allow-findings, recorded in the receipt)",
                file=sys.stderr,
            )
        return EXIT_PROBLEMS
    return EXIT_OK
