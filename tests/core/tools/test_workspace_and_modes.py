"""The workspace boundary (``..``, absolute paths, symlinks out: refused unless granted) and the
permission modes (plan denies, supervised asks, allow_edits frees git-tracked files, bypass)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.tools import ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolOutput
from rho_desk.core.tools.permissions import ApprovalDecision, ApprovalRequest, PermissionMode
from rho_desk.core.tools.setup import open_workspace, tool_setup
from rho_desk.core.tools.workspace import Workspace, WorkspaceMissing


class Recorder:
    """An approver that answers from a script and records every question."""

    def __init__(self, *answers: ApprovalDecision) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.answers.pop(0) if self.answers else ApprovalDecision.deny("no more answers")


def context() -> ToolContext:
    return ToolContext(call_id="c1", cancellation=CancellationToken(), session_id="s", run_id="r")


async def call(tools: dict[str, Any], name: str, **arguments: Any) -> ToolOutput | ToolError:
    try:
        prepared = await tools[name].prepare(ToolInvocation("c1", name, arguments), context())
        result: ToolOutput = await prepared.execute(context())
        return result
    except ToolError as exc:
        return exc


def toolset(
    root: Path, mode: PermissionMode, approver: Any = None, granted: tuple[Path, ...] = ()
) -> dict[str, Any]:
    setup = tool_setup(mode, approver or Recorder(), cwd=str(root), granted=granted)
    return {tool.spec().name: tool for tool in setup.tools}


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "project"
    outside = tmp_path / "elsewhere"
    root.mkdir()
    outside.mkdir()
    (root / "inside.txt").write_text("in\n")
    (outside / "secret.txt").write_text("top secret\n")
    os.symlink(outside, root / "link-out")
    os.symlink(outside / "secret.txt", root / "secret-link.txt")
    return root, outside


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "path",
    [
        "../elsewhere/secret.txt",
        "link-out/secret.txt",
        "secret-link.txt",
        "sub/../../elsewhere/secret.txt",
        "ABS",
    ],
)
async def test_escapes_are_refused_unless_granted(tree: tuple[Path, Path], path: str) -> None:
    root, outside = tree
    path = str(outside / "secret.txt") if path == "ABS" else path
    tools = toolset(root, PermissionMode.BYPASS)
    for name, args in (
        ("read_file", {"path": path}),
        ("write", {"path": path, "content": "pwned\n"}),
    ):
        result = await call(tools, name, **args)
        assert isinstance(result, ToolError), (name, result)
        assert result.kind is ToolErrorKind.POLICY_DENIED
        assert "outside the workspace" in result.message or "parent traversal" in result.message
    assert (outside / "secret.txt").read_text() == "top secret\n"
    if ".." in path:
        return  # parent traversal stays refused even inside a granted folder (as in Rho)
    granted = toolset(root, PermissionMode.BYPASS, granted=(outside,))
    result = await call(granted, "read_file", path=path)
    assert isinstance(result, ToolOutput) and result.content.endswith("1:top secret")


@pytest.mark.asyncio
async def test_writes_cannot_create_through_dangling_or_outward_links(
    tree: tuple[Path, Path],
) -> None:
    root, outside = tree
    os.symlink(outside / "new.txt", root / "dangling.txt")
    tools = toolset(root, PermissionMode.BYPASS)
    for path in ("dangling.txt", "link-out/made.txt"):
        result = await call(tools, "write", path=path, content="x\n")
        assert isinstance(result, ToolError), result
        assert result.kind in (ToolErrorKind.EXECUTION, ToolErrorKind.POLICY_DENIED)
    assert not (outside / "new.txt").exists() and not (outside / "made.txt").exists()
    ok = await call(tools, "write", path="deep/new/file.txt", content="made\n")
    assert isinstance(ok, ToolOutput) and ok.content.startswith(
        "created deep/new/file.txt\n\n[deep/new/file.txt#"
    )
    assert (root / "deep/new/file.txt").read_text() == "made\n"


def test_a_gone_workspace_is_reported_before_any_turn(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceMissing, match="is not on this machine"):
        open_workspace(str(tmp_path / "gone"))
    with pytest.raises(WorkspaceMissing, match="records no working folder"):
        open_workspace(None)
    setup = tool_setup(PermissionMode.OFF, Recorder(), cwd=str(tmp_path / "gone"))
    assert setup.tools == () and setup.workspace is None  # off needs no folder


@pytest.mark.asyncio
async def test_plan_mode_reads_and_denies_writes_and_processes(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    approver = Recorder()
    tools = toolset(root, PermissionMode.PLAN, approver)
    assert isinstance(await call(tools, "read_file", path="inside.txt"), ToolOutput)
    write = await call(tools, "write", path="inside.txt", content="changed\n")
    bash = await call(tools, "bash", command="touch made-by-bash")
    assert (
        isinstance(write, ToolError)
        and write.message == "write capability denied: capability is not allowed in plan mode"
    )
    assert (
        isinstance(bash, ToolError)
        and bash.message == "process capability denied: capability is not allowed in plan mode"
    )
    assert (root / "inside.txt").read_text() == "in\n" and not (root / "made-by-bash").exists()
    assert approver.asked == []


@pytest.mark.asyncio
async def test_supervised_asks_and_remembers_session_approvals(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    approver = Recorder(
        ApprovalDecision.deny("not that file"),
        ApprovalDecision.allow_for_session(),
        ApprovalDecision.allow_for_session(),
    )
    tools = toolset(root, PermissionMode.SUPERVISED, approver)
    denied = await call(tools, "write", path="inside.txt", content="one\n")
    assert (
        isinstance(denied, ToolError) and denied.message == "write capability denied: not that file"
    )
    assert (root / "inside.txt").read_text() == "in\n"
    assert isinstance(await call(tools, "write", path="inside.txt", content="two\n"), ToolOutput)
    assert isinstance(
        await call(tools, "write", path="inside.txt", content="three\n"), ToolOutput
    )  # remembered
    assert (root / "inside.txt").read_text() == "three\n"
    shell = await call(tools, "bash", command="echo hi")
    assert isinstance(shell, ToolOutput) and shell.content.startswith("stdout:\nhi\n")
    assert isinstance(
        await call(tools, "bash", command="echo again"), ToolOutput
    )  # the tool is remembered
    kinds = [(r.tool, r.capability.value) for r in approver.asked]
    assert kinds == [("write", "write"), ("write", "write"), ("bash", "process")]
    assert approver.asked[0].diff is not None and "-in\n+one\n" in approver.asked[0].diff
    assert approver.asked[2].command == "echo hi" and approver.asked[2].folder == str(
        root.resolve()
    )


@pytest.mark.asyncio
async def test_allow_edits_frees_git_tracked_files_only(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "inside.txt"], cwd=root, check=True)
    (root / "untracked.txt").write_text("u\n")
    approver = Recorder(ApprovalDecision.deny())
    tools = toolset(root, PermissionMode.ALLOW_EDITS, approver)
    assert isinstance(await call(tools, "write", path="inside.txt", content="free\n"), ToolOutput)
    untracked = await call(tools, "write", path="untracked.txt", content="asked\n")
    assert (
        isinstance(untracked, ToolError)
        and untracked.message == "write capability denied: denied by user"
    )
    assert [r.path for r in approver.asked] == ["untracked.txt"]
    assert (root / "inside.txt").read_text() == "free\n" and (
        root / "untracked.txt"
    ).read_text() == "u\n"


def test_modes_parse_rho_spellings() -> None:
    assert PermissionMode.parse("allow-edits") is PermissionMode.ALLOW_EDITS
    assert PermissionMode.parse(" Supervised ") is PermissionMode.SUPERVISED
    with pytest.raises(Exception, match="unknown permission mode"):
        PermissionMode.parse("auto")


def test_a_folder_swapped_after_authorization_is_not_followed(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    (root / "target").mkdir()
    (outside / "file.txt").write_text("outside\n")
    workspace = Workspace(root)
    write = workspace.resolve_for_write("target/file.txt")
    (root / "target" / "file.txt").write_text("inside\n")
    read = workspace.resolve_for_read("target/file.txt")
    folder = workspace.resolve_for_read("target")
    (root / "target" / "file.txt").unlink()
    (root / "target").rmdir()
    os.symlink(outside, root / "target")  # after authorization, before the I/O
    with pytest.raises(ToolError, match="changed after authorization"):
        workspace.replace(write, b"planted\n")
    with pytest.raises(ToolError, match="changed after authorization"):
        workspace.read_bytes(read)
    with pytest.raises(ToolError, match="changed after authorization"):
        workspace.open_folder(folder)
    assert (outside / "file.txt").read_text() == "outside\n"


@pytest.mark.asyncio
async def test_an_approval_names_the_file_a_link_leads_to(tree: tuple[Path, Path]) -> None:
    """A link inside the workspace that leads to another file of it: the approval says which file
    will be written, not only the name the model used."""
    root, _ = tree
    (root / "docs").mkdir()
    (root / "docs" / "real.md").write_text("r\n")
    os.symlink(root / "docs" / "real.md", root / "notes.md")
    approver = Recorder(ApprovalDecision.allow_once(), ApprovalDecision.allow_once())
    tools = toolset(root, PermissionMode.SUPERVISED, approver)
    assert isinstance(await call(tools, "write", path="notes.md", content="new\n"), ToolOutput)
    assert (
        approver.asked[0].summary == "Write notes.md → docs/real.md"
        and approver.asked[0].path == "notes.md → docs/real.md"
    )
    assert (root / "docs" / "real.md").read_text() == "new\n" and (root / "notes.md").is_symlink()
    assert isinstance(await call(tools, "write", path="inside.txt", content="plain\n"), ToolOutput)
    assert approver.asked[1].summary == "Write inside.txt"


@pytest.mark.asyncio
async def test_an_edit_that_changes_nothing_asks_nothing(tree: tuple[Path, Path]) -> None:
    from rho_desk.core.tools.text import file_hash

    root, _ = tree
    approver = Recorder(ApprovalDecision.allow_once())
    tools = toolset(root, PermissionMode.SUPERVISED, approver)
    tag = file_hash("in\n")
    same = f"[inside.txt#{tag}]\nPUT 1:\n+in\n"
    assert isinstance(await call(tools, "edit", input=same), ToolOutput)
    assert approver.asked == [] and (root / "inside.txt").read_text() == "in\n"
    changed = f"[inside.txt#{tag}]\nPUT 1:\n+out\n"
    assert isinstance(await call(tools, "edit", input=changed), ToolOutput)
    assert [r.summary for r in approver.asked] == ["Edit inside.txt"] and (
        root / "inside.txt"
    ).read_text() == "out\n"
