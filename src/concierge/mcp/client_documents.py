"""Client ID metadata documents: an OAuth client named by the HTTPS URL of a JSON document that describes it.

MCP hosts such as Claude, ChatGPT and VS Code identify themselves this way instead of registering
(draft-ietf-oauth-client-id-metadata-document; the MCP authorization spec from 2025-11-25). The document is
fetched when the client first shows up and kept for `KEPT_S`. Reading a URL a stranger chose is a risk, so:
HTTPS only (plain HTTP on a loopback address, for a client on this machine); the URL must have a path, no
credentials and no fragment; no redirect is followed; the answer must come within `TIMEOUT_S` and is cut off at
`MAX_BYTES`; and the document must name itself (`client_id` equal to its URL) and list its redirect URIs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from urllib.parse import urlsplit

import httpx2 as httpx
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import ValidationError

TIMEOUT_S = 5.0
MAX_BYTES = 64 * 1024
KEPT_S = 300.0
MAX_KEPT = 1000
LOOPBACK = {"127.0.0.1", "::1", "localhost"}
log = logging.getLogger(__name__)


class DocumentRefused(Exception):
    """Why a client's metadata document cannot be used, in words a person registering the client can act on."""


def is_document_url(client_id: str) -> bool:
    """A client ID that is a URL names a metadata document (a registered client's ID never is one)."""
    return client_id.startswith(("https://", "http://"))


def check_url(url: str) -> None:
    parts = urlsplit(url)
    local = parts.hostname in LOOPBACK
    if parts.scheme != "https" and not (parts.scheme == "http" and local):
        raise DocumentRefused(f"client ID {url} is not an https:// URL (http:// only on a loopback address)")
    if parts.path in ("", "/") or parts.fragment or parts.username or parts.password:
        raise DocumentRefused(f"client ID {url} must be a URL with a path, no fragment and no user name")


class ClientDocuments:
    """Fetches and keeps the metadata documents of clients named by URL."""

    def __init__(self, scopes: list[str]) -> None:
        self.scopes = " ".join(scopes)  # what a document that names no scope may ask for
        self._kept: dict[str, tuple[float, OAuthClientInformationFull]] = {}
        self._lock = asyncio.Lock()

    async def client(self, url: str) -> OAuthClientInformationFull:
        kept = self._kept.get(url)
        if kept is not None and kept[0] > time.monotonic():
            return kept[1]
        async with self._lock:  # one fetch of a document at a time, whoever asks
            kept = self._kept.get(url)
            if kept is not None and kept[0] > time.monotonic():
                return kept[1]
            info = _client_info(url, await _fetch(url), self.scopes)
            if len(self._kept) >= MAX_KEPT:
                self._kept.clear()
            self._kept[url] = (time.monotonic() + KEPT_S, info)
            return info


async def _fetch(url: str) -> bytes:
    check_url(url)
    try:
        async with (httpx.AsyncClient(follow_redirects=False, timeout=TIMEOUT_S) as client,
                    client.stream("GET", url, headers={"Accept": "application/json"}) as answer):
            if answer.is_redirect:
                raise DocumentRefused(f"client metadata document {url} answers with a redirect, which is not "
                                      "followed: serve the document at its client ID itself")
            if answer.status_code != 200:
                raise DocumentRefused(f"client metadata document {url} answers HTTP {answer.status_code}")
            body = bytearray()
            async for chunk in answer.aiter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise DocumentRefused(f"client metadata document {url} is over {MAX_BYTES // 1024} KiB")
            return bytes(body)
    except httpx.HTTPError as err:
        log.warning("client metadata document %s could not be read: %s", url, err)
        raise DocumentRefused(f"client metadata document {url} could not be read ({type(err).__name__})") from None


def _client_info(url: str, body: bytes, scopes: str) -> OAuthClientInformationFull:
    try:
        document = json.loads(body)
    except ValueError:
        raise DocumentRefused(f"client metadata document {url} is not JSON") from None
    if not isinstance(document, dict) or document.get("client_id") != url:
        raise DocumentRefused(f"client metadata document {url} must give its own URL as client_id")
    if not document.get("redirect_uris"):
        raise DocumentRefused(f"client metadata document {url} lists no redirect_uris")
    method = document.get("token_endpoint_auth_method") or "none"
    if method != "none":
        raise DocumentRefused(f"client metadata document {url}: token_endpoint_auth_method {method!r} is not "
                              "supported here; a client known by its document is a public client (none)")
    document = {k: v for k, v in document.items() if k not in ("client_secret", "client_secret_expires_at")}
    try:
        return OAuthClientInformationFull.model_validate(
            {"scope": scopes, **document, "token_endpoint_auth_method": "none",
             "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]})
    except ValidationError as err:
        raise DocumentRefused(f"client metadata document {url} is not valid client metadata: "
                              f"{err.errors()[0]['loc']} {err.errors()[0]['msg']}") from None
