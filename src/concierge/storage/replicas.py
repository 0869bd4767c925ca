"""Reads on PostgreSQL streaming replicas; writes, and the reads that must see them, on the primary.

`Replicas.place` picks where one read runs: the next healthy replica in turn (round-robin), else the primary,
with the line the trace shows either way ("read from replica 127.0.0.1:5433", "read from the primary: replica
127.0.0.1:5433 is unreachable"). A replica is healthy when it answers, is a standby, lags at most `max_lag_s`
and, for a reader that wrote, has replayed past that write. Its health is asked at most once a `CHECK_EVERY_S`
(a lag known to that second is enough); a replica that could not be reached is not tried again for
`DOWN_FOR_S`, and is tried with a short connect timeout, so a replica that is down costs the requests
nothing but the one try that finds it still down.

Read your own writes: after a write commits, the primary's WAL position (`pg_current_wal_insert_lsn()`) is stored
with the reader (the user and conversation) in the state database, so every `serve` process sharing that
state sees it; a later read of that reader goes to a replica only once it has replayed past that position
(`pg_last_wal_replay_lsn()`). A position, not a time pinned to the primary: a replica that is caught up serves
the conversation again at once, and one that lags longer than any pin would is never read too early.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from concierge.errors import ConfigError, DatabaseError
from concierge.storage import state as schema
from concierge.storage.database import Database, normalise_url

log = logging.getLogger(__name__)
DEFAULT_MAX_LAG_S = 5.0
CHECK_EVERY_S = 1.0  # a replica's lag and replay position are asked at most this often
DOWN_FOR_S = 5.0  # a replica that could not be reached is not tried again for this long
CONNECT_TIMEOUT_S = 2  # libpq's shortest
POSITIONS_KEPT = timedelta(hours=1)  # a conversation's write position is forgotten after this (or 2 max lags)
Reader = tuple[str, str]  # (user, conversation): whose writes a read must see

_HEALTH: sa.Select[Any, Any, Any] = sa.select(
    sa.literal_column("pg_is_in_recovery()").label("standby"),
    sa.literal_column("pg_last_wal_replay_lsn() - '0/0'::pg_lsn").label("replayed"),
    # the time since the last transaction replayed, while WAL received waits to be replayed; 0 when none waits
    sa.literal_column("CASE WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0 "
                      "ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END").label("lag"),
)
# where the primary inserts WAL next: past the write's commit record even where that record is not yet written
# out (synchronous_commit = off), which pg_current_wal_lsn() is not
_PRIMARY_POSITION: sa.Select[Any] = sa.select(
    sa.literal_column("pg_current_wal_insert_lsn() - '0/0'::pg_lsn").label("position"))
_POSITIONS = schema.read_positions
_RECALL = sa.select(_POSITIONS.c.position).where(_POSITIONS.c.user_name == sa.bindparam("user"),
                                                 _POSITIONS.c.session_id == sa.bindparam("session"))


_RECOVERY_CONFLICT = "40001"  # a standby cancelled a query whose rows the WAL it replays removes


def _sqlstate(err: BaseException) -> str | None:
    return getattr(getattr(err.__cause__, "orig", None), "sqlstate", None)


@dataclass(frozen=True)
class ReplicaConfig:
    """The `replica_database` and `replica_max_lag_s` settings."""

    urls: tuple[str, ...] = ()
    max_lag_s: float = DEFAULT_MAX_LAG_S


@dataclass(frozen=True)
class ReadPlace:
    """Where one read runs, and the trace's line that says so; `replica` None: the primary."""

    db: Database
    said: str
    replica: Replica | None = None


