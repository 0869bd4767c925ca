"""Load catalog files and check them completely before anything starts.

Every problem found is collected (file + key + what is wrong) and raised
together as one `CatalogError`; a broken catalog never starts half-way.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import yaml
from pydantic import ValidationError

from concierge.catalog import http_checks
from concierge.catalog.model import (
    EXTRACT_TYPES,
    IDENTITY_PARAMS,
    NAME_PATTERN,
    SQL_PARAM,
    SUMMARY_KEYS,
    CatalogFile,
    CodeExtract,
    CountExtract,
    Current,
    DateExtract,
    EnumExtract,
    Extract,
    HttpSource,
    Lines,
    Param,
    ResultShape,
    Tool,
    placeholders,
    template_problem,
)
from concierge.catalog.secrets import ResolvedSource, resolve_sources
from concierge.errors import CatalogError, CatalogProblem
from concierge.plugins import demos


@dataclass(frozen=True)
class Catalog:
    name: str
    file: str
    spec: CatalogFile
    tools: dict[str, Tool] = field(default_factory=dict)
    # http sources with their `${NAME}` values read; never shown (docs/catalog.md, "Sources")
    sources: dict[str, ResolvedSource] = field(default_factory=dict, repr=False)

    @property
    def demo_today(self) -> date | None:
        return date.fromisoformat(self.spec.demo_today) if self.spec.demo_today else None


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses duplicate keys instead of keeping the last one."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: set = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    loader.flatten_mapping(node)  # YAML merge keys (<<: *anchor)
    return loader.construct_mapping(node, deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def resolve_path(ref: str) -> Path:
    """A demo's name (`concierge.plugins`) names its catalog; anything else is a path."""
    known = demos()
    if ref in known:
        return known[ref].catalog
    path = Path(ref)
    if not path.exists():
        names = ", ".join(known) or "none"
        raise CatalogError([CatalogProblem(ref, "(file)", f"no such catalog file; demo catalogs by name: {names}")])
    return path


def load_catalog(ref: str, env: Mapping[str, str] | None = None) -> Catalog:
    """`env`: where `${NAME}` values come from (default: the environment)."""
    path = resolve_path(ref)
    return parse_catalog(path.read_text(encoding="utf-8"), str(path), env)


def load_catalogs(refs: list[str]) -> list[Catalog]:
    catalogs: list[Catalog] = []
    problems: list[CatalogProblem] = []
    owner: dict[str, str] = {}
    for ref in refs:
        try:
            cat = load_catalog(ref)
        except CatalogError as err:
            problems.extend(err.problems)
            continue
        for name in cat.tools:
            if name in owner:
                problems.append(CatalogProblem(cat.file, f"tools.{name}", f"also declared in {owner[name]}"))
            owner[name] = cat.file
        catalogs.append(cat)
    if problems:
        raise CatalogError(problems)
    return catalogs


def parse_catalog(text: str, file: str, env: Mapping[str, str] | None = None) -> Catalog:
    """The catalog `text` (read from `file`), checked completely; `${NAME}` values read from `env`
    (default: the environment). Every problem at once, as one `CatalogError`."""
    try:
        raw = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else "(yaml)"
        raise CatalogError([CatalogProblem(file, where, str(getattr(err, "problem", err)))]) from None
    if not isinstance(raw, dict):
        raise CatalogError([CatalogProblem(file, "(root)", "a catalog is a mapping with catalog, roles, tools")])
    try:
        spec = CatalogFile.model_validate(raw)
    except ValidationError as err:
        raise CatalogError(
            [
                CatalogProblem(file, ".".join(str(p) for p in _key_of(e["loc"])) or "(root)", e["msg"])
                for e in err.errors()
            ]
        ) from None
    problems = list(_check(spec, file))
    sources, unresolved = resolve_sources(spec, file, os.environ if env is None else env)
    problems += unresolved
    if problems:
        raise CatalogError(problems)
    tools = {name: _filled(tool, name, spec) for name, tool in spec.tools.items()}
    return Catalog(name=spec.catalog, file=file, spec=spec, tools=tools, sources=sources)


