"""The values that name a call — CallSid, From, To — made safe before anything keeps, shows or compares them.

They arrive twice: in the signed POST /phone/twiml (form fields, always valid UTF-8) and in the socket's
`setup` (JSON, whose escapes can carry a lone surrogate such as "\\ud800"). Both pass through `clean`,
so the two compare equal when they name the same call and neither can reach a database driver, a JSON
encoder or the audit in a form they refuse (`Session.id`, `Session.caller`, the audit's source):
a lone surrogate becomes U+FFFD, control and invisible formatting characters are dropped, and the
value is cut to `MAX_LENGTH`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MAX_LENGTH = 64  # a CallSid is 34 characters, an E.164 number at most 16; a SIP address may be longer
MAX_DIGITS = 20  # of the caller's number, in the session id
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# C0 and C1 controls, zero-width and direction marks, line and paragraph separators, bidi isolates, BOM
_INVISIBLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def clean(value: Any, limit: int = MAX_LENGTH) -> str:
    """`value` as text that every encoder accepts and a person can read: see the module's docstring."""
    text = value if isinstance(value, str) else "" if value is None else str(value)
    text = _INVISIBLE.sub("", _SURROGATE.sub("\ufffd", text))
    return text.strip()[:limit]


def session_for(caller: str, call_sid: str) -> str:
    """The conversation of one call: the caller's digits and the call's id."""
    digits = re.sub(r"\D", "", caller)[:MAX_DIGITS] or "anonymous"
    return f"tel{digits}_{re.sub(r'[^0-9A-Za-z]', '', call_sid)[:40] or 'call'}"


@dataclass(frozen=True)
class CallIdentity:
    """One call as Twilio named it: its CallSid, the caller's number (From) and the number called (To)."""

    call_sid: str
    caller: str
    to: str = ""

    @classmethod
    def of(cls, call_sid: Any, caller: Any, to: Any = "") -> CallIdentity:
        return cls(clean(call_sid), clean(caller), clean(to))

    @property
    def session_id(self) -> str:
        return session_for(self.caller, self.call_sid)

    @property
    def source(self) -> str:
        """Where the call's audit lines come from."""
        return f"phone {self.call_sid or 'call'}"
