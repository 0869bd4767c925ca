"""A `concierge serve` started with this folder and tests/support on PYTHONPATH imports `sitecustomize` here
at start-up: a message that starts with SPEND makes its offline planner work until the budget is spent, as
the costliest message the budget lets through would. The real planner is fast enough on every known input
that a test could not otherwise tell planning off the event loop from planning on it."""

SPEND = "SPEND"
