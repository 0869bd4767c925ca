"""Imported at start-up by the `concierge serve` of a test (see `budget_spender`)."""

from budget_spender import SPEND
from concierge import planner
from concierge.planner import budget

_plan = planner.Planner.plan


def _spending(self, request):
    said = [m.text or "" for m in request.messages if m.role == "user"]
    if said and said[-1].startswith(SPEND):
        while True:  # pure Python between checks, holding the GIL as a planner pass does
            sum(range(2_000))
            budget.check()
    return _plan(self, request)


planner.Planner.plan = _spending
