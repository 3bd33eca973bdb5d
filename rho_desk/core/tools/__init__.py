"""Tools: the protocol the engine calls (``protocol``) and Rho's coding tools built on it.

``protocol`` holds what a tool declares and returns (``Tool``, ``ToolOutput``, ``ToolError``...);
the coding tools (``list_dir``, ``read_file``, ``glob``, ``grep``, ``write``, ``edit``, ``bash``)
live in ``coding``, confined to a :class:`~.workspace.Workspace` and gated by a permission mode
and a host :class:`~.permissions.Approver` (``permissions``).
"""

from .protocol import (
    EXCLUSIVE_ACCESS,
    PreparedCall,
    Tool,
    ToolAccess,
    ToolContext,
    ToolError,
    ToolErrorKind,
    ToolInvocation,
    ToolOutput,
    ToolProgress,
)

__all__ = [
    "EXCLUSIVE_ACCESS",
    "PreparedCall",
    "Tool",
    "ToolAccess",
    "ToolContext",
    "ToolError",
    "ToolErrorKind",
    "ToolInvocation",
    "ToolOutput",
    "ToolProgress",
]
