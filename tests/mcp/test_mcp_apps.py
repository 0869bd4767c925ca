"""MCP Apps (`io.modelcontextprotocol/ui`), driven by the SDK's own client: only a client that negotiated the
extension sees the tools link the result app, the app among the resources and the view's words on a result.

In a headless Chromium, a host built on the ext-apps SDK's AppBridge (tests/mcp/interop/apps_host.html, from
npm ci) shows the app for real results of the in-process server: a read's table, totals and chart, and a
write's card, whose confirm the host sends to the server as a tools/call that writes exactly one row.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from anyio.from_thread import BlockingPortal, start_blocking_portal
from browsers import chromium
from demo_databases import with_demos
from mcp import Client
from mcp.client import advertise
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID
from mcp.shared.exceptions import MCPError
from mcp_servers import INTEROP, node_installed
from playwright.sync_api import Browser, Frame, Page, expect

from concierge.demo.bootstrap import open_pipeline
from concierge.demo.farm import tables as farm_tables
from concierge.mcp.apps import RESULT_URI, VIEW_KEY
from concierge.mcp.server import build_server
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import state as schema

APPS = advertise(EXTENSION_ID, {"mimeTypes": [APP_MIME_TYPE]})
ADMIN_TOOLS = {"get_customers", "get_sales", "add_sale", "compare_periods", "sales_ranking", "daily_sales"}
WEEK = {"start": "2026-08-24", "end": "2026-08-30", "product": None, "category": None}
SALES_0002 = {"code_customer": "0002", "date_sales_begin_str": "2025-04-01", "date_sales_end_str": "2025-05-31"}
SALE = {"code_customer": "0002", "products": "かぼちゃ4個", "price": 600}
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "mcp"
TIMEOUT_MS = 15_000
# What would make the app load or send anything: an outside address in an attribute or a stylesheet, or a network API.
OUTSIDE = re.compile(r"""\b(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?//|@import|url\(\s*["']?\s*(?:https?:)?//"""
                     r"|\bfetch\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon|\bimport\(", re.IGNORECASE)


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Iterator[Pipeline]:
    url = with_demos(f"sqlite:///{tmp_path_factory.mktemp('mcp-apps') / 'apps.db'}", "farm", "pos")
    pipeline = open_pipeline(["farm", "pos"], url)
    try:
        yield pipeline
    finally:
        pipeline.close()


def client(pipeline: Pipeline, *, apps: bool, mode: str = "legacy", user: str = "admin") -> Client:
    return Client(build_server(pipeline, user=pipeline.user(user)), extensions=[APPS] if apps else None, mode=mode)


def sales(pipeline: Pipeline) -> int:
    with pipeline.db.read() as conn:
        return conn.scalar(sa.select(sa.func.count()).select_from(farm_tables.farm_sales))


# --- the protocol ---------------------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_only_a_client_that_negotiated_apps_sees_the_tools_link_to_the_app(demo, mode):
    without_mime = advertise(EXTENSION_ID, {})  # the extension named, but not the app's MIME type
    async with (client(demo, apps=False, mode=mode) as plain, client(demo, apps=True, mode=mode) as apps,
                Client(build_server(demo, user=demo.user("admin")), extensions=[without_mime], mode=mode) as vague):
        before = (await plain.list_tools()).tools
        linked = (await apps.list_tools()).tools
        unlinked = (await vague.list_tools()).tools
    assert {t.name for t in linked} == ADMIN_TOOLS
    assert [t.meta for t in before] == [None] * len(ADMIN_TOOLS)
    assert unlinked == before
    for tool, bare in zip(linked, before, strict=True):
        assert tool.meta == {"ui": {"resourceUri": RESULT_URI}, "ui/resourceUri": RESULT_URI}
        assert tool.model_copy(update={"meta": None}) == bare


