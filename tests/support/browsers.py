"""The Chromium every browser test drives through Playwright: where it is and how it starts, in one place."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from playwright.async_api import Browser as AsyncBrowser
from playwright.async_api import async_playwright
from playwright.sync_api import Browser, sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]


def _installed() -> str:
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: apt-get install -y chromium (bash .ci/run does)"
    return CHROMIUM


@contextmanager
def chromium() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_installed(), args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@asynccontextmanager
async def async_chromium() -> AsyncIterator[AsyncBrowser]:
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=_installed(), args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            await browser.close()
