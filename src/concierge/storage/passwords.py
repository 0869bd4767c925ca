"""Sign-in passwords: argon2 hashes in ``concierge_users.password_hash``.

A user whose hash is NULL cannot sign in. The demo users get a generated
password the first time a database is initialised or served, and the caller
prints it once: it is stored only as its hash.

Each check needs its argon2 memory (`PARAMETERS.memory_cost` KiB) for as long as it runs, so checks are
bounded process-wide (`gate`): at most `CONCURRENT_CHECKS` at once and at most `MEMORY_BUDGET_KIB` of
argon2 memory together; a hash made with costlier parameters than today's (argon2 keeps its parameters in
the hash, so it still verifies) runs alone, and is rehashed with `PARAMETERS` on a right password. Other
sign-ins wait their turn rather than each taking its memory at once.

The argon2 work itself runs on a pool of `CONCURRENT_CHECKS` threads of its own, whoever asks: the C
allocator keeps a freed 19 MiB block in the arena of the thread that used it, so checks spread over the
web server's many worker threads would keep one block per thread (measured: 8 sign-ins, +140 MB kept).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

import sqlalchemy as sa
from argon2 import Parameters, PasswordHasher, Type, extract_parameters
from argon2.exceptions import InvalidHashError, VerificationError

from concierge.errors import ConfigError
from concierge.storage import oauth
from concierge.storage import state as schema
from concierge.storage.database import Database

MIN_LENGTH = 8
# Generated passwords avoid characters that are easy to misread (0/O, 1/l/I) or to mistype.
_ALPHABET = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
# OWASP's recommended minimum for Argon2id (19 MiB, 2 passes, 1 lane). Hashes made before, with argon2-cffi's
# default (64 MiB, t=3, p=4: `argon2.profiles.RFC_9106_LOW_MEMORY`), verify as they are and are upgraded.
PARAMETERS = Parameters(type=Type.ID, version=19, salt_len=16, hash_len=32, time_cost=2, memory_cost=19 * 1024,
                        parallelism=1)
CONCURRENT_CHECKS = max(2, min(4, os.cpu_count() or 2))
MEMORY_BUDGET_KIB = CONCURRENT_CHECKS * PARAMETERS.memory_cost


class CheckGate:
    """Lets password checks run while at most `limit` run and their argon2 memory stays within `budget_kib`.

    A check costlier than the whole budget runs when no other does. `active` and `most` (the largest number
    seen at once since `reset`) are there to be read: by tests and by whoever wonders why sign-ins queue."""

    def __init__(self, limit: int, budget_kib: int) -> None:
        self.limit, self.budget_kib = limit, budget_kib
        self.active = self.most = self._memory = 0
        self._free = threading.Condition()

    def _fits(self, cost_kib: int) -> bool:
        return self.active == 0 or (self.active < self.limit and self._memory + cost_kib <= self.budget_kib)

    @contextmanager
    def check(self, cost_kib: int) -> Iterator[None]:
        with self._free:
            self._free.wait_for(lambda: self._fits(cost_kib))
            self.active += 1
            self._memory += cost_kib
            self.most = max(self.most, self.active)
        try:
            yield
        finally:
            with self._free:
                self.active -= 1
                self._memory -= cost_kib
                self._free.notify_all()

    def reset(self) -> None:
        with self._free:
            self.most = self.active


gate = CheckGate(CONCURRENT_CHECKS, MEMORY_BUDGET_KIB)
_hasher = PasswordHasher.from_parameters(PARAMETERS)
_pool = ThreadPoolExecutor(max_workers=CONCURRENT_CHECKS, thread_name_prefix="password-check")
_T = TypeVar("_T")


def _checked(cost_kib: int, work: Callable[[], _T]) -> _T:
    """`work` (argon2), run on the pool's threads once the gate lets it; the caller's thread waits."""
    def gated() -> _T:
        with gate.check(cost_kib):
            return work()
    return _pool.submit(gated).result()


def _cost_kib(password_hash: str) -> int:
    try:
        return extract_parameters(password_hash).memory_cost
    except InvalidHashError:
        return PARAMETERS.memory_cost  # refused by verify before any memory is taken


def hash_password(password: str) -> str:
    return _checked(_hasher.memory_cost, lambda: _hasher.hash(password))


def _verify(password_hash: str, password: str) -> bool:
    try:
        return _checked(_cost_kib(password_hash), lambda: _hasher.verify(password_hash, password))
    except (VerificationError, InvalidHashError):
        return False


# Verified when the name is unknown, so that a wrong name costs as long as a wrong password (same parameters).
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(12))


def fingerprint(password_hash: str) -> str:
    """A short digest of the stored hash: a session made before a password change stops being valid."""
    return hashlib.sha256(password_hash.encode()).hexdigest()[:16]


def _stored(db: Database, name: str) -> str | None:
    with db.read() as conn:
        return conn.scalar(sa.select(schema.users.c.password_hash).where(schema.users.c.name == name))


def verify(db: Database, name: str, password: str) -> str | None:
    """The stored hash's fingerprint when `password` is right for `name`, else None."""
    stored = _stored(db, name)
    if not _verify(stored or _DUMMY_HASH, password) or stored is None:
        return None
    if _hasher.check_needs_rehash(stored):
        stored = _rehash(db, name, stored, password)
    return fingerprint(stored) if stored else None


def _rehash(db: Database, name: str, stored: str, password: str) -> str | None:
    """Store `password` hashed with today's `PARAMETERS` in place of `stored` (made with others); the new hash.

    The user's sessions signed in with `stored` keep going (their fingerprint moves to the new hash). When
    the hash changed meanwhile (a password change, another sign-in's rehash), the one stored now is checked."""
    new = hash_password(password)
    users, web_sessions = schema.users, schema.web_sessions
    with db.write() as conn:
        done = conn.execute(users.update().where(users.c.name == name, users.c.password_hash == stored)
                            .values(password_hash=new))
        if done.rowcount == 1:
            conn.execute(web_sessions.update()
                         .where(web_sessions.c.user_name == name, web_sessions.c.fingerprint == fingerprint(stored))
                         .values(fingerprint=fingerprint(new)))
            return new
    current = _stored(db, name)
    return current if current and _verify(current, password) else None


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
        # the sessions and OAuth grants given with the old password end (every process); its failed sign-ins are
        # forgotten
        conn.execute(schema.web_sessions.delete().where(schema.web_sessions.c.user_name == name))
        oauth.end_user_grants(conn, name)
        conn.execute(schema.signin_throttle.delete().where(schema.signin_throttle.c.key == f"user:{name}"))


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