@pytest.mark.anyio
async def test_the_app_is_a_resource_of_mcp_app_html_that_loads_nothing(demo):
    async with client(demo, apps=False) as plain, client(demo, apps=True) as apps:
        before = (await plain.list_resources()).resources
        listed = (await apps.list_resources()).resources
        read = await apps.read_resource(RESULT_URI)
        with pytest.raises(MCPError, match="no resource ui://concierge/result.html"):
            await plain.read_resource(RESULT_URI)
    assert RESULT_URI not in {r.uri for r in before}
    assert listed[:-1] == before
    assert (listed[-1].uri, listed[-1].mime_type) == (RESULT_URI, "text/html;profile=mcp-app")
    [page] = read.contents
    assert (page.uri, page.mime_type) == (RESULT_URI, "text/html;profile=mcp-app")
    html = page.text
    assert html.startswith("<!doctype html>") and "/*@" not in html  # every file the page inlines is in it
    assert "Chart.js v4" in html and '"ui/initialize"' in html and "confirmation_token" in html
    assert OUTSIDE.findall(html) == []


@pytest.mark.anyio
async def test_a_result_brings_the_views_words_only_to_apps_and_its_content_is_unchanged(demo):
    async with client(demo, apps=False) as plain, client(demo, apps=True) as apps:
        read = await plain.call_tool("get_sales", SALES_0002)
        read_for_app = await apps.call_tool("get_sales", SALES_0002)
        preview = await apps.call_tool("add_sale", SALE)
    assert read.meta is None and "card" not in read_for_app.meta[VIEW_KEY]
    assert read_for_app.content == read.content
    plain_data, app_data = ({k: v for k, v in r.structured_content.items() if k not in ("result_id", "ms")}
                            for r in (read, read_for_app))
    assert app_data == plain_data
    assert read_for_app.meta[VIEW_KEY]["labels"]["price"] == {"ja": "金額", "en": "price"}
    card = preview.meta[VIEW_KEY]["card"]
    assert card["ja"]["message"].startswith("John Smith様（0002）に、5/15(木)の販売「かぼちゃ4個」600円を登録します")
    assert {"name": "price", "label": "金額", "value": "600円"} in card["ja"]["fields"]
    assert {"name": "date_sales", "label": "date", "value": "Thu, May 15, 2025"} in card["en"]["fields"]


# --- the app in a host -----------------------------------------------------------------------------------------


class _Files(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".js": "text/javascript", ".mjs": "text/javascript"}

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the signature of the base class
        pass


@pytest.fixture(scope="module")
def host_url() -> Iterator[str]:
    """The host page and the ext-apps SDK it imports, served from tests/mcp/interop on loopback."""
    node_installed("@modelcontextprotocol/ext-apps/dist/src/app-bridge.js")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Files, directory=str(INTEROP)))
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/apps_host.html"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@dataclass
class Backend:
    """The host's side of MCP: the SDK client, with Apps negotiated, on an event loop of its own."""

    portal: BlockingPortal
    client: Client
    html: str

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.portal.call(self.client.call_tool, name, arguments)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)


