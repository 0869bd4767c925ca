"""Secrets concierge must read back later, kept encrypted (AES-GCM) in the state database, and the key they are
sealed with.

The key comes from CONCIERGE_SECRET, else from a random key kept in the user data folder: the web server, the MCP
server and a command such as `concierge services authorize` all read the same one, and a copy of the state
database alone gives nothing away. Each use derives its own key (`purpose`) and binds each value to what it is
for (`context`), so a sealed value moved to another row does not open.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
from pathlib import Path

import platformdirs
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

ENV_SECRET = "CONCIERGE_SECRET"
PREFIX = "sealed:"
_NONCE_BYTES = 12


def load_secret() -> bytes:
    """CONCIERGE_SECRET, else a random key kept in the user data folder (so a restart keeps sign-ins)."""
    if os.environ.get(ENV_SECRET):
        return os.environ[ENV_SECRET].encode()
    path = Path(platformdirs.user_data_dir("concierge", appauthor=False)) / "web-secret"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(32))
    return path.read_text().strip().encode()


class Sealer:
    """Seals and opens text with a key derived from `secret` for one `purpose`."""

    def __init__(self, secret: bytes, purpose: bytes):
        self._aead = AESGCM(hashlib.sha256(purpose + b"\0" + secret).digest())

    def seal(self, plain: str, context: str) -> str:
        nonce = os.urandom(_NONCE_BYTES)
        box = self._aead.encrypt(nonce, plain.encode(), context.encode())
        return PREFIX + base64.urlsafe_b64encode(nonce + box).decode()

    def open(self, sealed: str, context: str) -> str | None:
        """The plain text; None when it cannot be opened (sealed under another key, or for another context)."""
        try:
            raw = base64.urlsafe_b64decode(sealed.removeprefix(PREFIX))
            return self._aead.decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], context.encode()).decode()
        except (InvalidTag, ValueError):
            return None
