"""The export dialog: content classes, a live preview, the audit's findings, and the written files.

The nine content classes are listed with their string counts and sizes in the shown revision,
each with a check box. Every change (a class, the format) schedules a new export after a short
pause (debounced), built in a worker thread by :func:`rho_desk.core.export.build_export`, as
``rho-desk export`` builds it (writing only adds :func:`~rho_desk.core.export.sign_export`):
excluded classes become typed placeholders, every secret rho-desk knows of (the keyring's API
keys and opted-in environment variables, plus rho-desk's own keys: ``load_export_secrets``,
read once off the GUI thread) and every rule secret is redacted, and the exact output bytes are audited.

The export holds the conversation as shown (the display history, the default) or the model
context (the snapshot Rho resumes with); a snapshot document has only the latter. rho-desk's own
keys (fingerprint, receipt signing) come from ``rho_desk.keys.default_key_source``: the keyring,
or the key file when there is no secure keyring; creating a key file entry is announced.

The preview shows the output as text (an HTML export is shown as its source: a transcript is
untrusted input and is never rendered here). The findings table names severity, rule, class,
location and fingerprint, never a value. Critical or high findings block the export; writing
anyway needs the explicit override, which the receipt records. The output (JSON snapshot,
Markdown or HTML) and its signed receipt are written atomically, together; never over the
session file it came from.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...core.errors import error_text
from ...core.export import (
    ALL_CLASSES,
    OPINION_RULE_PREFIX,
    ContentClass,
    ExportResult,
    ExportSource,
    Finding,
    Selection,
    build_export,
    class_stats,
    display_snapshot,
    index_title,
    sign_export,
    write_files_atomic,
)
from ...core.wire import SessionSnapshot
from ...providers.export_secrets import ExportSecrets, load_export_secrets
from ..services.bridge import in_thread
from ..services.settings import PREFS_EXPORT_FORMAT, PREFS_EXPORT_INCLUDED
from ..ui.blocks import Banner, BusyRow, make_table, section_title
from ..ui.labels import human_bytes
from ..ui.screen import fit_to_screen
from ..ui.text import session_title, shorten
from .model import CLASS_LABELS, ClassTableModel, FindingsModel

if TYPE_CHECKING:
    from ..services.context import DialogHost

__all__ = ["EXTENSIONS", "ExportDialog", "ExportSources", "read_sources"]

EXTENSIONS: Final = {"json": "json", "markdown": "md", "html": "html"}
FORMAT_LABELS: Final = (
    ("json", "JSON document"),
    ("markdown", "Markdown transcript"),
    ("html", "HTML transcript"),
)
HISTORY_LABELS: Final = (
    ("display", "The conversation as shown"),
    ("model", "The model context (snapshot)"),
)
PREVIEW_LIMIT: Final = 256 * 1024
DEBOUNCE_MS: Final = 250


@dataclass(frozen=True, slots=True)
class ExportSources:
    """What the dialog can export from the shown revision."""

    model: SessionSnapshot
    display: SessionSnapshot | None
    """The display history in a snapshot (``None`` for a snapshot document: it has none)."""
    timestamps: tuple[str | None, ...]
    title: str | None


def read_sources(document: Any, node: Any) -> ExportSources:
    """The model snapshot and display history of ``node`` (run under the tree lock)."""
    model = document.snapshot(node)
    tree = document.tree
    if getattr(document, "is_snapshot_document", False) or tree is None:
        return ExportSources(model, None, (), None)
    shown = tree.display(node or document.selected, markers=True, trimmed=True)
    display = display_snapshot(model, [e.message for e in shown])
    title = index_title(document.path, model.session_id) if document.path is not None else None
    return ExportSources(model, display, tuple(e.timestamp for e in shown), title)


def echoes_note(findings: Sequence[Finding]) -> str:
    """What the medium "echo" findings are, in plain words, so a first export's findings read as
    what they are rather than as an alarm; empty without any."""
    echoes = [f for f in findings if f.rule == "excluded-content-echo"]
    if not echoes:
        return ""
    classes = (
        ", ".join(sorted({f.cls.value for f in echoes if f.cls is not None})) or "a class left out"
    )
    n = len(echoes)
    return (
        f"{'The medium finding is an echo' if n == 1 else f'The {n} medium findings are echoes'}: text of "
        f"{classes}, which you left out, that also appears in what you keep (a reasoning summary, for "
        "instance, repeats the provider's replay block it came with). Echoes do not stop the export; the "
        "Location column says where each one is. To leave that text out too, leave out the class it "
        "appears in."
    )


def second_opinion_note(findings: Sequence[Finding]) -> str:
    """What the second opinion's medium findings are, in plain words; empty without any."""
    n = sum(f.rule.startswith(OPINION_RULE_PREFIX) for f in findings)
    if not n:
        return ""
    return (
        f"{'One value looks' if n == 1 else f'{n} values look'} like a secret the redaction did not recognise "
        "(the audit's second opinion: a value under a name such as password or token, a command's argument "
        "shaped like a password, text found by decoding, or a random-looking string). It is still in the export and does not stop it; the Location column says where. Look at "
        "it in the preview, and leave out the class it is in if it should not leave."
    )