@pytest.fixture(scope="module")
def backend(demo) -> Iterator[Backend]:
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(client(demo, apps=True)) as mcp:
        html = portal.call(mcp.read_resource, RESULT_URI).contents[0].text
        yield Backend(portal, mcp, html)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def host(browser, host_url, backend, request) -> Iterator[Page]:
    """The host page, its tools/call bound to the server; it may log no error, and the app may ask for nothing."""
    context = browser.new_context(viewport={"width": 900, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    problems: list[str] = []
    asked: list[str] = []
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("request", lambda r: asked.append(r.url) if r.frame != page.main_frame else None)
    page.expose_function("callTool", lambda params: backend.call(params["name"], params.get("arguments") or {}))
    page.goto(host_url)
    page.wait_for_function("window.hostReady === true")
    try:
        yield page
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
        context.close()
    assert problems == []
    assert asked == []


def show(page: Page, backend: Backend, *, locale: str, tool: str, arguments: dict[str, Any]) -> tuple[Frame, dict]:
    """A real call of `tool`, and the app showing its result as a host shows it: arguments first, then the result."""
    result = backend.call(tool, arguments)
    page.evaluate("(shown) => window.showApp(shown)",
                  {"html": backend.html, "locale": locale, "input": arguments, "result": result})
    frame = page.locator("#frames iframe").element_handle().content_frame()
    assert frame is not None
    return frame, result


def test_the_app_draws_a_reads_table_totals_and_chart_in_the_hosts_language(host, backend):
    app, result = show(host, backend, locale="ja-JP", tool="daily_sales", arguments=WEEK)
    data = result["structuredContent"]
    block = app.locator(".result[data-tool=daily_sales]")
    expect(block.locator(".caption")).to_have_text("期間内の日別売上金額 · 7 行")
    expect(block.locator("thead th")).to_have_text(["日付", "数量", "売上金額"])
    expect(block.locator("tbody tr")).to_have_count(7)
    first = data["rows"][0]
    expect(block.locator("tbody tr").first.locator("td")).to_have_text(
        [first["date"], f"{first['quantity']:,}", f"{first['amount']:,}"])
    totals = data["totals"]
    expect(block.locator(".totals")).to_have_text(
        f"合計 売上金額: {totals['amount']:,} · 合計 数量: {totals['quantity']:,}")
    app.wait_for_function("""() => {
        const canvas = document.querySelector(".result .chart-box canvas");
        const chart = canvas && Chart.getChart(canvas);
        if (!chart) return false;
        const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i]) painted += 1;
        return painted > 2000;
    }""")
    drawn = app.evaluate("() => Chart.getChart(document.querySelector('canvas')).data.datasets[0].data")
    assert drawn == [r["amount"] for r in data["rows"]]
    assert host.evaluate("window.seen.sizes.length") > 0  # the app told the host its size


def test_the_card_confirms_through_the_host_and_writes_exactly_one_row(host, backend, demo):
    before = sales(demo)
    app, preview = show(host, backend, locale="en-US", tool="add_sale", arguments=SALE)
    card = app.locator(".confirm-card[data-tool=add_sale]")
    expect(card.locator("h3")).to_have_text("Check before it is written")
    expect(card.locator(".question")).to_have_text(preview["_meta"][VIEW_KEY]["card"]["en"]["message"])
    expect(card.locator("dd")).to_have_text(["0002", "John Smith", "Thu, May 15, 2025", "かぼちゃ4個", "600円"])
    assert sales(demo) == before  # a preview shown writes nothing

    card.locator("button.confirm").click()
    expect(card).to_have_attribute("data-state", "confirmed")
    expect(card.locator("h3")).to_have_text("Confirmed")
    expect(card.locator("button")).to_have_count(0)
    written = app.locator(".result[data-tool=add_sale] tbody tr")
    expect(written).to_have_count(1)
    assert sales(demo) == before + 1
    token = preview["structuredContent"]["confirmation_token"]
    confirmed = {"name": "add_sale", "arguments": {**SALE, "confirmation_token": token}}
    assert host.evaluate("window.seen.calls") == [confirmed]
    [told] = host.evaluate("window.seen.context")
    assert told["content"][0]["text"].startswith("The user confirmed add_sale in the app.")
    [outcome] = host.evaluate("window.seen.results")
    with demo.db.read() as conn:
        audited = conn.execute(sa.select(schema.audit.c.tool, schema.audit.c.decision)
                               .where(schema.audit.c.result_id == outcome["structuredContent"]["result_id"])).all()
    assert [tuple(line) for line in audited] == [("add_sale", "ok")]


def test_cancel_settles_the_card_and_writes_nothing(host, backend, demo):
    before = sales(demo)
    tomato = {**SALE, "products": "トマト1個", "price": 80}
    app, _ = show(host, backend, locale="ja-JP", tool="add_sale", arguments=tomato)
    card = app.locator(".confirm-card[data-tool=add_sale]")
    expect(card.locator("h3")).to_have_text("書き込む前の確認")
    card.locator("button.cancel").click()
    expect(card).to_have_attribute("data-state", "cancelled")
    expect(card.locator(".state")).to_have_text("何も書き込んでいません。")
    assert sales(demo) == before
    assert host.evaluate("window.seen.calls") == []
    assert host.evaluate("window.seen.context")[0]["content"][0]["text"].endswith("nothing was written.")
