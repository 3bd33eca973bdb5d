"""The workspace-trust question: may the model's tools run in the folder a session names?

A session file records its folder; it does not grant it. Before the first turn with tools in a
folder the user has not trusted on this machine, the panel opens this window-modal box (never a
nested event loop): it names the folder and the session file that asks for it, and offers to
trust the folder (remembered in rho-desk's config folder; Settings lists and revokes it), to
choose another folder, to continue without tools, or to cancel (the prompt stays). A folder tools
never run in (``/``, the home folder, system folders...) is named with the reason, and cannot be
trusted.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from ...core.tools.trust import WorkspaceRefused, WorkspaceUntrusted

__all__ = ["WorkspaceTrustBox"]

_INVISIBLE = {
    0x200B,
    0x200C,
    0x200D,
    0x2060,
    0xFEFF,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
}


def plain(text: str) -> str:
    """``text`` with control, bidi and zero-width characters shown as ``<U+XXXX>`` (a folder name
    from a session file must not hide what it is)."""
    return "".join(
        f"<U+{ord(c):04X}>" if ord(c) < 32 or 0x7F <= ord(c) < 0xA0 or ord(c) in _INVISIBLE else c
        for c in text
    )


class WorkspaceTrustBox(QMessageBox):
    """Asks whether the tools may run in a folder.

    Signals:
        sig_answered(str): ``trust``, ``choose``, ``without_tools`` or ``cancel``.
    """

    sig_answered = Signal(str)

    def __init__(
        self,
        problem: WorkspaceUntrusted | WorkspaceRefused,
        parent: QWidget | None = None,
        *,
        chosen: bool = False,
    ) -> None:
        refused = problem.why if isinstance(problem, WorkspaceRefused) else None
        super().__init__(
            QMessageBox.Icon.Warning,
            "Trust this folder?",
            "",
            QMessageBox.StandardButton.NoButton,
            parent,
        )
        self.setObjectName("WorkspaceTrustBox")
        self.setTextFormat(Qt.TextFormat.PlainText)
        folder = plain(str(problem.folder))
        session = plain(problem.session or "this session")
        if refused is not None:
            self.setWindowTitle("Tools cannot run here")
            self.setText(f"The model's tools never run in {folder}: {plain(refused)}.")
        else:
            self.setText(f"Let the model's tools work in {folder}?")
        whose = (
            f"You chose this folder for the tools of {session}."
            if chosen
            else f"The session file {session} names this folder as its workspace. A session file can come from anywhere:"
        )
        self.setInformativeText(
            f"{whose} What the tools read goes to the model provider, and in the permission mode you chose "
            "some reads and changes happen without asking. Trust only a folder you know."
        )
        self.trust_button: QPushButton | None = None
        if refused is None:
            self.trust_button = self.addButton("&Trust Folder", QMessageBox.ButtonRole.AcceptRole)
            self.trust_button.setObjectName("TrustWorkspace")
        self.choose_button = self.addButton("C&hoose Folder…", QMessageBox.ButtonRole.ActionRole)
        self.choose_button.setObjectName("ChooseTrustedWorkspace")
        self.without_button = self.addButton(
            "Continue &Without Tools", QMessageBox.ButtonRole.ActionRole
        )
        self.without_button.setObjectName("TrustContinueWithoutTools")
        self.cancel_button = self.addButton(QMessageBox.StandardButton.Cancel)
        self.setDefaultButton(self.cancel_button)  # trusting is a decision, never the Enter key's
        self.setEscapeButton(self.cancel_button)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.finished.connect(self._on_finished)

    def _on_finished(self, _code: int) -> None:
        clicked = self.clickedButton()
        if self.trust_button is not None and clicked is self.trust_button:
            self.sig_answered.emit("trust")
        elif clicked is self.choose_button:
            self.sig_answered.emit("choose")
        elif clicked is self.without_button:
            self.sig_answered.emit("without_tools")
        else:
            self.sig_answered.emit("cancel")
