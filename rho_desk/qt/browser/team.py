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

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QStyleOptionViewItem,
    QToolButton,
    QWidget,
)

from ...core.errors import KnownError
from ..services.bridge import EngineBridge, in_thread
from ..services.document import SessionDocument
from ..services.team import OpenedVersion, TeamService, TeamState
from ..ui.resources import Icon, icon
from ..ui.roles import Role
from ..ui.theme import Theme
from ..ui.widgets import list_panel_layout, name_line_edit_buttons
from .sessions import ROW_HEIGHT, SessionDelegate, debounced_search, relative_time
from .team_model import TeamEntry, TeamListModel, TeamRow

__all__ = ["TeamBrowserView", "TeamDelegate"]

SEARCH_DEBOUNCE_MS: Final = 250


class TeamDelegate(SessionDelegate):
    """Paints a published session as a card, like the Local list's."""

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        return QSize(100, ROW_HEIGHT)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        row = index.data(Role.ROW)
        if not isinstance(row, TeamRow):
            super().paint(painter, option, index)
            return
        t = self.theme
        rect, selected = self.card(painter, option)
        x, right, y = rect.left() + 12, rect.right() - 10, rect.top() + 7
        base, bold, small, fm, fmb, fms = self.fonts(option)
        painter.setFont(small)
        painter.setPen(t.color("muted"))
        wwhen = fms.horizontalAdvance(row.when)
        painter.drawText(
            QRect(right - wwhen, y, wwhen, fmb.height()), Qt.AlignmentFlag.AlignVCenter, row.when
        )
        painter.setFont(bold)
        painter.setPen(t.color("text"))
        painter.drawText(
            QRect(x, y, right - x, fmb.height()),
            Qt.AlignmentFlag.AlignVCenter,
            fmb.elidedText(row.title, Qt.TextElideMode.ElideRight, right - x - wwhen - 10),
        )
        y += fmb.height() + 2
        painter.setFont(small)
        painter.setPen(t.color("muted"))
        painter.drawText(
            QRect(x, y, right - x, fms.height()),
            Qt.AlignmentFlag.AlignVCenter,
            fms.elidedText(row.meta, Qt.TextElideMode.ElideRight, right - x),
        )
        y += fms.height() + 3
        if row.highlights:
            self._snippet(
                painter, row.text, row.highlights, base, QRect(x, y, right - x, fm.height())
            )
        else:
            painter.setFont(base)
            painter.setPen(t.color("text"))
            painter.drawText(
                QRect(x, y, right - x, fm.height()),
                Qt.AlignmentFlag.AlignVCenter,
                fm.elidedText(row.text, Qt.TextElideMode.ElideRight, right - x),
            )
        y += fm.height() + 5
        painter.setFont(small)
        self.badges(painter, row.badges, x, right, y, fms, selected=selected)
        painter.restore()