def _key_of(loc: tuple) -> tuple:
    """A validation error's location as the file's keys: a source's `kind` tag, which pydantic adds
    (`sources.bot.http.colour`), left out."""
    if len(loc) > 2 and loc[0] == "sources" and loc[2] in ("http", "sql"):
        return loc[:2] + loc[3:]
    return loc


def _filled(tool: Tool, name: str, spec: CatalogFile) -> Tool:
    """The tool with its name and catalog, each `enum.http` with its source (default: the tool's), and the
    currency of its money (default: the catalog's)."""
    params = dict(tool.params)
    for pname, p in tool.params.items():
        if p.enum is not None and p.enum.http is not None and p.enum.http.source is None:
            call = p.enum.http.model_copy(update={"source": tool.source})
            params[pname] = p.model_copy(update={"enum": p.enum.model_copy(update={"http": call})})
    result = tool.result if tool.result.currency or not spec.currency else \
        tool.result.model_copy(update={"currency": spec.currency})
    return tool.model_copy(update={"name": name, "catalog": spec.catalog, "params": params, "result": result})


def _check(spec: CatalogFile, file: str):
    def problem(key: str, message: str) -> CatalogProblem:
        return CatalogProblem(file, key, message)

    if spec.demo_today and not _is_iso(spec.demo_today):
        yield problem("demo_today", "must be a date YYYY-MM-DD")
    if spec.demo_time and not re.fullmatch(r"([01][0-9]|2[0-3]):[0-5][0-9]", spec.demo_time):
        yield problem("demo_time", "must be a time of day HH:MM")
    yield from _check_rules(spec, problem)
    for name, tool in spec.tools.items():
        key = f"tools.{name}"
        if not re.match(NAME_PATTERN, name):
            yield problem(key, "a tool name is letters, digits and _ (at most 64), starting with a letter")
        for role in tool.roles:
            if role not in spec.roles:
                yield problem(f"{key}.roles", f"unknown role {role!r}; declared roles: {', '.join(spec.roles)}")
        yield from _check_params(tool, key, problem)
        if tool.source is None or not isinstance(spec.sources.get(tool.source), HttpSource):
            yield from _check_sql(tool, key, problem)
            yield from _check_sql_mode(tool, key, problem)
        yield from http_checks.check_tool(spec, name, tool, key, problem)
        yield from _check_planner(spec, tool, key, problem)
        yield from _check_mode(tool, key, problem)
        yield from _check_answer(tool, key, problem)
        yield from _check_rollup(spec, tool, key, problem)
    for name, rollup in spec.rollups.items():
        columns = [*rollup.group_by, *rollup.sums]
        for column in sorted({c for c in columns if columns.count(c) > 1}):
            yield problem(f"rollups.{name}", f"{column!r} is named twice")
        if name == rollup.table:
            yield problem(f"rollups.{name}.table", "a rollup is a table of its own; give it another name")


def _check_rollup(spec: CatalogFile, tool: Tool, key: str, problem):
    """A tool's rollup statement: a SELECT over a declared rollup, taking only the tool's parameters."""
    if tool.rollup is None:
        return
    where = f"{key}.rollup"
    if tool.rollup.table not in spec.rollups:
        yield problem(f"{where}.table", f"{tool.rollup.table!r} is not declared under rollups "
                                        f"({', '.join(spec.rollups) or 'none declared'})")
    if tool.mode != "read" or tool.source is not None:
        yield problem(where, "only a read tool of the business database reads a rollup")
    if not re.match(r"^\s*(select|with)\b", tool.rollup.sql, re.I):
        yield problem(f"{where}.sql", "a rollup statement is one SELECT (or WITH ... SELECT)")
    elif not re.search(rf"\b{re.escape(tool.rollup.table)}\b", tool.rollup.sql):
        yield problem(f"{where}.sql", f"reads no {tool.rollup.table}: the statement must read its rollup")
    known = set(tool.params) | set(IDENTITY_PARAMS)
    for used in sorted(set(SQL_PARAM.findall(tool.rollup.sql)) - known):
        yield problem(f"{where}.sql", f":{used} is not a declared parameter")
    for name, allowed in tool.rollup.only.items():
        param = tool.params.get(name)
        if param is None:
            yield problem(f"{where}.only.{name}", f"{name!r} is not a parameter of the tool")
        elif param.enum is not None and param.enum.values and set(allowed) - set(param.enum.values):
            unknown = ", ".join(sorted(set(allowed) - set(param.enum.values)))
            yield problem(f"{where}.only.{name}", f"{unknown}: not among the values of {name} "
                                                 f"({', '.join(param.enum.values)})")


