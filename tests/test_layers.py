"""Imports point down: a module imports only from its own layer or the layers below, and no modules import
each other in a circle. The layers, bottom first, are listed here and nowhere else (docs/architecture.md)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("concierge.errors", "concierge.threads", "concierge.plugins", "concierge.collector")),
    ("language", ("concierge.language",)),
    ("catalog", ("concierge.catalog",)),
    ("storage", ("concierge.storage",)),
    ("sources", ("concierge.sources",)),
    ("pipeline", ("concierge.pipeline",)),
    ("model interface", ("concierge.agent.providers.interface",)),
    ("planner", ("concierge.planner",)),
    ("agent", ("concierge.agent",)),
    ("businesses and onboarding", ("concierge.demo", "concierge.onboarding")),
    ("channels", ("concierge.settings", "concierge.evaluation", "concierge.mcp", "concierge.web")),
    ("command line", ("concierge.cli", "concierge.__main__", "concierge")),
]


def _modules() -> dict[str, Path]:
    found = {}
    for path in (SRC / "concierge").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def imports_of(name: str) -> Iterator[tuple[str, int]]:
    """(module imported, line) for every import of concierge's modules in `name`, at the top or in a function."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _known(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            for alias in node.names:
                inner = f"{base}.{alias.name}"
                yield from _known(inner if inner in MODULES else base, node.lineno)


def _known(name: str, line: int) -> Iterator[tuple[str, int]]:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    if name:
        yield name, line


def layer_of(name: str) -> int:
    best, level = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, level = len(prefix), index
    return level


def test_every_module_has_a_layer():
    assert sorted(m for m in MODULES if layer_of(m) < 0) == []


def test_no_import_runs_from_a_lower_layer_to_a_higher_one():
    upward = [
        f"{name}:{line} imports {target} ({LAYERS[layer_of(name)][0]} → {LAYERS[layer_of(target)][0]})"
        for name in sorted(MODULES) for target, line in imports_of(name)
        if layer_of(target) > layer_of(name)
    ]
    assert upward == []


def test_no_modules_import_each_other_in_a_circle():
    graph = {name: {t for t, _ in imports_of(name) if t != name} for name in MODULES}
    assert [sorted(c) for c in _circles(graph)] == []


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_check_sees_an_upward_import_and_a_circle():
    assert layer_of("concierge.pipeline.pipeline") > layer_of("concierge.catalog.loader")
    assert _circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["b", "a"]]
