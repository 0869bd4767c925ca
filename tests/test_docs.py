"""Every catalog key and every CLI command is documented."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from concierge.catalog import model
from concierge.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _keys(cls: type[BaseModel], seen: set) -> set[str]:
    keys = set()
    for name, field in cls.model_fields.items():
        if name in ("name", "catalog") and cls is model.Tool:
            continue  # filled by the loader, not written in a file
        keys.add(name)
        for inner in _models(field.annotation):
            if inner not in seen:
                seen.add(inner)
                keys |= _keys(inner, seen)
    return keys


def _models(annotation) -> list[type[BaseModel]]:
    found = []
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        found.append(annotation)
    for arg in getattr(annotation, "__args__", ()) or ():
        found.extend(_models(arg))
    for meta in getattr(annotation, "__metadata__", ()) or ():
        found.extend(_models(meta))
    return found


def test_every_catalog_key_is_documented():
    text = (ROOT / "docs" / "catalog.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"[`{,]\s*(?:result\.)?([a-z_]+)\s*[`:]", text))
    keys = _keys(model.CatalogFile, set()) - {"ja", "en", "kind", "key", "current", "previous", "top", "code"}
    assert sorted(keys - documented) == []


def test_every_cli_command_is_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")

    def commands(group, prefix):
        for name, cmd in group.commands.items():
            path = f"{prefix} {name}"
            if hasattr(cmd, "commands"):
                yield from commands(cmd, path)
            else:
                yield path

    missing = [c for c in commands(main, "concierge") if c not in readme]
    assert missing == []
