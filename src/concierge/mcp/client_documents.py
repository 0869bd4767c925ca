"""Client ID metadata documents: an OAuth client named by the HTTPS URL of a JSON document that describes it.

MCP hosts such as Claude, ChatGPT and VS Code identify themselves this way instead of registering
(draft-ietf-oauth-client-id-metadata-document; the MCP authorization spec from 2025-11-25 on). The document is
fetched when the client shows up and kept for `KEPT_S` (a refusal for `REFUSED_KEPT_S`). Reading a URL a stranger
chose is a risk, so:

- HTTPS only, to a public address: the host name is resolved first and every address must be global, and the
  connection goes to the address checked. A server whose own address is a loopback one (a developer's machine)
  also reads `http://` and non-public addresses, for a client on the same machine or network.
- The URL must have a path, no credentials, no fragment and no control character; no redirect is followed.
- The whole answer must come within `TIMEOUT_S` and is cut off at `MAX_BYTES`; each URL is fetched by one
  request at a time, so a slow stranger delays nobody else's sign-in.
- The document must name itself (`client_id` equal to its URL) and list its redirect URIs, each of which follows
  the rule of a registered one (`redirect_uri_refusal`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import socket
import time
from urllib.parse import urlsplit, urlunsplit

import httpx2 as httpx
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import ValidationError

from concierge.settings import LOOPBACK, https_or_loopback

TIMEOUT_S = 5.0
MAX_BYTES = 64 * 1024
KEPT_S = 300.0
REFUSED_KEPT_S = 30.0
MAX_KEPT = 1000
log = logging.getLogger(__name__)


class DocumentRefused(Exception):
    """Why a client's metadata document cannot be used, in words a person registering the client can act on."""


def is_document_url(client_id: str) -> bool:
    """A client ID that is a URL names a metadata document (a registered client's ID never is one)."""
    return client_id.startswith(("https://", "http://"))


def _printable(text: str) -> bool:
    return all(ch.isprintable() and not ch.isspace() for ch in text)


def check_url(url: str, *, local: bool = False) -> None:
    """`url` may be fetched: https:// (http:// as well when `local`), with a path, nothing hidden in it."""
    parts = urlsplit(url)
    if not _printable(url) or not parts.hostname:
        raise DocumentRefused("a client ID URL must be a plain URL: no spaces or control characters")
    if parts.scheme != "https" and not (local and https_or_loopback(url)):
        raise DocumentRefused(f"client ID {url} is not an https:// URL")
    if parts.path in ("", "/") or parts.fragment or parts.username or parts.password:
        raise DocumentRefused(f"client ID {url} must be a URL with a path, no fragment and no user name")


def redirect_uri_refusal(uri: str) -> str | None:
    """Why `uri` may not be a redirect URI (OAuth 2.1 §7.5, RFC 8252): https://, http:// on a loopback address,
    or an app's private-use scheme (a reverse domain name: com.example.app:/callback); None when it may."""
    parts = urlsplit(uri)
    host_ok = bool(parts.hostname) and all(ch.isalnum() or ch in ".-:[]" for ch in parts.netloc.rsplit("@", 1)[-1])
    if parts.scheme == "https" and host_ok and _printable(uri):
        return None
    if parts.scheme == "http" and parts.hostname in LOOPBACK and host_ok and _printable(uri):
        return None
    if "." in parts.scheme and parts.scheme.replace(".", "").replace("-", "").isalnum() and _printable(uri):
        return None
    return (f"redirect URI {uri!r}: use https://, a loopback http:// address, or a private-use scheme like "
            "com.example.app:/callback")


class ClientDocuments:
    """Fetches and keeps the metadata documents of clients named by URL.

    `local`: this server's own address is a loopback one, so clients on this machine may use http:// and
    addresses that are not public.
    """

    def __init__(self, scopes: list[str], *, local: bool = False) -> None:
        self.scopes = " ".join(scopes)  # what a document that names no scope may ask for
        self.local = local
        self._kept: dict[str, tuple[float, OAuthClientInformationFull | DocumentRefused]] = {}
        self._fetching: dict[str, asyncio.Lock] = {}

    async def client(self, url: str) -> OAuthClientInformationFull:
        kept = self._fresh(url)
        if kept is None:
            lock = self._fetching.setdefault(url, asyncio.Lock())
            async with lock:  # one fetch of a URL at a time; other URLs do not wait for it
                kept = self._fresh(url)
                if kept is None:
                    kept = await self._fetch(url)
            self._fetching.pop(url, None)
        if isinstance(kept, DocumentRefused):
            raise kept
        return kept

    def _fresh(self, url: str) -> OAuthClientInformationFull | DocumentRefused | None:
        kept = self._kept.get(url)
        return kept[1] if kept is not None and kept[0] > time.monotonic() else None

    async def _fetch(self, url: str) -> OAuthClientInformationFull | DocumentRefused:
        found: OAuthClientInformationFull | DocumentRefused
        try:
            async with asyncio.timeout(TIMEOUT_S):
                found = _client_info(url, await _read(url, self.local), self.scopes)
        except DocumentRefused as refused:
            found = refused
        except TimeoutError:
            found = DocumentRefused(f"client metadata document {url} did not arrive within {TIMEOUT_S:g} s")
        if len(self._kept) >= MAX_KEPT:
            self._kept.clear()
        kept_s = REFUSED_KEPT_S if isinstance(found, DocumentRefused) else KEPT_S
        self._kept[url] = (time.monotonic() + kept_s, found)
        return found


async def _public_address(host: str, port: int) -> str:
    """The address to connect to for `host`: every address it resolves to must be a global one."""
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise DocumentRefused(f"client metadata document host {host} does not resolve") from None
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]
    if not addresses or not all(a.is_global and not (a.version == 6 and a.ipv4_mapped) for a in addresses):
        raise DocumentRefused(f"client metadata document host {host} is not a public address")
    return str(addresses[0])


async def _read(url: str, local: bool) -> bytes:
    check_url(url, local=local)
    parts = urlsplit(url)
    target, extensions, headers = url, {}, {"Accept": "application/json"}
    if not local:
        address = await _public_address(parts.hostname or "", parts.port or 443)
        shown = f"[{address}]" if ":" in address else address
        target = urlunsplit(parts._replace(netloc=f"{shown}:{parts.port or 443}"))
        headers["Host"] = parts.netloc
        extensions = {"sni_hostname": parts.hostname}  # the certificate is still checked for the URL's host
    try:
        async with (httpx.AsyncClient(follow_redirects=False, timeout=TIMEOUT_S, trust_env=local) as client,
                    client.stream("GET", target, headers=headers, extensions=extensions) as answer):
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
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as err:
        log.warning("client metadata document %r could not be read: %s", url, type(err).__name__)
        raise DocumentRefused(f"client metadata document {url} could not be read ({type(err).__name__})") from None


def _client_info(url: str, body: bytes, scopes: str) -> OAuthClientInformationFull:
    try:
        document = json.loads(body)
    except ValueError:
        raise DocumentRefused(f"client metadata document {url} is not JSON") from None
    if not isinstance(document, dict) or document.get("client_id") != url:
        raise DocumentRefused(f"client metadata document {url} must give its own URL as client_id")
    redirects = document.get("redirect_uris")
    if not redirects or not isinstance(redirects, list):
        raise DocumentRefused(f"client metadata document {url} lists no redirect_uris")
    for uri in redirects:
        refusal = redirect_uri_refusal(str(uri))
        if refusal is not None:
            raise DocumentRefused(f"client metadata document {url}: {refusal}")
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