class TeamBrowserView(QFrame):
    """The Team panel (see the module docstring)."""

    def __init__(
        self,
        service: TeamService,
        bridge: EngineBridge,
        document: SessionDocument,
        theme: Theme,
        parent: QWidget | None = None,
    ) -> None:
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
        self.search_icon = self.search.addAction(
            icon(Icon.SEARCH, theme.muted), QLineEdit.ActionPosition.LeadingPosition
        )
        self.search_icon.setText("Search")
        self.search.setAccessibleName("Search published sessions")
        name_line_edit_buttons(self.search, "Clear the search")
        self.receipt = QLabel("")
        self.receipt.setObjectName("ReceiptStatus")
        self.receipt.setWordWrap(True)
        self.receipt.setMinimumWidth(1)  # it wraps within the sidebar's width, never widens it
        self.receipt.hide()

        self.model = TeamListModel(self)
        self.list = QListView()
        self.list.setObjectName("TeamList")
        self.list.setModel(self.model)
        self.list.setAccessibleName("Published sessions")
        self.list.setFrameShape(QFrame.Shape.NoFrame)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setMouseTracking(True)
        self.delegate = TeamDelegate(theme, self.list)
        self.list.setItemDelegate(self.delegate)
        self.footer = QLabel("")
        self.footer.setObjectName("MutedLabel")
        self.footer.setWordWrap(True)

        list_panel_layout(
            self, [head, self.banner, self.search, self.receipt], self.list, self.footer
        )
        self._search_timer = debounced_search(
            self.search, SEARCH_DEBOUNCE_MS, self.reload_listing, self.bridge
        )
        self.list.activated.connect(self._on_list_activated)
        self.list.clicked.connect(self._on_list_activated)
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
        self.delegate.theme = theme
        self.list.viewport().update()

    def reload_listing(self) -> None:
        """List (or search) the team library again."""
        if not self.service.configured:
            self._on_state_changed(TeamState.UNCONFIGURED, "")
            return
        self._generation += 1
        generation = self._generation
        text = self.search.text().strip()
        self.bridge.run(
            self._aload(generation, text),
            on_error=self._on_load_failed,
            context="Reading the team library",
        )

    def open_row(self, row: int) -> None:
        """Open the ``row``-th listed session (as a click on its card does)."""
        self._on_list_activated(self.model.index(row))

    # -- async parts -----------------------------------------------------------------------------

    async def _aload(self, generation: int, text: str) -> None:
        rows: list[Any] = await (self.service.asearch(text) if text else self.service.alist())
        if generation != self._generation:
            return
        entries = []
        for row in rows:
            title = " ".join((row.title or row.session_id).split())
            when = row.published_at.strftime("%Y-%m-%d %H:%M")
            if text:
                shown, spans = snippet_spans(row.snippet)
                meta = f"{row.team}"
                badges: tuple[str, ...] = (f"r{row.latest_revision}",)
            else:
                shown, spans = f"published by {row.published_by}", ()
                meta = f"{row.team} · {when}"
                badges = (
                    f"r{row.latest_revision}",
                    f"{row.versions} version{'s' * (row.versions != 1)}",
                )
            card = TeamRow(
                title, relative_time(int(row.published_at.timestamp())), meta, shown, spans, badges
            )
            # what a screen reader says: the card's lines, the snippet without marks
            spoken = "\n".join((title, f"{row.team} · r{row.latest_revision} · {when}", shown))
            tooltip = f"{row.team} / {row.session_id}\n{row.title or ''}".rstrip()
            entries.append(TeamEntry(row.team, row.session_id, card, spoken, tooltip))
        self.model.set_entries(entries)
        n = len(rows)
        what = f"match “{text}”" if text else "published"
        self.footer.setText(f"{n:,} session{'s' * (n != 1)} {what}")

    def _on_load_failed(self, exc: BaseException) -> None:
        if isinstance(exc, KnownError):
            if self.service.state != TeamState.UNREACHABLE:  # (else the banner says it)
                self.footer.setText(exc.text())
        else:
            self.bridge.notifier.show_exception(exc, context="Reading the team library")

    def _on_list_activated(self, index: QModelIndex) -> None:
        entry = self.model.entry(index.row()) if index.isValid() else None
        if entry is None:
            return
        team, session_id = entry.team, entry.session_id
        self.bridge.run(
            self._aopen(team, session_id), context=f"Opening {session_id} from the team library"
        )

    async def _aopen(self, team: str, session_id: str) -> None:
        from ...providers.export_secrets import load_export_secrets

        secrets = await in_thread(load_export_secrets)
        opened = await self.service.aopen(
            team, session_id, key=secrets.keys.fingerprint, known_secrets=list(secrets.known)
        )
        self.opened = opened
        await self.document.aopen(opened.path, published_at=opened.version.published_at.timestamp())
        v, check = opened.version, opened.verification
        mark = "✔" if check.ok else "✘"
        # the signature covers the export and its receipt; the publisher's name is the library's
        # record of who published, which the signature does not cover: said as such, not as "not signed"
        full = (
            f"{mark} {check.summary}\n{team} / {session_id} r{v.revision} · published by {v.published_by} "
            f"(as the library records it) · read-only"
        )
        # the key is cut in its middle here (it cannot wrap, and would widen the sidebar); whole
        # in the tooltip and for a screen reader
        self.receipt.setText(short_keys(full).replace(f"/ {session_id} ", f"/ {session_id[:8]} "))
        self.receipt.setAccessibleDescription(full)
        self.receipt.setToolTip(
            full
            + "\n\nThe receipt's Ed25519 signature, the stored export's SHA-256 and size against it, and a "
            "fresh audit were checked. Compare the key with the publisher's `rho-desk keys` to know who signed it."
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
            self.model.clear()
            self.footer.setText(
                "No team database: set one in Settings ▸ General ▸ Team database, or $RHO_DESK_TEAM_DB."
            )
        elif state == TeamState.CONNECTED:
            recovered = self.banner.isVisible()
            self.banner.hide()
            if recovered:
                self.reload_listing()  # back: show what is there now


def short_keys(text: str) -> str:
    """``ed25519:AbCdEf…WxYz``: a long key cut in its middle, so a label can wrap around it."""
    return re.sub(
        r"\b(ed25519:[A-Za-z0-9+/]{8})[A-Za-z0-9+/]{8,}([A-Za-z0-9+/]{6}=*)", r"\1…\2", text
    )


def snippet_spans(snippet: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A database snippet (matches marked «») as its text and the matches' spans, for the card
    to highlight them as the Local list does (it removes the Markdown itself)."""
    text, spans, at = [], [], 0
    for part in re.split("(«[^»]*»)", snippet):
        if part.startswith("«") and part.endswith("»"):
            spans.append((at, at + len(part) - 2))
            part = part[1:-1]
        text.append(part)
        at += len(part)
    return "".join(text), tuple(spans)


def plain_snippet(snippet: str) -> str:
    """A database snippet (matches marked «») with its Markdown removed, the marks kept on the
    same words (the local browser's snippets read the same way)."""
    from ..ui.markdown import plain_text

    text, spans = snippet_spans(snippet)
    flat, moved = plain_text(text, spans)
    out, at = [], 0
    for start, end in moved:
        out += [flat[at:start], "«", flat[start:end], "»"]
        at = end
    return "".join(out) + flat[at:]
