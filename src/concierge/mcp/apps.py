"""MCP Apps (the `io.modelcontextprotocol/ui` extension, spec 2026-01-26): a view of each tool result in the host.

Every tool links one app, `RESULT_URI`: a read's rows as the web chat draws them (table, totals, its chart,
with the bundled Chart.js inlined, so the app loads nothing), and a write's preview as the web chat's
confirmation card. The app talks only to the host, by the Apps bridge (JSON-RPC over postMessage): it draws
what `ui/notifications/tool-result` brings, and its confirm button is a `tools/call` of the same tool with
the same arguments plus the `confirmation_token`, which the host sends to this server; so the write runs
through the pipeline and its audit like any other call, and the app itself never writes.

A result carries what only the view reads in its `_meta` (`VIEW_KEY`): the tool's title, its column labels,
and a preview's card (the catalog's sentence, each value as a person reads it) in both languages; the app
shows the language of the host's locale. Its text and structured content are those of every client.

Only a client that negotiated the extension (the SDK's `client_supports_apps`: the extension with the app's
MIME type in its capabilities) sees the link, the resource and the `_meta`. On a session the capabilities
are those of ``initialize``; on the stateless protocol (2026-07-28) each request's envelope brings them, so
each request is answered by what it declares. Any other client gets the tools and resources of before.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID, client_supports_apps
from mcp.server.context import ServerRequestContext

from concierge.agent.prompts import changed_preview_message, preview_message, title
from concierge.catalog.model import Tool
from concierge.errors import ResultCode
from concierge.language.detect import Lang
from concierge.pipeline.pipeline import Pipeline
from concierge.sources.result import Confirmation, Rows, ToolResult

RESULT_URI = "ui://concierge/result.html"
FLAT_URI_KEY = "ui/resourceUri"  # the key of the drafts before `ui.resourceUri`, which hosts still read
VIEW_KEY = "concierge/view"
LANGS: tuple[Lang, ...] = ("ja", "en")
_RESOURCE_UI = {"prefersBorder": True}  # and no `csp`: the app loads nothing and connects nowhere
_INLINED = re.compile(r"/\*@([\w./]+)\*/")  # /*@name*/ in the page: a file of web/static, or the page's script
_CLOSING = re.compile(r"</(script|style)", re.IGNORECASE)


def advertise(server: Server[Any]) -> None:
    """The extension in the server's capabilities (2026-07-28; the SDK leaves it out of older initialize answers)."""
    server.extensions[EXTENSION_ID] = {}


def negotiated(ctx: ServerRequestContext[Any]) -> bool:
    return client_supports_apps(ctx)


def linked(tool: types.Tool) -> types.Tool:
    """The declaration with its link to the app."""
    meta = {**(tool.meta or {}), "ui": {"resourceUri": RESULT_URI}, FLAT_URI_KEY: RESULT_URI}
    return tool.model_copy(update={"meta": meta})


def listed(ctx: ServerRequestContext[Any]) -> list[types.Resource]:
    """The app among the resources, for a client that negotiated it."""
    return [resource()] if negotiated(ctx) else []


def resource() -> types.Resource:
    return types.Resource(uri=RESULT_URI, name="result view", title="Concierge result",
                          description="A tool's result as a table and chart, or a write's confirmation card.",
                          mime_type=APP_MIME_TYPE, _meta={"ui": _RESOURCE_UI})


def contents() -> types.TextResourceContents:
    return types.TextResourceContents(uri=RESULT_URI, mime_type=APP_MIME_TYPE, text=page(),
                                      _meta={"ui": _RESOURCE_UI})


def with_view(out: types.CallToolResult, result: ToolResult, pipeline: Pipeline) -> types.CallToolResult:
    """The tool result with what the app shows beside its rows or its preview (`VIEW_KEY`); a refusal or a
    failure is shown by its message alone."""
    tool = pipeline.tools.get(result.tool)
    if tool is None or not isinstance(result, Rows | Confirmation):
        return out
    view: dict[str, Any] = {
        "title": {lang: title(tool, tool.name, lang) for lang in LANGS},
        "labels": {column: {"ja": text.ja, "en": text.en} for column, text in tool.result.labels.items()},
    }
    if isinstance(result, Confirmation):
        view["card"] = {lang: _card(result, tool, lang, pipeline) for lang in LANGS}
    return out.model_copy(update={"meta": {**(out.meta or {}), VIEW_KEY: view}})


def _card(result: Confirmation, tool: Tool, lang: Lang, pipeline: Pipeline) -> dict[str, Any]:
    """The web chat's card of a preview: its question, each value under its label, the warning of a repeat."""
    from concierge.agent import card  # the answer templates it renders load only for a host that shows cards

    said = card.sentence(result, tool, lang, pipeline.today(tool.name))
    changed = result.code == ResultCode.PREVIEW_CHANGED
    currency = next((c.spec.currency for c in pipeline.catalogs if c.name == tool.catalog), None)
    return {
        "message": (changed_preview_message if changed else preview_message)(tool, lang, said),
        "fields": [f.model_dump() for f in card.fields(result, tool, lang, currency)],
        "warning": card.warning(result, lang),
    }


@cache
def page() -> str:
    """The app: one HTML document with the web chat's look, words and chart library inside it."""
    app = files("concierge") / "mcp" / "app"
    static = files("concierge") / "web" / "static"

    def inlined(found: re.Match[str]) -> str:
        source = app / found[1] if found[1] == "result.js" else static / found[1]
        return _CLOSING.sub(r"<\\/\1", source.read_text(encoding="utf-8"))

    return _INLINED.sub(inlined, (app / "result.html").read_text(encoding="utf-8"))
