"""The sign-in throttle: failed sign-ins counted per account and per client address, in the state database.

Every process behind one load balancer reads and writes the same rows, so guesses spread over several
processes are counted together. Each key (``user:NAME``, ``addr:ADDRESS``) has some attempts free; after
them, each failure makes the key wait twice as long as the one before (5 s, 10 s, 20 s ... up to
`MAX_DELAY_S`) and an attempt while it waits is refused with the seconds left, without checking the
password. A key with no failure for `FORGET_AFTER` starts from zero again.

An attempt is counted *before* its password is checked (`begin`), in a transaction that locks the key's
row, so that a burst of parallel guesses is counted as fully as a sequence. A right password then
clears the account and takes its own attempt back off the address (`succeeded`). An address has more
attempts free than an account: one office's staff may share one address.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from concierge.storage import state as schema
from concierge.storage.database import Database

FREE = {"user": 5, "addr": 20}  # attempts without a wait, per account and per client address
FIRST_DELAY_S = 5
MAX_DELAY_S = 15 * 60
FORGET_AFTER = timedelta(hours=1)
_KEY_LENGTH = 120


@dataclass(frozen=True)
class Attempt:
    allowed: bool
    retry_after_s: int = 0  # when refused: the seconds until the next attempt is taken


def delay_s(failures: int, free: int) -> int:
    """The wait after the `failures`-th failure of a key that has `free` attempts without one."""
    if failures < free:
        return 0
    return min(FIRST_DELAY_S * 2 ** min(failures - free, 20), MAX_DELAY_S)


def keys(name: str, address: str | None) -> list[str]:
    """The rows an attempt counts against, in the order they are locked (sorted: no deadlock)."""
    found = {f"user:{name}"[:_KEY_LENGTH]}
    if address:
        found.add(f"addr:{address}"[:_KEY_LENGTH])
    return sorted(found)


def _aware(value: datetime | None) -> datetime | None:
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


def begin(db: Database, name: str, address: str | None) -> Attempt:
    """Count a sign-in attempt of `name` from `address`, or refuse it while either of them must wait."""
    now = datetime.now(UTC)
    table = schema.signin_throttle
    with db.write() as conn:
        rows = {key: _locked(conn, key, now) for key in keys(name, address)}
        waits = [blocked - now for _f, _last, blocked in rows.values() if blocked is not None and blocked > now]
        if waits:
            return Attempt(False, max(1, math.ceil(max(waits).total_seconds())))
        for key, (failures, last, _blocked) in rows.items():
            failures = (0 if now - last > FORGET_AFTER else failures) + 1
            wait = delay_s(failures, FREE[key.partition(":")[0]])
            conn.execute(table.update().where(table.c.key == key).values(
                failures=failures, last_at=now, blocked_until=now + timedelta(seconds=wait) if wait else None))
        conn.execute(table.delete().where(table.c.last_at < now - FORGET_AFTER - timedelta(seconds=MAX_DELAY_S)))
    return Attempt(True)


def succeeded(db: Database, name: str, address: str | None) -> None:
    """The password was right: the account starts from zero; the address gets this attempt back."""
    table = schema.signin_throttle
    account, *_ = keys(name, None)
    with db.write() as conn:
        conn.execute(table.delete().where(table.c.key == account))
        if address:
            conn.execute(table.update().where(table.c.key == f"addr:{address}"[:_KEY_LENGTH], table.c.failures > 0)
                         .values(failures=table.c.failures - 1))


def _locked(conn: sa.Connection, key: str, now: datetime) -> tuple[int, datetime, datetime | None]:
    """The key's (failures, last failure, blocked until), its row made if need be and locked until commit."""
    table = schema.signin_throttle
    insert = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(table)
    conn.execute(insert.values(key=key, failures=0, last_at=now, blocked_until=None).on_conflict_do_nothing())
    row = conn.execute(sa.select(table.c.failures, table.c.last_at, table.c.blocked_until)
                       .where(table.c.key == key).with_for_update()).one()
    last = row.last_at if row.last_at.tzinfo else row.last_at.replace(tzinfo=UTC)
    return row.failures, last, _aware(row.blocked_until)


def clear(db: Database, name: str) -> None:
    """Forget the failed sign-ins of account `name` (an admin set a new password, or signed them out)."""
    with db.write() as conn:
        conn.execute(schema.signin_throttle.delete().where(schema.signin_throttle.c.key == keys(name, None)[0]))
