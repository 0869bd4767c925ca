"""The small pages the server writes itself (the OAuth consent page, the answers of the company sign-in): one
shell with the consent page's style, in the language the browser asks for."""

from __future__ import annotations

import html
from collections.abc import Mapping

from fastapi import Request
from fastapi.responses import HTMLResponse

from concierge.language.detect import Lang


def request_lang(request: Request) -> Lang:
    """Japanese when the browser asks for it first, else English."""
    return "ja" if request.headers.get("accept-language", "").lower().startswith("ja") else "en"


def small_page(lang: Lang, title: str, body: str, headers: Mapping[str, str], *, status: int = 200,
               refresh: str | None = None) -> HTMLResponse:
    """`body` (HTML the caller escaped) under `title`; with `refresh`, the browser goes there at once."""
    head = f"<meta http-equiv='refresh' content='0;url={html.escape(refresh)}'>" if refresh else ""
    page = (f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<meta name='viewport' content='width=device-width'>{head}"
            f"<link rel='stylesheet' href='/static/consent.css'></head><body><main>{body}</main></body></html>")
    return HTMLResponse(page, status_code=status, headers=dict(headers))
