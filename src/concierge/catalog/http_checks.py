"""What the catalog loader checks of sources and http tools (docs/catalog.md), every problem as (key, message)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from concierge.catalog.model import IDENTITY_PARAMS, CatalogFile, EnumSource, HttpSource, SqlSource, Tool
from concierge.catalog.templates import IN_TEXT, IN_TEXT_FORMATS, path_params, template_params

Problem = Callable[[str, str], Any]
_SQL_ONLY = ("checks", "preview_sql", "generated")
_RESULT_HTTP_ONLY = ("rows", "object", "columns", "where", "numbers")


def check_tool(spec: CatalogFile, name: str, tool: Tool, key: str, problem: Problem) -> Iterator[Any]:
    source = spec.sources.get(tool.source) if tool.source is not None else None
    if tool.source is not None and source is None:
        declared = ", ".join(spec.sources) or "none"
        yield problem(f"{key}.source", f"unknown source {tool.source!r}; declared sources: {declared}")
    is_http = isinstance(source, HttpSource)
    if not is_http:
        for attr in ("http", "status"):
            if getattr(tool, attr) is not None:
                yield problem(f"{key}.{attr}", "only a tool of a kind: http source declares this")
        for attr in _RESULT_HTTP_ONLY:
            if attr in tool.result.model_fields_set:
                yield problem(f"{key}.result.{attr}", "only a tool of a kind: http source declares this")
        yield from _enum_sources(spec, tool, key, problem)
        return
    if tool.http is None:
        yield problem(f"{key}.http", "a tool of an http source declares its request: http: {method, path}")
    if tool.sql:
        yield problem(f"{key}.sql", f"a tool of the http source {tool.source!r} sends a request; it runs no SQL")
    for attr in _SQL_ONLY:
        if getattr(tool, attr):
            yield problem(f"{key}.{attr}", "a setting of SQL tools; an http tool does not take it")
    if tool.result.rows is not None and tool.result.object is not None:
        yield problem(f"{key}.result.object", "the rows or one object: declare rows or object, not both")
    yield from _request(tool, key, problem)
    yield from _enum_sources(spec, tool, key, problem)


def _request(tool: Tool, key: str, problem: Problem) -> Iterator[Any]:
    request = tool.http
    if request is None:
        return
    if tool.mode == "read" and request.method != "GET":
        yield problem(f"{key}.http.method", "a read tool only GETs; a tool that changes something is mode: write")
    if not request.path.startswith("/"):
        yield problem(f"{key}.http.path", "starts with / (it is appended to the source's base_url)")
    if "?" in request.path:
        yield problem(f"{key}.http.path", "takes no query string; declare http.query")
    paging = {request.pages.offset, request.pages.limit} if request.pages else set()
    known = set(tool.params) | set(IDENTITY_PARAMS) | paging
    used: set[str] = set()
    for where, pname, wrong in _placeholders(tool, key):
        if wrong:
            yield problem(where, wrong)
        if pname is None:
            continue
        used.add(pname)
        if pname not in known:
            yield problem(where, f"{{{pname}}} is not a declared parameter")
    yield from _repeat(tool, key, problem)
    yield from _pages(tool, key, used, problem)
    if request.repeat is not None:
        used.add(request.repeat)
    for pname in tool.params:
        if pname not in used:
            yield problem(f"{key}.params.{pname}", "declared but never used in the request")


def _placeholders(tool: Tool, key: str) -> Iterator[tuple[str, str | None, str | None]]:
    """(key, parameter, problem) of every placeholder of the request: path, query, body."""
    assert tool.http is not None
    for pname in path_params(tool.http.path):
        param = tool.params.get(pname)
        optional = param is not None and not param.required and param.default is None
        yield (f"{key}.http.path", pname,
               f"{{{pname}}}: a path parameter is required or has a default" if optional else None)
    yield from template_params(tool.http.query, f"{key}.http.query")
    yield from template_params(tool.http.body, f"{key}.http.body")
    for name, value in tool.http.query.items():
        for found in IN_TEXT.finditer(value) if isinstance(value, str) else ():
            param = tool.params.get(found.group(1))
            if found.group(2) not in IN_TEXT_FORMATS or param is None:
                continue
            if not param.required and param.default is None:
                yield (f"{key}.http.query.{name}", None, f"{{{found.group(1)}}}: a parameter inside longer text is "
                       "required or has a default (else the whole text would be left out)")
            elif found.group(2) == "number" and param.type != "integer":
                yield f"{key}.http.query.{name}", None, f"{{{found.group(1)}:number}}: an integer parameter only"


def _pages(tool: Tool, key: str, used: set[str], problem: Problem) -> Iterator[Any]:
    assert tool.http is not None
    pages = tool.http.pages
    if pages is None:
        return
    if tool.mode != "read":
        yield problem(f"{key}.http.pages", "only a read is sent page by page")
    for name in (pages.offset, pages.limit):
        if name in tool.params:
            yield problem(f"{key}.http.pages", f"{name!r} is a page's offset or limit; a parameter takes another name")
        elif name not in used:
            yield problem(f"{key}.http.pages", f"{{{name}:number}} is never used in the request")


def _repeat(tool: Tool, key: str, problem: Problem) -> Iterator[Any]:
    assert tool.http is not None
    name = tool.http.repeat
    if name is None:
        return
    param = tool.params.get(name)
    if param is None or param.type != "integer":
        yield problem(f"{key}.http.repeat", f"{name!r} is not an integer parameter of this tool")
    elif param.min is None or param.min < 0 or param.max is None or param.max > 100:
        yield problem(f"{key}.params.{name}", "a repeat count declares min >= 0 and max <= 100")


def _enum_sources(spec: CatalogFile, tool: Tool, key: str, problem: Problem) -> Iterator[Any]:
    for pname, param in tool.params.items():
        call = param.enum.http if param.enum is not None else None
        if call is None:
            continue
        name = call.source or tool.source
        where = f"{key}.params.{pname}.enum.http.source"
        if name is None:
            yield problem(where, "the listing's source: name an http source (the tool has none)")
        elif not isinstance(spec.sources.get(name), HttpSource):
            yield problem(where, f"{name!r} is not an http source of this catalog")


def enum_problems(enum: EnumSource) -> Iterator[tuple[str, str]]:
    """(key under the parameter, message) of an enum's http keys."""
    if enum.http is not None:
        if not enum.value:
            yield "enum.value", "an enum read over http names the field that is its value (value: deviceName)"
        if enum.http.method != "GET":
            yield "enum.http.method", "a listing only GETs"
        return
    for attr in ("value", "id", "ttl"):
        if attr in enum.model_fields_set:
            yield f"enum.{attr}", "only an enum read over http (enum.http) declares this"


def columns(tool: Tool) -> set[str]:
    """The columns an http tool's result declares (what answer templates and labels may name)."""
    declared = tool.result.columns
    if isinstance(declared, dict):
        return set(declared)
    return set(declared or [])


def is_sql_source(spec: CatalogFile, name: str | None) -> bool:
    return name is None or isinstance(spec.sources.get(name), SqlSource)
