"""The grants people gave concierge on a web API (`kind: oauth2_authorization_code` sources): one refresh token per
source, sealed (`concierge.storage.sealing`), with its scope and when it was given and last renewed.

`concierge services authorize SOURCE` stores one; the server reads it to get access tokens and stores the new one
when the service rotates it. Only the sealed text is in the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import sqlalchemy as sa

from concierge.storage.database import Database
from concierge.storage.sealing import Sealer, load_secret
from concierge.storage.state import source_grants

PURPOSE = b"concierge source refresh token"


@dataclass(frozen=True)
class Grant:
    source: str
    refresh_token: str = field(repr=False)
    scope: str
    created_at: datetime


class GrantStore:
    """The grants of the sources, in the state database `db`, sealed with `secret` (default: `load_secret()`)."""

    def __init__(self, db: Database, secret: bytes | None = None):
        self.db = db
        self._secret = secret
        self._sealer: Sealer | None = None

    def get(self, source: str) -> Grant | None:
        """The source's grant; None when there is none, or it was sealed under another key."""
        with self.db.engine.connect() as conn:
            row = conn.execute(sa.select(source_grants).where(source_grants.c.source == source)).first()
        if row is None:
            return None
        token = self._box().open(row.refresh_token, source)
        return None if token is None else Grant(source, token, row.scope, row.created_at)

    def put(self, source: str, refresh_token: str, scope: str, *, renewed: bool = False) -> None:
        """Keep `refresh_token` for `source`: a new grant, or (`renewed`) the one the service rotated to."""
        now = datetime.now(UTC)
        sealed = self._box().seal(refresh_token, source)
        with self.db.engine.begin() as conn:
            found = conn.execute(sa.select(source_grants.c.source).where(source_grants.c.source == source)).first()
            if found is None:
                conn.execute(source_grants.insert().values(source=source, refresh_token=sealed, scope=scope,
                                                           created_at=now, renewed_at=now))
            else:
                changes = {"refresh_token": sealed, "scope": scope, "renewed_at": now}
                if not renewed:
                    changes["created_at"] = now
                conn.execute(source_grants.update().where(source_grants.c.source == source).values(**changes))

    def forget(self, source: str) -> None:
        with self.db.engine.begin() as conn:
            conn.execute(source_grants.delete().where(source_grants.c.source == source))

    def _box(self) -> Sealer:
        if self._sealer is None:
            self._sealer = Sealer(self._secret if self._secret is not None else load_secret(), PURPOSE)
        return self._sealer