def _check_mode(tool: Tool, key: str, problem):
    """Periods, confirmation and previews: what a read or a write tool may declare."""
    for i, (a, b) in enumerate(tool.ordered):
        for p in (a, b):
            if p not in tool.params or tool.params[p].type != "date":
                yield problem(f"{key}.ordered.{i}", f"{p!r} is not a date parameter of this tool")
    if tool.confirm and tool.mode != "write":
        yield problem(f"{key}.confirm", "only write tools need confirmation")
    if tool.mode == "read" and tool.generated:
        yield problem(f"{key}.generated", "only write tools generate values")
    for i, check in enumerate(tool.checks):
        if check.implied_by_rows and tool.mode != "read":
            yield problem(f"{key}.checks.{i}.implied_by_rows", "only a read tool's rows can imply a check: "
                          "a write's checks run before it writes")


def _check_sql_mode(tool: Tool, key: str, problem):
    """What a SQL tool's statement and preview must be."""
    if tool.confirm and not tool.preview_sql:
        yield problem(f"{key}.preview_sql", "a tool that needs confirmation must declare preview_sql")
    if tool.preview_sql and not tool.confirm:
        yield problem(f"{key}.preview_sql", "preview_sql is only used by tools with confirm: true")
    if not tool.sql.strip():
        yield problem(f"{key}.sql", "a tool runs SQL (declare sql) or calls a web API (declare an http source)")
    elif tool.mode == "read" and not re.match(r"^\s*(select|with)\b", tool.sql, re.I):
        yield problem(f"{key}.sql", "a read tool runs one SELECT (or WITH ... SELECT)")


def _check_params(tool: Tool, key: str, problem):
    for pname, p in tool.params.items():
        pkey = f"{key}.params.{pname}"
        if not re.match(NAME_PATTERN, pname):
            yield problem(pkey, "a parameter name is letters, digits and _, starting with a letter")
        for where, message in [*_misplaced(p), *_limits(p), *_enum(p), *_bounds(p), *_default(p)]:
            yield problem(f"{pkey}.{where}", message)


def _misplaced(p: Param):
    """Settings that belong to another type of parameter."""
    allowed = {
        "min": "integer", "max": "integer", "min_length": "string", "max_length": "string",
        "pattern": "string", "match": "string", "bounds": "date", "enum": "enum",
    }
    for attr, kind in allowed.items():
        if getattr(p, attr) is not None and p.type != kind:
            yield attr, f"not a setting of a {p.type} parameter"


def _limits(p: Param):
    if p.min is not None and p.max is not None and p.min > p.max:
        yield "min", f"min {p.min} is greater than max {p.max}"
    if p.pattern is not None:
        try:
            re.compile(p.pattern)
        except re.error as err:
            yield "pattern", f"not a valid regular expression: {err}"


def _enum(p: Param):
    if p.type != "enum":
        return
    if p.enum is None or [p.enum.values, p.enum.query, p.enum.http].count(None) != 2:
        yield "enum", "an enum declares either values or a query, or an http listing (enum.http)"
        return
    yield from http_checks.enum_problems(p.enum)
    if p.enum.synonyms_query is not None and p.enum.query is None:
        yield "enum.synonyms_query", "synonyms are read from the data beside values read from it: declare enum.query"
    if (p.enum.shared_query is None) != (p.enum.shared_param is None):
        yield "enum.shared_query", "a value that names several rows is refused for the key of one: declare both " \
            "enum.shared_query and enum.shared_param"
    if (p.enum.fits_query is None) != (p.enum.fits_param is None):
        yield "enum.fits_query", "the values another parameter's values take: declare both enum.fits_query and " \
            "enum.fits_param"
    if p.enum.values is not None:
        for syn, target in p.enum.synonyms.items():
            if target not in p.enum.values:
                yield f"enum.synonyms.{syn}", f"{target!r} is not one of the values"


