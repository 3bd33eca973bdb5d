"""Every item model of the action dialogs passes QAbstractItemModelTester and shows what it should."""

from __future__ import annotations

from PySide6.QtCore import Qt

from rho_desk.core.compaction.local import LocalCompactor, RecentBudget
from rho_desk.core.compaction.tokens import message_tokens
from rho_desk.core.export import ALL_CLASSES, ContentClass, Finding, Severity, class_stats
from rho_desk.core.wire import Message, SessionSnapshot
from rho_desk.providers.profiles import DEFAULT_PROFILE
from rho_desk.qt.compact.model import CompactionPreviewModel, Fate
from rho_desk.qt.edit.model import EditableMessagesModel, MetadataModel
from rho_desk.qt.export.model import ClassTableModel, FindingsModel
from rho_desk.qt.settings.model import ProfileListModel
from rho_desk.qt.ui.roles import Role

from ..helpers import PROVIDER, turn

HISTORY = (Message.system_text("system"), *turn(0), *turn(1), *turn(2))


def test_compaction_preview_model(qtmodeltester) -> None:
    model = CompactionPreviewModel()
    qtmodeltester.check(model)
    preview = LocalCompactor(RecentBudget(max_messages=4, max_tokens=None)).preview(HISTORY)
    model.set_preview(
        HISTORY,
        [message_tokens(m) for m in HISTORY],
        len(preview.partition.system),
        len(preview.removed),
    )
    qtmodeltester.check(model)
    assert model.rowCount() == len(HISTORY)
    fates = [model.data(model.index(r, 0), Role.KIND) for r in range(model.rowCount())]
    assert fates[0] is Fate.SYSTEM and fates.count(Fate.REMOVED) == len(preview.removed)
    assert fates[-4:] == [Fate.KEPT] * 4
    assert (
        model.data(model.index(1, 2)) == "replaced" and model.data(model.index(1, 4)) == "prompt 0"
    )
    assert model.data(model.index(1, 0), Qt.ItemDataRole.DecorationRole) is None


def test_class_table_model_checks_classes(qtmodeltester) -> None:
    model = ClassTableModel()
    qtmodeltester.check(model)
    snapshot = SessionSnapshot.new("s1", 3, HISTORY, PROVIDER)
    model.set_stats(class_stats(snapshot))
    qtmodeltester.check(model)
    changed: list[bool] = []
    model.sig_selection_changed.connect(lambda: changed.append(True))
    row = ALL_CLASSES.index(ContentClass.TOOL_RECORDS)
    assert model.data(model.index(row, 0), Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    assert model.setData(
        model.index(row, 0), Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole
    )
    assert ContentClass.TOOL_RECORDS not in model.included and changed == [True]
    assert model.data(model.index(row, 1)) == "tool_records"
    assert int(model.data(model.index(row, 2)).replace(",", "")) > 0
    assert not model.setData(model.index(row, 1), "x", Qt.ItemDataRole.EditRole)
    assert model.flags(model.index(row, 0)) & Qt.ItemFlag.ItemIsUserCheckable


def test_findings_model_never_holds_a_value(qtmodeltester) -> None:
    model = FindingsModel()
    qtmodeltester.check(model)
    findings = [
        Finding(
            "echo", Severity.MEDIUM, "$.history[3]", ContentClass.TOOL_RECORDS, digest="sha256:ab"
        ),
        Finding(
            "openai-key",
            Severity.CRITICAL,
            "$.history[1].User[0].Text",
            ContentClass.USER,
            "fp:1234",
        ),
    ]
    model.set_findings(findings)
    qtmodeltester.check(model)
    assert model.data(model.index(0, 0)) == "critical"  # sorted by severity
    assert [model.data(model.index(0, c)) for c in range(5)] == [
        "critical",
        "openai-key",
        "user",
        "$.history[1].User[0].Text",
        "fp:1234",
    ]


def test_editable_messages_model(qtmodeltester) -> None:
    model = EditableMessagesModel()
    qtmodeltester.check(model)
    model.set_history(HISTORY)
    qtmodeltester.check(model)
    model.rows[2].deleted = True
    model.refresh_rows([2])
    assert model.data(model.index(2, 2)) == "delete"
    assert model.data(model.index(2, 3), Qt.ItemDataRole.FontRole).strikeOut()
    assert model.data(model.index(1, 3), Role.TEXT) == "prompt 0"


def test_profile_and_metadata_models(qtmodeltester) -> None:
    profiles = ProfileListModel()
    qtmodeltester.check(profiles)
    profiles.set_profiles([DEFAULT_PROFILE], DEFAULT_PROFILE.name)
    profiles.set_key_state(DEFAULT_PROFILE.name, "not needed")
    qtmodeltester.check(profiles)
    first = profiles.index(0, 0)
    assert profiles.data(first, Qt.ItemDataRole.FontRole).bold()
    assert profiles.data(first, Qt.ItemDataRole.ToolTipRole).endswith("(the default profile)")
    assert profiles.data(profiles.index(0, 3)) == "not needed"
    metadata = MetadataModel()
    qtmodeltester.check(metadata)
    metadata.set_metadata({"team": "payments", "ticket": "PAY-12"})
    qtmodeltester.check(metadata)
    row = metadata.add_row()
    assert metadata.setData(metadata.index(row, 0), "team") and metadata.duplicate_keys() == [
        "team"
    ]
    metadata.remove_row(row)
    assert metadata.metadata() == {"team": "payments", "ticket": "PAY-12"}
    qtmodeltester.check(metadata)
