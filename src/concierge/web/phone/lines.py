"""How many calls this server process holds: sockets waiting for their `setup`, and calls under way,
in all and per caller number (`phone.max_calls`, `phone.max_calls_per_caller`).

The counts are this process's own (in memory): behind a load balancer each process takes its share.
Everything runs on the server's event loop, so no lock is needed.
"""

from __future__ import annotations

import time
from collections import Counter


class Lines:
    def __init__(self, max_calls: int, max_per_caller: int):
        self.max_calls, self.max_per_caller = max_calls, max_per_caller
        self.waiting = 0  # sockets accepted, their setup not yet admitted
        self.calls: Counter[str] = Counter()  # calls under way, by caller number
        self.tickets: dict[str, float] = {}  # the relay URLs that opened a socket, until they expire

    def first_use(self, ticket: str, expires: float) -> bool:
        """Whether the relay URL of one TwiML (`ticket`, good until `expires`) opens its first socket here."""
        now = time.time()
        self.tickets = {t: until for t, until in self.tickets.items() if until >= now}
        if ticket in self.tickets:
            return False
        self.tickets[ticket] = expires
        return True

    def knock(self) -> bool:
        """A socket before its setup; False when as many already wait as there may be calls."""
        if self.waiting >= self.max_calls:
            return False
        self.waiting += 1
        return True

    def answered(self) -> None:
        """The socket's setup was admitted, or refused: it waits no more."""
        self.waiting -= 1

    def take(self, caller: str) -> str | None:
        """A line for a call from `caller`; why not, when there is none."""
        if sum(self.calls.values()) >= self.max_calls:
            return f"all {self.max_calls} lines are busy"
        if self.calls[caller] >= self.max_per_caller:
            return f"{self.max_per_caller} calls from this number are under way already"
        self.calls[caller] += 1
        return None

    def hang_up(self, caller: str) -> None:
        self.calls[caller] -= 1
        if self.calls[caller] <= 0:
            del self.calls[caller]