def _bounds(p: Param):
    for end in ("min", "max"):
        value = getattr(p.bounds, end) if p.bounds is not None else None
        if value is not None and value != "today" and not _is_iso(value):
            yield f"bounds.{end}", "must be YYYY-MM-DD or today"


def _default(p: Param):
    if p.required and p.default is not None:
        yield "default", "a required parameter has no default"
    if p.default is not None:
        message = _default_problem(p)
        if message:
            yield "default", message


def _default_problem(p: Param) -> str | None:
    if p.type == "date" and not (p.default == "today" or (isinstance(p.default, str) and _is_iso(p.default))):
        return "a date default is YYYY-MM-DD or today"
    if p.type == "integer" and (isinstance(p.default, bool) or not isinstance(p.default, int)):
        return "must be an integer"
    if p.type == "string" and not isinstance(p.default, str):
        return "must be a string"
    if p.type == "enum" and p.enum and p.enum.values is not None and p.default not in p.enum.values:
        return f"{p.default!r} is not one of the values"
    return None


def _sql_texts(tool: Tool, key: str) -> dict[str, str]:
    """Every statement of a SQL tool, by its key."""
    texts = {f"{key}.sql": tool.sql}
    if tool.preview_sql:
        texts[f"{key}.preview_sql"] = tool.preview_sql
    for i, check in enumerate(tool.checks):
        texts[f"{key}.checks.{i}.sql"] = check.sql
        if check.offer:
            texts[f"{key}.checks.{i}.offer"] = check.offer
    texts.update({f"{key}.then.{i}": statement for i, statement in enumerate(tool.then)})
    return texts


def _check_sql(tool: Tool, key: str, problem):
    known = set(tool.params) | set(IDENTITY_PARAMS) | set(tool.generated)
    texts = _sql_texts(tool, key)
    if tool.then and tool.mode != "write":
        yield problem(f"{key}.then", "only a write runs further statements")
    for where, sql in texts.items():
        for used in sorted(set(SQL_PARAM.findall(sql)) - known):
            yield problem(where, f":{used} is not a declared parameter")
    used_anywhere = set().union(*(SQL_PARAM.findall(s) for s in texts.values()))
    for pname in tool.params:
        if pname not in used_anywhere:
            yield problem(f"{key}.params.{pname}", "declared but never used in the SQL")
    for gname in tool.generated:
        if not gname.startswith("_"):
            yield problem(f"{key}.generated.{gname}", "generated values start with _ so no caller can set them")
    for pname, p in tool.params.items():
        yield from _check_data_queries(tool, key, pname, p, problem)


def _check_data_queries(tool: Tool, key: str, pname: str, p: Param, problem):
    """A parameter's queries of the data take no parameters; the parameters its enum names are the tool's."""
    data_queries = {"bounds": p.bounds.query if p.bounds else None, "enum": p.enum.query if p.enum else None,
                    "enum.synonyms": p.enum.synonyms_query if p.enum else None,
                    "enum.shared": p.enum.shared_query if p.enum else None,
                    "enum.fits": p.enum.fits_query if p.enum else None}
    for other in ("shared_param", "fits_param"):
        named = getattr(p.enum, other) if p.enum else None
        if named is not None and named not in tool.params:
            yield problem(f"{key}.params.{pname}.enum.{other}", f"no parameter {named!r} in this tool")
    for what, query in data_queries.items():
        if query and SQL_PARAM.findall(query):
            yield problem(f"{key}.params.{pname}.{what}.query", "a data query takes no parameters")