def file_stem(title: str, limit: int = 60) -> str:
    """``Flaky refund webhook test!`` as ``flaky-refund-webhook-test``: letters and digits in
    lower case, joined by dashes, cut at a word; empty when nothing of it is left."""
    import re

    words = re.findall(r"[^\W_]+", title.lower())
    stem = ""
    for word in words:
        joined = f"{stem}-{word}" if stem else word
        if len(joined) > limit:
            break
        stem = joined
    return stem or (words[0][:limit] if words else "")


class ExportDialog(QDialog):
    """Choose content classes and a format, watch the preview and the audit, write the export.

    Signals:
        sig_result_ready(object): a preview export finished (:class:`ExportResult`).
        sig_written(object, object): the export and its receipt were written (their paths).
    """

    sig_result_ready = Signal(object)
    """A preview export finished; carries the :class:`ExportResult`."""
    sig_written = Signal(object, object)
    """``(output path, receipt path)`` after both were written."""

    def __init__(self, host: DialogHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.setObjectName("ExportDialog")
        self.setWindowTitle("Export session")
        self.source: SessionSnapshot | None = None
        self.sources: ExportSources | None = None
        self.source_name = ""
        self.secrets: ExportSecrets | None = None
        self.export_result: ExportResult | None = None
        self._result_key: tuple[Any, ...] | None = None
        self._generation = 0
        self.last_written: tuple[Path, Path] | None = None
        self.file_dialog: QFileDialog | None = None

        self.heading = QLabel("Export")
        self.heading.setObjectName("PanelTitle")
        intro = QLabel(
            "Choose what leaves this machine. Secrets are redacted whatever you choose, and the exact "
            "bytes are audited before anything is written; a receipt is written beside the export."
        )
        intro.setWordWrap(True)
        intro.setProperty("muted", True)

        self.classes = ClassTableModel(self)
        included: list[str] = host.settings.get(PREFS_EXPORT_INCLUDED)
        saved = set(included)
        self.classes.included = {c for c in ALL_CLASSES if c.value in saved}
        self.class_table = make_table(
            "ExportClassTable", self.classes, stretch=0, label="Content classes"
        )
        # the class names are read whole at every width: a long one wraps onto a second line
        self.class_table.setWordWrap(True)
        self.class_table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.class_table.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents
        )
        self.class_table.setHorizontalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        )  # the names column fills
        self.class_table.setColumnHidden(
            1, True
        )  # the command line's name of each class is in its tooltip
        self.class_table.setMinimumHeight(9 * 24 + 30)
        self.format = QComboBox()
        self.format.setObjectName("ExportFormat")
        for value, label in FORMAT_LABELS:
            self.format.addItem(label, value)
        self.format.setCurrentIndex(
            max(0, self.format.findData(host.settings.get(PREFS_EXPORT_FORMAT)))
        )
        self.history = QComboBox()
        self.history.setObjectName("ExportHistory")
        for value, label in HISTORY_LABELS:
            self.history.addItem(label, value)
        self.history.setToolTip(
            "The conversation as shown keeps every message you saw, also after a compaction; the model "
            "context is what the model would be sent (after a compaction: the summary and the recent turns)."
        )
        form = QFormLayout()
        form.addRow("&History:", self.history)
        form.addRow("&Format:", self.format)

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.findings_note = QLabel()
        self.findings_note.setObjectName("FindingsNote")
        self.findings_note.setWordWrap(True)
        self.findings_note.setProperty("muted", True)
        self.findings_note.hide()
        self.findings = FindingsModel(self)
        self.findings_table = make_table(
            "FindingsTable", self.findings, stretch=3, label="Audit findings"
        )
        self.preview = QPlainTextEdit()
        self.preview.setObjectName("ExportPreview")
        self.preview.setAccessibleName("Export preview")
        self.preview.setReadOnly(True)
        self.preview.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFont("DejaVu Sans Mono")
        mono.setPointSizeF(9)
        self.preview.setFont(mono)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("ExportTabs")
        self.tabs.setAccessibleName("Audit and preview")
        audit = QWidget()
        audit_layout = QVBoxLayout(audit)
        audit_layout.setContentsMargins(0, 6, 0, 0)
        audit_layout.addWidget(self.summary)
        audit_layout.addWidget(self.findings_note)
        audit_layout.addWidget(self.findings_table, 1)
        self.tabs.addTab(audit, "Audit")
        self.tabs.addTab(self.preview, "Preview")

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(section_title("Content classes"))
        left_layout.addWidget(self.class_table, 1)
        left_layout.addLayout(form)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.tabs)
        self.splitter.setSizes([470, 590])

        self.blocked = Banner("warning")
        self.blocked.setObjectName("LibraryNotice")
        self.override = QCheckBox("Write anyway (recorded in the receipt)")
        self.override.setObjectName("OverrideFindings")
        banner_row = self.blocked.layout()
        assert banner_row is not None  # a Banner lays out its row itself
        banner_row.addWidget(self.override)
        self.blocked.hide()
        self.busy = BusyRow()
        self.busy.hide()

        self.buttons = QDialogButtonBox()
        self.export_button = self.buttons.addButton(
            "&Export…", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.export_button.setObjectName("WriteExport")
        self.export_button.setToolTip(
            "Choose where to write the export and its receipt (Ctrl+Return)"
        )
        self.export_button.setShortcut("Ctrl+Return")
        self.export_button.setEnabled(False)
        self.publish_button = self.buttons.addButton(
            "&Publish…", QDialogButtonBox.ButtonRole.ActionRole
        )
        self.publish_button.setObjectName("PublishToTeam")
        self.publish_button.setToolTip(
            "Publish this selection, audited, to a team library (Settings: Team database)"
        )
        self.publish_button.setEnabled(False)
        self.team_dialog: QInputDialog | None = None
        self.buttons.addButton(QDialogButtonBox.StandardButton.Close).clicked.connect(self.close)

        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(intro)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.blocked)
        layout.addWidget(self.busy)
        layout.addWidget(self.buttons)
        fit_to_screen(self, 1100, 720)

        self._timer = host.bridge.timer(self, DEBOUNCE_MS, self._on_timer_timeout)
        self.classes.sig_selection_changed.connect(self.schedule)
        self.format.currentIndexChanged.connect(lambda _i: self.schedule())
        self.history.currentIndexChanged.connect(lambda _i: self._on_history_changed())
        self.override.toggled.connect(lambda _on: self._update_buttons())
        self.export_button.clicked.connect(self.choose_file)
        self.publish_button.clicked.connect(self.choose_team)
        host.theme.sig_theme_changed.connect(self._on_theme_changed)
        host.document.sig_revision_selected.connect(self._on_document_revision_selected)
        self._on_theme_changed(host.theme.theme)
        self.load()

    # -- inputs --------------------------------------------------------------------------------------

    def selection(self) -> Selection:
        return Selection.including(self.classes.included)

    def fmt(self) -> str:
        return str(self.format.currentData())

    def history_kind(self) -> str:
        """``display`` (the conversation as shown) or ``model`` (the model context)."""
        return str(self.history.currentData())

    def set_history(self, kind: str) -> None:
        self.history.setCurrentIndex(self.history.findData(kind))

    def _on_history_changed(self) -> None:
        if self.sources is not None:
            self.source = self._chosen_source(self.sources)
            self.classes.set_stats(class_stats(self.source))
        self.schedule()

    def _chosen_source(self, sources: ExportSources) -> SessionSnapshot:
        if self.history_kind() == "display" and sources.display is not None:
            return sources.display
        return sources.model

    def set_selection(self, included: set[ContentClass] | frozenset[ContentClass]) -> None:
        self.classes.set_included(set(included))

    def set_format(self, fmt: str) -> None:
        self.format.setCurrentIndex(self.format.findData(fmt))

    def load(self) -> None:
        """Take the shown revision and the secrets to redact (off the GUI thread), then preview."""
        document = self.host.document
        if not document.is_open:
            return
        node = document.selected
        self.busy.busy("Reading the revision and rho-desk's keys…")

        async def gather() -> tuple[ExportSources, Any, ExportSecrets]:
            sources = await document.arun_locked(read_sources, document, node)
            stats = await in_thread(class_stats, self._chosen_source(sources))
            secrets = (
                self.secrets if self.secrets is not None else await in_thread(load_export_secrets)
            )
            return sources, stats, secrets

        def loaded(value: tuple[ExportSources, Any, ExportSecrets]) -> None:
            self.sources, stats, self.secrets = value
            for notice in self.secrets.notices:
                self.host.notifier.info(notice)
            self.secrets = dataclasses.replace(self.secrets, notices=())  # said once
            only_model = self.sources.display is None
            if only_model:
                self.set_history("model")
            self.history.setEnabled(not only_model)
            self.source = self._chosen_source(self.sources)
            self.source_name = document.path.name if document.path else ""
            self.classes.set_stats(stats)
            title = self.session_title()
            self.heading.setText(
                f"Export revision {self.source.revision} of "
                + (f"“{shorten(title, 80)}”" if title else f"session {self.source.session_id[:8]}")
            )
            self.schedule(now=True)

        def failed(exc: BaseException) -> None:
            self.busy.done("Cannot export: " + error_text(exc))
            self.host.notifier.show_exception(exc, context="Preparing the export")

        self.host.bridge.run(
            gather(), on_success=loaded, on_error=failed, context="Preparing the export"
        )

    # -- the preview ---------------------------------------------------------------------------------

    def schedule(self, *, now: bool = False) -> None:
        """Recompute the export after the debounce pause (or at once)."""
        self._result_key = None
        self._update_buttons()
        if now:
            self._timer.stop()
            self._on_timer_timeout()
        else:
            self._timer.start()

    def _key(self) -> tuple[Any, ...]:
        source = self.source
        return (
            None if source is None else (source.session_id, source.revision),
            frozenset(self.classes.included),
            self.fmt(),
            self.history_kind()
            if self.sources is None or self.sources.display is not None
            else "model",
        )

    def _on_timer_timeout(self) -> None:
        source, secrets, sources = self.source, self.secrets, self.sources
        if source is None or secrets is None or sources is None:
            return
        history = "display" if source is sources.display else "model"
        timestamps = sources.timestamps if history == "display" else None
        self._generation += 1
        generation = self._generation
        key = self._key()
        selection, fmt = self.selection(), self.fmt()
        self.busy.busy("Redacting and auditing…")

        def show(result: ExportResult) -> None:
            if generation != self._generation:
                return  # a newer choice superseded this one
            self._show_result(result, key)

        # the export as ``rho-desk export`` builds it (and writes it: :meth:`export_to` only signs)
        exported = ExportSource(
            source, history, timestamps, sources.title, self.source_name or None
        )
        self.host.bridge.run(
            in_thread(
                build_export,
                exported,
                selection,
                keys=secrets.keys,
                known_secrets=secrets.credentials,
                fmt=fmt,
            ),
            on_success=show,
            context="Building the export preview",
        )

    def _show_result(self, result: ExportResult, key: tuple[Any, ...]) -> None:
        self.export_result = result
        self._result_key = key
        self.classes.set_stats(result.stats)
        data = result.data
        text = data[:PREVIEW_LIMIT].decode("utf-8", "replace")
        if len(data) > PREVIEW_LIMIT:
            text += f"\n\n[preview shows the first {human_bytes(PREVIEW_LIMIT)} of {human_bytes(len(data))}]"
        self.preview.setPlainText(text)
        report = result.report
        self.findings.set_findings(report.findings)
        counts = report.counts()
        found = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no findings"
        excluded = ", ".join(result.selection.excluded_names()) or "none"
        self.summary.setText(
            f"<b>{human_bytes(len(data))}</b> of {result.format}, "
            f"{'the conversation as shown' if result.history == 'display' else 'the model context'} · "
            f"{len(result.redactions)} secret(s) redacted · "
            f"audit: {found}<br>excluded: {excluded} · {result.known_checked} known credential(s) checked"
        )
        note = "\n\n".join(
            filter(None, (echoes_note(report.findings), second_opinion_note(report.findings)))
        )
        self.findings_note.setText(note)
        self.findings_note.setVisible(bool(note))
        if result.blocked:
            self.blocked.text.setText(
                f"<b>{len(report.blocking)} critical or high finding(s).</b> The export is blocked: change the "
                "selection, or write it anyway."
            )
            self.blocked.show()
        else:
            self.override.setChecked(False)
            self.blocked.hide()
        self.busy.done(f"Preview ready: {human_bytes(len(data))}, sha256 {result.sha256[:16]}…")
        self._update_buttons()
        self.sig_result_ready.emit(result)

    def current(self) -> ExportResult | None:
        """The export for exactly the current choices, if it is computed."""
        return (
            self.export_result
            if self._result_key is not None and self._result_key == self._key()
            else None
        )

    def _update_buttons(self) -> None:
        result = self.current()
        ready = result is not None and (not result.blocked or self.override.isChecked())
        self.export_button.setEnabled(ready)
        self.publish_button.setEnabled(ready and self.host.team.configured)

    # -- publishing -----------------------------------------------------------------------------------

    def choose_team(self) -> None:
        """Ask which of your teams to publish to (non-modal), then publish."""
        team = self.host.team
        if self.current() is None:
            return

        def chosen(names: list[str]) -> None:
            if not names:
                self.host.notifier.warning("You are not a member of any team in the team library.")
                return
            dialog = QInputDialog(self)
            dialog.setWindowTitle("Publish to a team")
            dialog.setLabelText(self.publish_summary() + "\n\nTeam:")
            dialog.setComboBoxItems(names)
            dialog.setMinimumWidth(460)  # room for the title and the summary
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.textValueSelected.connect(self.publish_to)
            self.team_dialog = dialog
            dialog.open()

        self.host.bridge.run(team.ateams(), on_success=chosen, context="Listing your teams")

    def publish_summary(self) -> str:
        """What Publish sends, in words, for the team picker."""
        history = dict(HISTORY_LABELS)[self.history_kind()].lower()
        left_out = [CLASS_LABELS[c].lower() for c in ALL_CLASSES if c not in self.classes.included]
        without = f", without {', '.join(left_out)}" if left_out else ""
        kept = (
            ""
            if self.fmt() == "json"
            else f" (a team library keeps JSON: the {dict(FORMAT_LABELS)[self.fmt()]} format is for files)"
        )
        return (
            f"Publishes {history}{without}, secrets redacted, as a JSON document{kept}, with its signed receipt. "
            "Every member of the team can read it."
        )

    def publish_source(self) -> ExportSource | None:
        """What Publish exports: the shown revision in the chosen history (as the preview)."""
        source, sources = self.source, self.sources
        if source is None or sources is None:
            return None
        display = source is sources.display
        return ExportSource(
            source,
            "display" if display else "model",
            sources.timestamps if display else None,
            sources.title,
            self.source_name or None,
        )

    def publish_to(self, team_name: str) -> None:
        """Publish the shown revision, in the chosen history, with the current classes to
        ``team_name`` (in a bridge task); the receipt is signed with rho-desk's key."""
        team = self.host.team
        result = self.current()
        source = self.publish_source()
        if result is None or source is None or self.secrets is None:
            return
        allow = bool(result.blocked and self.override.isChecked())
        if result.blocked and not allow:
            return
        self.busy.busy(f"Publishing to {team_name}…")

        def published(value: Any) -> None:
            _pub, outcome = value
            if outcome.added:
                text = (
                    f"Published revision {outcome.revision} ({outcome.history} history) to team {team_name} "
                    f"({outcome.versions} version(s) kept), signed."
                )
            else:
                text = (
                    f"Revision {outcome.revision} is already published to team {team_name} "
                    f"({outcome.history} history); nothing changed."
                )
            self.busy.done(text)
            self.host.notifier.info(text)
            if outcome.added:  # a team has it now: nothing before can be undone past it
                self.host.undo_stack.record(f"Publish to Team {team_name}")

        def failed(exc: BaseException) -> None:
            self.busy.done("Nothing was published.")
            self.host.notifier.show_exception(exc, context="Publishing to the team library")

        self.host.bridge.run(
            team.apublish(
                team_name,
                source,
                result.selection,
                keys=self.secrets.keys,
                known_secrets=list(self.secrets.credentials),
                allow_findings=allow,
            ),
            on_success=published,
            on_error=failed,
            context="Publishing to the team library",
        )

    # -- writing --------------------------------------------------------------------------------------

    def session_title(self) -> str:
        """The session's title as the window shows it (the index's title, else its first
        prompt); empty when the library does not list it."""
        return session_title(self.host.summary_for_open(), "")

    def default_name(self) -> str:
        """``flaky-refund-webhook-test-r6.md``: the session's title and the revision, else
        ``rho-session-5f0c2a9e-r6.md``."""
        source = self.source
        ext = EXTENSIONS[self.fmt()]
        if source is None:
            return f"rho-session.{ext}"
        stem = file_stem(self.session_title())
        return f"{stem or 'rho-session-' + source.session_id[:8]}-r{source.revision}.{ext}"

    def choose_file(self) -> None:
        """Ask where to write (a non-modal file dialog), then write."""
        if self.current() is None:
            return
        start = Path(self.host.export_dir or Path.home()) / self.default_name()
        dialog = QFileDialog(self, "Export to", str(start))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setFileMode(QFileDialog.FileMode.AnyFile)
        ext = EXTENSIONS[self.fmt()]
        dialog.setNameFilters([f"{dict(FORMAT_LABELS)[self.fmt()]} (*.{ext})", "All files (*)"])
        dialog.setDefaultSuffix(ext)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda name: self.export_to(Path(name)))
        self.file_dialog = dialog
        dialog.open()

    def export_to(self, output: Path) -> None:
        """Write the current export to ``output`` and its receipt beside it (in a bridge task)."""
        result = self.current()
        if result is None or self.secrets is None:
            return
        allow = bool(result.blocked and self.override.isChecked())
        if result.blocked and not allow:
            return
        if not output.suffix:
            output = output.with_name(f"{output.name}.{EXTENSIONS[result.format]}")
        receipt_path = output.with_name(output.name + ".receipt.json")
        signed = sign_export(
            result,
            keys=self.secrets.keys,
            output_name=output.name,
            source_name=self.source_name or None,
            allow_findings=allow,
        )
        assert signed.receipt_bytes is not None  # not blocked, or the override is recorded
        files = [(output, result.data), (receipt_path, signed.receipt_bytes)]
        settings = self.host.settings
        settings.set(PREFS_EXPORT_INCLUDED, result.selection.included_names())
        settings.set(PREFS_EXPORT_FORMAT, result.format)
        self.busy.busy(f"Writing {output.name}…")

        def written(_value: object) -> None:
            self.last_written = (output, receipt_path)
            self.host.export_dir = output.parent
            note = " (written despite blocking findings; recorded in the receipt)" if allow else ""
            self.busy.done(f"Wrote {output} and its receipt{note}.")
            self.host.notifier.info(f"Exported to {output.name}{note}")
            self.sig_written.emit(output, receipt_path)

        def failed(exc: BaseException) -> None:
            self.busy.done("Nothing was written.")
            self.host.notifier.show_exception(exc, context="Writing the export")

        inputs = [self.host.document.path] if self.host.document.path is not None else []
        self.host.bridge.run(
            in_thread(write_files_atomic, files, overwrite=True, inputs=inputs),
            on_success=written,
            on_error=failed,
            context="Writing the export",
        )

    # -- reacting --------------------------------------------------------------------------------------

    def _on_document_revision_selected(self, _node: object) -> None:
        if self.isVisible():
            self.load()

    def _on_theme_changed(self, theme: Any) -> None:
        self.findings.set_colors(theme.danger, theme.warning, theme.muted)
