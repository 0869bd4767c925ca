"""A drafted catalog as YAML, and written without losing a person's edits: the file keeps a hash of what
was drafted in its first line, so a later `init` replaces a file nobody edited and writes its new draft
beside one a person did (`NAME.draft.EXT`)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

HEADER = "# concierge-draft sha256="


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # a parameter's bounds written out, not &id001
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump(body: dict[str, Any]) -> str:
    return yaml.dump(body, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120, default_flow_style=False)


@dataclass(frozen=True)
class Written:
    path: Path  # where the draft went
    action: Literal["created", "updated", "unchanged", "beside"]  # beside: the file was edited; draft next to it
    kept: Path | None = None  # the edited file left as it was


def with_header(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return f"{HEADER}{digest} (edited files are kept: init then writes its new draft beside)\n" + text


def edited(existing: str) -> bool:
    """Whether a file that `write_draft` wrote has been changed since (or was never a draft)."""
    first, _, rest = existing.partition("\n")
    m = re.match(re.escape(HEADER) + r"([0-9a-f]{64})", first)
    return m is None or hashlib.sha256(rest.encode("utf-8")).hexdigest() != m.group(1)


def write_draft(path: Path, text: str) -> Written:
    """Write a drafted file; where a person edited the file there, write `NAME.draft.EXT` beside it instead."""
    path.parent.mkdir(parents=True, exist_ok=True)
    content = with_header(text)
    if not path.exists():
        path.write_text(content, encoding="utf-8")
        return Written(path, "created")
    existing = path.read_text(encoding="utf-8")
    if not edited(existing):
        if existing == content:
            return Written(path, "unchanged")
        path.write_text(content, encoding="utf-8")
        return Written(path, "updated")
    beside = path.with_name(f"{path.stem}.draft{path.suffix}")
    beside.write_text(content, encoding="utf-8")
    return Written(beside, "beside", kept=path)
