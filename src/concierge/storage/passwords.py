"""Sign-in passwords: argon2 hashes in ``concierge_users.password_hash``.

A user whose hash is NULL cannot sign in. The demo users get a generated
password the first time a database is initialised or served, and the caller
prints it once: it is stored only as its hash.
"""

from __future__ import annotations

import hashlib
import secrets

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from concierge.errors import ConfigError
from concierge.storage import state as schema
from concierge.storage.database import Database

MIN_LENGTH = 8
# Generated passwords avoid characters that are easy to misread (0/O, 1/l/I) or to mistype.
_ALPHABET = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
_hasher = PasswordHasher()
# Verified when the name is unknown, so that a wrong name costs as long as a wrong password.
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(12))


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def fingerprint(password_hash: str) -> str:
    """A short digest of the stored hash: a session made before a password change stops being valid."""
    return hashlib.sha256(password_hash.encode()).hexdigest()[:16]


def _stored(db: Database, name: str) -> str | None:
    with db.read() as conn:
        return conn.scalar(sa.select(schema.users.c.password_hash).where(schema.users.c.name == name))


def verify(db: Database, name: str, password: str) -> str | None:
    """The stored hash's fingerprint when `password` is right for `name`, else None."""
    stored = _stored(db, name)
    try:
        _hasher.verify(stored or _DUMMY_HASH, password)
    except (VerificationError, InvalidHashError):
        return None
    return fingerprint(stored) if stored else None


def current_fingerprint(db: Database, name: str) -> str | None:
    stored = _stored(db, name)
    return fingerprint(stored) if stored else None


def set_password(db: Database, name: str, password: str) -> None:
    if len(password) < MIN_LENGTH:
        raise ConfigError(f"the password is too short: at least {MIN_LENGTH} characters")
    with db.write() as conn:
        done = conn.execute(
            schema.users.update().where(schema.users.c.name == name).values(password_hash=hash_password(password))
        )
        if done.rowcount != 1:
            known = ", ".join(conn.scalars(sa.select(schema.users.c.name).order_by(schema.users.c.name)))
            raise ConfigError(f"unknown user {name!r}; users: {known}")


def generate_passwords(db: Database, names: list[str]) -> dict[str, str]:
    """Give each of these users who has no password a new one; returns them (to print once) by user name."""
    demo_names = list(names)
    table = schema.users
    with db.write() as conn:
        missing = list(conn.scalars(
            sa.select(table.c.name).where(table.c.name.in_(demo_names), table.c.password_hash.is_(None))
        ))
        new = {}
        for name in sorted(missing, key=demo_names.index):
            password = "".join(secrets.choice(_ALPHABET) for _ in range(14))
            done = conn.execute(table.update().where(table.c.name == name, table.c.password_hash.is_(None))
                                .values(password_hash=hash_password(password)))
            if done.rowcount == 1:  # another process may have set it meanwhile
                new[name] = password
    return new


def describe(new: dict[str, str]) -> str:
    """The lines that show new passwords to the person who ran the command."""
    lines = ["New sign-in passwords (shown only this once; change one with `concierge user set-password NAME`):"]
    lines += [f"  {name:<12} {password}" for name, password in new.items()]
    return "\n".join(lines)
