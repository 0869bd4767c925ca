"""Who may call what, and which rows they see.

The rules come from two small sources, applied in this order:

1. the catalog's ``roles``: a role the catalog does not declare may call
   none of its tools; a declared role says whether it sees every row
   (``all_rows: true``) or only the rows assigned to the user;
2. the tool's ``roles``: the roles allowed to call that tool (so a viewer
   role that is not listed on a write tool cannot write).

The row scope is applied inside the tool's SQL through identity parameters
(``:_user``, ``:_role``, ``:_all_rows``) that the pipeline fills from the
signed-in user and never from the model. Rows out of scope therefore behave
exactly as rows that do not exist.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from concierge.catalog.model import Role, Tool
from concierge.errors import ResultCode


@dataclass(frozen=True)
class User:
    name: str
    role: str
    display_name: str = ""
    # when the state database gave this role (time.monotonic()); None: held since an earlier moment
    read_at: float | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Session:
    """The conversation (or phone call) a call belongs to: `:_session`, and the caller's number `:_caller`."""

    id: str
    caller: str | None = None


def session_identity(user: User, session: Session | None) -> dict[str, object]:
    """`:_session` and `:_caller`; without a conversation (the CLI, an MCP host) the user's own session."""
    return {"_session": session.id if session else f"user:{user.name}", "_caller": session.caller if session else None}


@dataclass(frozen=True)
class Permitted:
    identity: dict[str, object]


@dataclass(frozen=True)
class Denied:
    code: ResultCode
    message: str


def decide(user: User, tool: Tool, roles: Mapping[str, Role]) -> Permitted | Denied:
    role = roles.get(user.role)
    if role is None or user.role not in tool.roles:
        return Denied(
            ResultCode.NOT_PERMITTED,
            f"user {user.name} (role {user.role}) is not permitted to call {tool.name}",
        )
    return Permitted({"_user": user.name, "_role": user.role, "_all_rows": role.all_rows})


def visible_tools(user: User, tools: Mapping[str, Tool], roles: Mapping[str, Mapping[str, Role]]) -> list[Tool]:
    """The tools `user` may call; `roles` maps a catalog name to its declared roles."""
    return [t for t in tools.values() if isinstance(decide(user, t, roles[t.catalog]), Permitted)]