def _check_planner(spec: CatalogFile, tool: Tool, key: str, problem):
    """The `intents` and `extract` keys the offline planner reads (docs/planner.md)."""
    periods: dict[tuple[str, str, tuple[str, ...]], str] = {}
    for pname, p in tool.params.items():
        if p.current is not None:
            for where, message in _current_problems(spec, tool, p.current):
                yield problem(f"{key}.params.{pname}{where}", message)
        x = p.extract
        if x is None:
            if tool.intents and p.required:
                yield problem(f"{key}.params.{pname}.extract",
                              "a required parameter of a tool with intents needs extract (else no plan can call it)")
            continue
        xkey = f"{key}.params.{pname}.extract"
        if p.type not in EXTRACT_TYPES[x.kind]:
            types = " or ".join(EXTRACT_TYPES[x.kind])
            yield problem(f"{xkey}.kind", f"{x.kind} fills {types} parameters, not {p.type}")
        for where, message in _extract_problems(spec, p, x):
            yield problem(f"{xkey}{where}", message)
        if isinstance(x, DateExtract):
            slot = (x.part, x.period, tuple(x.words))
            if slot in periods:
                said = f" said with {', '.join(x.words)}" if x.words else ""
                yield problem(f"{xkey}.part", f"{periods[slot]} already takes the {x.period} {x.part}{said}")
            periods[slot] = pname


def _extract_problems(spec: CatalogFile, p: Param, x: Extract):
    if isinstance(x, CodeExtract):
        if p.type == "string" and not p.pattern:
            yield "", "a code is found by the parameter's pattern; declare pattern"
        if p.type == "integer" and not x.labels:
            yield ".labels", "an integer code is read only after one of its labels (customer 5); declare labels"
        if x.lookup:
            target = spec.tools.get(x.lookup.tool)
            if target is None:
                yield ".lookup.tool", f"no tool {x.lookup.tool!r} in this catalog"
            elif x.lookup.arg not in target.params:
                yield ".lookup.arg", f"{x.lookup.tool} has no parameter {x.lookup.arg!r}"
            elif target.mode != "read":
                yield ".lookup.tool", "a lookup runs a read tool"
    yield from _said_value_problems(p, x)
    if isinstance(x, EnumExtract) and p.enum and p.enum.values is not None:
        for phrase, value in x.synonyms.items():
            if value not in p.enum.values:
                yield f".synonyms.{phrase}", f"{value!r} is not one of the values"


def _current_problems(spec: CatalogFile, tool: Tool, current: Current):
    """`current` names a read tool of the catalog, taking only arguments the write has, whose result has the
    column."""
    target = spec.tools.get(current.tool)
    if target is None:
        yield ".current.tool", f"no tool {current.tool!r} in this catalog"
    elif target.mode != "read":
        yield ".current.tool", "the present value is read by a read tool"
    elif current.column not in _columns(target):
        yield ".current.column", f"{current.tool} has no column {current.column!r}"
    elif any(p.required and n not in tool.params for n, p in target.params.items()):
        yield ".current.tool", f"{current.tool} takes an argument {tool.name} does not have"


def _said_value_problems(p: Param, x: Extract):
    """Values said by a word (赤: 255:0:0, 半分: 50) that the parameter would refuse."""
    if isinstance(x, CodeExtract):
        for phrase, value in x.named.items():
            if p.pattern and not re.fullmatch(p.pattern, value):
                yield f".named.{phrase}", f"{value!r} does not match the parameter's pattern"
    if isinstance(x, CountExtract):
        for phrase, n in x.said.items():
            if (p.min is not None and n < p.min) or (p.max is not None and n > p.max):
                yield f".said.{phrase}", f"{n} is outside the parameter's bounds"


_SQL_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ANSWER_WORDS = ("period", "count", "rows", "message")


def _columns(tool: Tool) -> set[str]:
    """The columns a tool's result may have: its declared ones (http) or the words of its SQL."""
    if tool.http is not None:
        return http_checks.columns(tool)
    offers = [c.offer for c in tool.checks if c.offer]
    return set(_SQL_WORD.findall(" ".join([tool.sql, tool.preview_sql or "", *tool.then, *offers])))


