"""The sign-in throttle: failed sign-ins counted in the state database, so that a stranger who knows a user's
name cannot lock that user out.

Each attempt counts against three rows of `concierge_signin_throttle` (every process behind one load balancer
reads and writes the same rows, so guesses spread over several processes are counted together):

- ``pair:NAME|ADDRESS``, the failures of one account from one client address. This is what stops a guesser:
  after `FREE["pair"]` failures that address waits before it may try that account again. No one else waits:
  the right password from an address that has not failed still signs in.
- ``addr:ADDRESS``, the failures from one address whatever the account (one address trying many names). It
  has more attempts free: one office's staff may share one address.
- ``user:NAME``, how many *distinct addresses* have failed the account. Only once `FREE["user"]` of them
  have (a guesser spread over many addresses) does the account itself wait, for every address, and for at
  most `MAX_DELAY_S["user"]`: slowed, never locked for long.

After its free failures, each failure makes a key wait twice as long as the one before (5 s, 10 s, 20 s ...
up to its `MAX_DELAY_S`); an attempt while one of its keys waits is refused with the seconds left, without
checking the password. A key with no failure for `FORGET_AFTER` starts from zero again.

An attempt is counted *before* its password is checked (`begin`), in a transaction that locks its rows (in
key order: no deadlock), so that a burst of parallel guesses is counted as fully as a sequence. `begin` says
which keys a failure of this attempt starts making wait (`Attempt.throttled`), for the audit. A right
password gives the attempt back (`succeeded`): the pair starts from zero, the address and the account count
one less and lose the wait the attempt set; the account's other failing addresses still count. The pairs
of an account count only while its ``user:`` row lives: deleting that row (`clear`, or a new password set
by an admin) forgets them all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from concierge.storage import clients
from concierge.storage import state as schema
from concierge.storage.database import Database
from concierge.storage.insert_once import insert_once

# failures without a wait: of one account from one address (pair), from one address whatever the account
# (addr); for an account (user), the number of distinct addresses that failed it
FREE = {"pair": 5, "addr": 20, "user": 10}
FIRST_DELAY_S = 5
MAX_DELAY_S = {"pair": 15 * 60, "addr": 15 * 60, "user": 60}
FORGET_AFTER = timedelta(hours=1)
UNKNOWN_ADDRESS = "unknown"
_KEY_LENGTH = 120


@dataclass(frozen=True)
class Throttled:
    """A key that a failure of this attempt makes wait for the first time since it was last forgotten."""

    kind: str  # pair, addr or user (see the module docstring)
    failures: int  # its failures so far; for an account, the addresses that failed it
    wait_s: int


@dataclass(frozen=True)
class Attempt:
    allowed: bool
    retry_after_s: int = 0  # when refused: the seconds until the next attempt is taken
    waiting: str | None = None  # when refused: the kind of key that waits longest
    throttled: tuple[Throttled, ...] = ()  # when allowed: what starts waiting if the password is wrong
    at: datetime | None = None  # when allowed: when it was counted


def delay_s(failures: int, free: int, most: int = MAX_DELAY_S["pair"]) -> int:
    """The wait after the `failures`-th failure of a key that has `free` failures without one."""
    if failures < free:
        return 0
    return min(FIRST_DELAY_S * 2 ** min(failures - free, 20), most)


def keys(name: str, address: str | None) -> dict[str, str]:
    """The row of each kind an attempt of account `name` from `address` counts against."""
    where = clients.counted(address) if address else UNKNOWN_ADDRESS  # an IPv6 client by its /64
    return {"addr": f"addr:{where}"[:_KEY_LENGTH], "pair": f"pair:{name}|{where}"[:_KEY_LENGTH],
            "user": f"user:{name}"[:_KEY_LENGTH]}


@dataclass(frozen=True)
class _Row:
    failures: int
    last_at: datetime
    blocked_until: datetime | None
    made: bool  # made by this attempt: nothing was counted against it in living memory

    def current(self, now: datetime) -> int:
        """Its failures, or 0 once forgotten."""
        return 0 if self.made or now - self.last_at > FORGET_AFTER else self.failures

    def wait(self, now: datetime) -> timedelta | None:
        return self.blocked_until - now if self.blocked_until is not None and self.blocked_until > now else None


def begin(db: Database, name: str, address: str | None) -> Attempt:
    """Count a sign-in attempt of `name` from `address`, or refuse it while one of its keys must wait."""
    now = datetime.now(UTC)
    named = keys(name, address)
    return db.retrying(lambda conn: _counted(conn, named, now))


def _counted(conn: sa.Connection, named: dict[str, str], now: datetime) -> Attempt:
    rows = {kind: _locked(conn, named[kind], now) for kind in sorted(named, key=named.__getitem__)}
    if rows["user"].made:  # the account's row is new (or was cleared): its pairs are forgotten
        rows["pair"] = replace(rows["pair"], made=True, blocked_until=None)
    refused = _refused(rows, now)
    if refused is not None:
        return refused
    throttled = [_count(conn, named[kind], kind, failures, now)
                 for kind, failures in _failures(rows, now).items()]
    _forget_old(conn, now)
    return Attempt(True, throttled=tuple(t for t in throttled if t is not None), at=now)


def _refused(rows: dict[str, _Row], now: datetime) -> Attempt | None:
    waits = {kind: wait for kind, row in rows.items() if (wait := row.wait(now)) is not None}
    if not waits:
        return None
    kind = max(waits, key=waits.__getitem__)
    return Attempt(False, max(1, math.ceil(waits[kind].total_seconds())), waiting=kind)


def _failures(rows: dict[str, _Row], now: datetime) -> dict[str, int | None]:
    """What each key counts once this attempt is counted; None: the key counts nothing new (the account
    counts an address once, at its first failure)."""
    pair = rows["pair"].current(now)
    return {"addr": rows["addr"].current(now) + 1, "pair": pair + 1,
            "user": rows["user"].current(now) + 1 if pair == 0 else None}


def _count(conn: sa.Connection, key: str, kind: str, failures: int | None, now: datetime) -> Throttled | None:
    """Write what the key counts now; the key when this is the failure that makes it wait at first."""
    table = schema.signin_throttle
    update = table.update().where(table.c.key == key)
    if failures is None:
        conn.execute(update.values(last_at=now))  # alive while its pairs are
        return None
    wait = delay_s(failures, FREE[kind], MAX_DELAY_S[kind])
    conn.execute(update.values(failures=failures, last_at=now,
                               blocked_until=now + timedelta(seconds=wait) if wait else None))
    return Throttled(kind, failures, wait) if wait and failures == FREE[kind] else None


def _forget_old(conn: sa.Connection, now: datetime) -> None:
    table = schema.signin_throttle
    oldest = now - FORGET_AFTER - timedelta(seconds=max(MAX_DELAY_S.values()))
    old = sa.select(table.c.key).where(table.c.last_at < oldest).with_for_update(skip_locked=True)
    conn.execute(table.delete().where(table.c.key.in_(old)))  # a row another attempt holds is left for later


def succeeded(db: Database, name: str, address: str | None, attempt: Attempt) -> None:
    """The password of `attempt` was right: this address starts from zero for the account; the address and
    the account count one failure (one address) less, and lose the wait this attempt set, when no attempt was
    counted since. The account's other failing addresses still count."""
    table = schema.signin_throttle
    named = keys(name, address)
    given_back = table.update().values(
        failures=sa.case((table.c.failures > 0, table.c.failures - 1), else_=0),
        blocked_until=sa.case((table.c.last_at == attempt.at, sa.null()), else_=table.c.blocked_until))
    with db.write() as conn:  # in key order, as `begin` locks them
        conn.execute(given_back.where(table.c.key == named["addr"]))
        conn.execute(table.delete().where(table.c.key == named["pair"]))
        conn.execute(given_back.where(table.c.key == named["user"]))


def _locked(conn: sa.Connection, key: str, now: datetime) -> _Row:
    """The key's row, made if need be and locked until commit."""
    table = schema.signin_throttle
    made = insert_once(conn, table, {"key": key, "failures": 0, "last_at": now, "blocked_until": None})
    row = conn.execute(sa.select(table.c.failures, table.c.last_at, table.c.blocked_until)
                       .where(table.c.key == key).with_for_update()).one()
    blocked = _aware(row.blocked_until) if row.blocked_until is not None else None
    return _Row(row.failures, _aware(row.last_at), blocked, made)


def _aware(value: datetime) -> datetime:
    """SQLite keeps no time zone: its times are the UTC ones written."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def clear(db: Database, name: str) -> None:
    """Forget the failed sign-ins of account `name`, from every address (an admin set a new password, or
    signed them out)."""
    with db.write() as conn:
        conn.execute(schema.signin_throttle.delete().where(schema.signin_throttle.c.key == keys(name, None)["user"]))
