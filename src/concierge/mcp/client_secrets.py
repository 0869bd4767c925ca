"""The client secrets of registered OAuth clients, kept encrypted (AES-GCM) in the state database.

The MCP SDK compares a presented secret with the stored one, so the secret must be recoverable: it is sealed with a
key derived from the web app's secret, and a copy of the state database alone does not give it away.
"""

from __future__ import annotations

from mcp.shared.auth import OAuthClientInformationFull

from concierge.storage.sealing import PREFIX, Sealer


class Sealed:
    def __init__(self, secret: bytes):
        self._sealer = Sealer(secret, b"concierge oauth client secret")

    def sealed(self, client: OAuthClientInformationFull) -> OAuthClientInformationFull:
        if not client.client_secret:
            return client
        return client.model_copy(update={"client_secret": self._sealer.seal(client.client_secret,
                                                                             client.client_id or "")})

    def opened(self, client: OAuthClientInformationFull) -> OAuthClientInformationFull | None:
        """The client with its secret readable; None when it cannot be (sealed under another key)."""
        if not client.client_secret or not client.client_secret.startswith(PREFIX):
            return client
        plain = self._sealer.open(client.client_secret, client.client_id or "")
        if plain is None:
            return None
        return client.model_copy(update={"client_secret": plain})