def _check_rules(spec: CatalogFile, problem):
    """`rules.state` names a read tool of the catalog that needs no argument."""
    state = spec.rules.state if spec.rules else None
    if state is None:
        return
    tool = spec.tools.get(state)
    if tool is None:
        yield problem("rules.state", f"no tool {state!r} in this catalog")
    elif tool.mode != "read" or any(p.required for p in tool.params.values()):
        yield problem("rules.state", "the state is read by a read tool that needs no argument")
    elif spec.rules and spec.rules.lines:
        yield from _check_lines(spec, spec.rules.lines, _columns(tool), problem)


def _check_lines(spec: CatalogFile, lines: Lines, columns: set[str], problem):
    """`rules.lines` names write tools of the catalog; the add tool's required parameter, which names a line, is
    a column of the state, and so is every parameter of the add tool that the state shows (a quantity)."""
    for role in ("add", "change", "remove", "place"):
        name = getattr(lines, role)
        tool = spec.tools.get(name) if name else None
        if name and (tool is None or tool.mode != "write"):
            yield problem(f"rules.lines.{role}", f"{name!r} is not a write tool of this catalog")
    add = spec.tools.get(lines.add)
    keys = [n for n, p in add.params.items() if p.required] if add else []
    if add and (len(keys) != 1 or keys[0] not in columns):
        yield problem("rules.lines.add", "the add tool takes one required parameter, the line's name, and the "
                                         "state tool returns it as a column of the same name")


def _check_answer(tool: Tool, key: str, problem):
    """`answer` templates: their syntax, and every placeholder names something the answer has."""
    shape = tool.result
    columns = _columns(tool)
    for column in shape.labels:
        if column not in columns and column not in tool.params:
            yield problem(f"{key}.result.labels.{column}", "not a column of the tool's result nor a parameter")
    yield from _check_numbers(shape, columns, key, problem)
    if tool.answer is None:
        return
    summary = shape.summary
    item_names = {"change", summary.key, summary.current, summary.previous} if summary else set()
    for status, text in tool.answer:
        if text is None:
            continue
        if status == "row":
            known, allowed = columns, "a column of the result"
        elif status == "item":
            known, allowed = item_names, f"one of {', '.join(sorted(item_names)) or '(no summary declared)'}"
        else:
            known = _answer_names(tool, columns) | ({"each"} if status == "several" else set())
            allowed = ("period, period.previous, count, rows, message, the parameters "
                       f"({', '.join(tool.params) or 'none'}), total.<{'|'.join(shape.totals) or 'no totals'}>, "
                       f"summary.<{'|'.join(SUMMARY_KEYS) if summary else 'no summary'}>, first.<column>")
        for lang in ("ja", "en"):
            where = f"{key}.answer.{status}.{lang}"
            template = text.get(lang)
            wrong = template_problem(template)
            if wrong:
                yield problem(where, wrong)
                continue
            for name, _ in placeholders(template):
                if name not in known and not (status not in ("row", "item") and name.startswith("first.")
                                              and name.split(".", 1)[1] in columns):
                    yield problem(where, f"unknown placeholder {{{name}}}; this template may use {allowed}")


def _check_numbers(shape: ResultShape, columns: set[str], key: str, problem):
    """`result.money` and `result.decimals` name columns of the result."""
    for which, named in (("money", shape.money), ("decimals", list(shape.decimals))):
        for column in named:
            if column not in columns:
                yield problem(f"{key}.result.{which}", f"{column!r} is not a column of the tool's result")


def _answer_names(tool: Tool, columns: set[str]) -> set[str]:
    shape = tool.result
    names = {*_ANSWER_WORDS, "period.previous", *tool.params}
    names |= {f"total.{c}" for c in shape.totals}
    if shape.summary:
        names |= {f"summary.{k}" for k in SUMMARY_KEYS}
    return names


def _is_iso(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except (TypeError, ValueError):
        return False
    return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", value))
