"""The Team scope of the session browser: sessions published to the team library.

Lists the published sessions the connected role may read (newest first), searches them with the
database's full-text and substring search (snippets with the matches marked «»), and opens one
read-only in the usual conversation, revision and statistics views. Opening verifies the stored
receipt (its Ed25519 signature, the export's hash against it, a fresh audit) and shows the result
above the list: "signed by ed25519:… — valid" or "INVALID: …". When the database cannot be
reached, a banner says so and the panel recovers by itself once it answers again.
"""

from __future__ import annotations

import re
from typing import Any, Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QToolButton,
    QWidget,
)

from ...core.errors import KnownError
from ..services.bridge import EngineBridge, in_thread
from ..services.document import SessionDocument
from ..services.team import OpenedVersion, TeamService, TeamState
from .resources import Icon, icon
from .theme import Theme
from .widgets import debounced_search, list_panel_layout, name_line_edit_buttons

__all__ = ["TeamBrowserView"]

SEARCH_DEBOUNCE_MS: Final = 250


class TeamBrowserView(QFrame):
    """The Team panel (see the module docstring)."""

    def __init__(self, service: TeamService, bridge: EngineBridge, document: SessionDocument, theme: Theme,
                 parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.setObjectName("TeamPanel")
        self.service = service
        self.bridge = bridge
        self.document = document
        self.theme = theme
        self.opened: OpenedVersion | None = None
        self._generation = 0

        title = QLabel("Team library")
        title.setObjectName("PanelTitle")
        self.refresh_button = QToolButton()
        self.refresh_button.setIcon(icon(Icon.RELOAD, theme.text))
        self.refresh_button.setToolTip("List the published sessions again")
        self.refresh_button.setAutoRaise(True)
        self.refresh_button.setAccessibleName("List the published sessions again")
        self.refresh_button.clicked.connect(self.reload_listing)
        head = QHBoxLayout()
        head.addWidget(title, 1)
        head.addWidget(self.refresh_button)

        self.banner = QLabel("")
        self.banner.setObjectName("TeamBanner")
        self.banner.setWordWrap(True)
        self.banner.hide()
        self.search = QLineEdit()
        self.search.setObjectName("TeamSearch")
        self.search.setPlaceholderText("Search published sessions")
        self.search.setClearButtonEnabled(True)
        self.search_icon = self.search.addAction(icon(Icon.SEARCH, theme.muted), QLineEdit.ActionPosition.LeadingPosition)
        self.search_icon.setText("Search")
        self.search.setAccessibleName("Search published sessions")
        name_line_edit_buttons(self.search, "Clear the search")
        self.receipt = QLabel("")
        self.receipt.setObjectName("ReceiptStatus")
        self.receipt.setWordWrap(True)
        self.receipt.hide()

        self.list = QListWidget()
        self.list.setObjectName("TeamList")
        self.list.setAccessibleName("Published sessions")
        self.list.setFrameShape(QFrame.Shape.NoFrame)
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.footer = QLabel("")
        self.footer.setObjectName("MutedLabel")
        self.footer.setWordWrap(True)

        list_panel_layout(self, [head, self.banner, self.search, self.receipt], self.list, self.footer)
        self._search_timer = debounced_search(self.search, SEARCH_DEBOUNCE_MS, self.reload_listing, self.bridge)
        self.list.itemActivated.connect(self._on_item_activated)
        self.list.itemClicked.connect(self._on_item_activated)
        service.sig_state_changed.connect(self._on_state_changed)
        service.sig_reconfigured.connect(self.reload_listing)
        self.set_theme(theme)
        self._on_state_changed(service.state, service.message)

    # -- public API -----------------------------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.refresh_button.setIcon(icon(Icon.RELOAD, theme.text))
        self.search_icon.setIcon(icon(Icon.SEARCH, theme.muted))
        self.banner.setStyleSheet(
            f"background: {theme.warning_soft}; color: {theme.text}; border: 1px solid {theme.warning}; "
            "border-radius: 6px; padding: 6px 8px;"
        )
        self.list.setStyleSheet(
            f"QListWidget#TeamList::item {{ padding: 7px 12px; border-bottom: 1px solid {theme.border}; }}"
        )

    def reload_listing(self) -> None:
        """List (or search) the team library again."""
        if not self.service.configured:
            self._on_state_changed(TeamState.UNCONFIGURED, "")
            return
        self._generation += 1
        generation = self._generation
        text = self.search.text().strip()
        self.bridge.run(self._aload(generation, text), on_error=self._on_load_failed, context="Reading the team library")

    def open_item(self, item: QListWidgetItem) -> None:
        self._on_item_activated(item)

    # -- async parts -----------------------------------------------------------------------------

    async def _aload(self, generation: int, text: str) -> None:
        rows: list[Any] = await (self.service.asearch(text) if text else self.service.alist())
        if generation != self._generation:
            return
        self.list.clear()
        for row in rows:
            title = row.title or row.session_id
            when = row.published_at.strftime("%Y-%m-%d %H:%M")
            lines = [title, f"{row.team} · r{row.latest_revision} · {when}"]
            if text:
                lines.append(plain_snippet(row.snippet))
            else:
                lines[1] += f" · {row.published_by} · {row.versions} version{'s' * (row.versions != 1)}"
            item = QListWidgetItem("\n".join(lines))
            item.setData(Qt.ItemDataRole.UserRole, (row.team, row.session_id))
            item.setToolTip(f"{row.team} / {row.session_id}")
            self.list.addItem(item)
        n = len(rows)
        what = f"match “{text}”" if text else "published"
        self.footer.setText(f"{n:,} session{'s' * (n != 1)} {what}")

    def _on_load_failed(self, exc: BaseException) -> None:
        if isinstance(exc, KnownError):
            if self.service.state != TeamState.UNREACHABLE:  # (else the banner says it)
                self.footer.setText(exc.text())
        else:
            self.bridge.notifier.show_exception(exc, context="Reading the team library")

    def _on_item_activated(self, item: QListWidgetItem) -> None:
        team, session_id = item.data(Qt.ItemDataRole.UserRole)
        self.bridge.run(self._aopen(team, session_id), context=f"Opening {session_id} from the team library")

    async def _aopen(self, team: str, session_id: str) -> None:
        from ...providers.export_secrets import load_export_secrets

        secrets = await in_thread(load_export_secrets)
        opened = await self.service.aopen(team, session_id, key=secrets.key, known_secrets=list(secrets.known))
        self.opened = opened
        await self.document.aopen(opened.path)
        v, check = opened.version, opened.verification
        mark = "✔" if check.ok else "✘"
        self.receipt.setText(
            f"{mark} {check.summary}\n{team} / {session_id} r{v.revision} · published by {v.published_by} "
            f"(not signed) · read-only"
        )
        self.receipt.setToolTip(
            "The receipt's Ed25519 signature, the stored export's SHA-256 and size against it, and a fresh "
            "audit were checked. Compare the key with the publisher's `rho-desk keys` to know who signed it."
            + ("".join(f"\n✘ {p}" for p in check.problems))
        )
        color = self.theme.success if check.ok else self.theme.danger
        self.receipt.setStyleSheet(f"color: {color}; font-weight: 600;")
        self.receipt.show()

    # -- slots -------------------------------------------------------------------------------------

    def _on_state_changed(self, state: str, message: str) -> None:
        if state == TeamState.UNREACHABLE:
            self.banner.setText(
                "⚠ The team database is unreachable; retrying every few seconds. The list shows "
                "what was there last."
            )
            self.banner.setToolTip(message)
            self.banner.show()
        elif state == TeamState.UNCONFIGURED and not self.service.configured:
            self.banner.hide()
            self.list.clear()
            self.footer.setText("No team database: set one in Settings ▸ General ▸ Team database.")
        elif state == TeamState.CONNECTED:
            recovered = self.banner.isVisible()
            self.banner.hide()
            if recovered:
                self.reload_listing()  # back: show what is there now


def plain_snippet(snippet: str) -> str:
    """A database snippet (matches marked «») with its Markdown removed, the marks kept on the
    same words (the local browser's snippets read the same way)."""
    from .markdown import plain_text

    text, spans, at = [], [], 0
    for part in re.split("(«[^»]*»)", snippet):
        if part.startswith("«") and part.endswith("»"):
            spans.append((at, at + len(part) - 2))
            part = part[1:-1]
        text.append(part)
        at += len(part)
    flat, moved = plain_text("".join(text), tuple(spans))
    out, at = [], 0
    for start, end in moved:
        out += [flat[at:start], "«", flat[start:end], "»"]
        at = end
    return "".join(out) + flat[at:]
