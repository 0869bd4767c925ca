"""The client secrets of registered OAuth clients, kept encrypted (AES-GCM) in the state database.

The MCP SDK compares a presented secret with the stored one, so the secret must be recoverable: it is sealed with a
key derived from the web app's secret, and a copy of the state database alone does not give it away.
"""

from __future__ import annotations

import base64
import hashlib
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from mcp.shared.auth import OAuthClientInformationFull

PREFIX = "sealed:"
_NONCE_BYTES = 12


class Sealed:
    def __init__(self, secret: bytes):
        self._aead = AESGCM(hashlib.sha256(b"concierge oauth client secret\0" + secret).digest())

    def sealed(self, client: OAuthClientInformationFull) -> OAuthClientInformationFull:
        if not client.client_secret:
            return client
        nonce = os.urandom(_NONCE_BYTES)
        box = self._aead.encrypt(nonce, client.client_secret.encode(), (client.client_id or "").encode())
        return client.model_copy(update={"client_secret": PREFIX + base64.urlsafe_b64encode(nonce + box).decode()})

    def opened(self, client: OAuthClientInformationFull) -> OAuthClientInformationFull | None:
        """The client with its secret readable; None when it cannot be (sealed under another key)."""
        if not client.client_secret or not client.client_secret.startswith(PREFIX):
            return client
        raw = base64.urlsafe_b64decode(client.client_secret.removeprefix(PREFIX))
        try:
            plain = self._aead.decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], (client.client_id or "").encode())
        except InvalidTag:
            return None
        return client.model_copy(update={"client_secret": plain.decode()})