class Replica:
    """One replica and what was last learned of it."""

    def __init__(self, url: str, clock: Callable[[], float]):
        parsed = sa.engine.make_url(normalise_url(url))
        if parsed.get_backend_name() != "postgresql":
            raise ConfigError(f"replica_database {parsed.render_as_string(hide_password=True)!r}: replicas must be "
                              "PostgreSQL streaming replicas (postgresql://USER:PASSWORD@HOST:5432/NAME)")
        if "connect_timeout" not in parsed.query:
            parsed = parsed.update_query_dict({"connect_timeout": str(CONNECT_TIMEOUT_S)})
        self.address = f"{parsed.host or 'localhost'}:{parsed.port or 5432}"
        self.db = Database(parsed.render_as_string(hide_password=False))
        self._clock = clock
        self._lock = threading.Lock()
        self.down_until = -math.inf  # not tried before this: it could not be reached
        self.problem: str | None = None  # why it was last found unusable for every reader
        self.checked_at = -math.inf
        self._checking = False  # a reader is asking the replica now
        self.replayed = 0  # the WAL position replayed when last asked
        self.lag_s = 0.0

    def unusable(self, since: int | None, max_lag_s: float) -> str | None:
        """Why this replica cannot serve a reader that must see position `since` (None: it can). While one
        reader asks the replica, the others go by what was learned before."""
        now = self._clock()
        with self._lock:
            if now < self.down_until:
                return self.problem
            due = not self._checking and (now - self.checked_at >= CHECK_EVERY_S
                                          or since is not None and self.replayed < since)
            self._checking = self._checking or due
        if due:
            try:
                self.check()
            finally:
                self._checking = False
        if self.problem is not None:
            return self.problem
        if self.lag_s > max_lag_s:
            return f"lags {self.lag_s:.0f} s behind (replica_max_lag_s = {max_lag_s:g})"
        if since is not None and self.replayed < since:
            return "has not replayed this conversation's last write yet"
        return None

    def check(self) -> None:
        """Ask the replica for its lag and replay position; a replica that does not answer is down a while."""
        try:
            row = self.db.lookup(_HEALTH, {})
        except DatabaseError as err:
            self.went_down(err)
            return
        with self._lock:
            self.checked_at, self.down_until = self._clock(), -math.inf
            if row is None or not row["standby"]:
                self.problem = "is not a standby (it replays nothing: point replica_database at a replica)"
                return
            self.problem = None
            self.replayed, self.lag_s = int(row["replayed"] or 0), float(row["lag"] or 0)

    def went_down(self, err: Exception) -> None:
        if self.problem != "is unreachable":
            log.warning("replica %s is unreachable; reading from the primary: %s", self.address, err)
        with self._lock:
            self.problem, self.down_until = "is unreachable", self._clock() + DOWN_FOR_S

    def answers(self) -> bool:
        """Whether the replica answers now (asked after a read on it failed)."""
        self.check()
        return self.problem != "is unreachable"


class Replicas:
    """The replicas of the primary `primary`; the readers' write positions are kept in `state`."""

    def __init__(self, primary: Database, state: Database, config: ReplicaConfig, *,
                 clock: Callable[[], float] = time.monotonic):
        if primary.is_sqlite:
            raise ConfigError("replica_database needs the database on PostgreSQL: SQLite has no replicas. Move the "
                              "data to PostgreSQL (docs/deploy.md), or remove replica_database")
        self.primary, self.state, self.max_lag_s = primary, state, config.max_lag_s
        self.all = [Replica(url, clock) for url in config.urls]
        self._turn = 0
        self._lock = threading.Lock()

    def place(self, reader: Reader) -> ReadPlace:
        """A healthy replica, the next in turn; else the primary, saying why."""
        since = self.written_by(reader)
        with self._lock:
            start, self._turn = self._turn, self._turn + 1
        problems = []
        for i in range(len(self.all)):
            replica = self.all[(start + i) % len(self.all)]
            problem = replica.unusable(since, self.max_lag_s)
            if problem is None:
                return ReadPlace(replica.db, f"read from replica {replica.address}", replica)
            problems.append(f"replica {replica.address} {problem}")
        return self.on_primary(problems)

    def on_primary(self, problems: Sequence[str]) -> ReadPlace:
        return ReadPlace(self.primary, "read from the primary: " + "; ".join(problems))

    def after_failure(self, place: ReadPlace, err: DatabaseError) -> ReadPlace:
        """Where a read that failed on a replica runs again: the primary when the replica cancelled it (a
        conflict with the WAL it replays) or went down under it; else the error was the read's own, and is
        raised."""
        replica = place.replica
        if replica is None:
            raise err
        if _sqlstate(err) == _RECOVERY_CONFLICT:
            return self.on_primary([f"replica {replica.address} cancelled the read (a conflict with recovery: "
                                    "see max_standby_streaming_delay)"])
        if replica.answers():
            raise err
        replica.went_down(err)
        return self.on_primary([f"replica {replica.address} went down during the read"])

    def wrote(self, reader: Reader) -> None:
        """After a write of `reader` committed: remember the primary's position, for its next reads."""
        row = self.primary.lookup(_PRIMARY_POSITION, {})
        position = int(row["position"]) if row else 0
        user, session = reader
        now = datetime.now(UTC)
        values = {"user_name": user, "session_id": session, "position": position, "written_at": now}
        with self.state.write() as conn:
            # a replica that has not replayed a write this old lags more than replica_max_lag_s: it is not read
            kept = max(POSITIONS_KEPT, timedelta(seconds=2 * self.max_lag_s))
            conn.execute(_POSITIONS.delete().where(_POSITIONS.c.written_at < now - kept))
            moved = conn.execute(_POSITIONS.update().where(
                _POSITIONS.c.user_name == user, _POSITIONS.c.session_id == session,
                _POSITIONS.c.position < position).values(position=position, written_at=values["written_at"]))
            if moved.rowcount == 0 and conn.execute(_RECALL, {"user": user, "session": session}).first() is None:
                conn.execute(_POSITIONS.insert(), values)

    def written_by(self, reader: Reader) -> int | None:
        """The position of `reader`'s last write, where it wrote through any process; None: it never wrote."""
        row = self.state.lookup(_RECALL, {"user": reader[0], "session": reader[1]})
        return None if row is None else int(row["position"])

    def dispose(self) -> None:
        for replica in self.all:
            replica.db.dispose()
