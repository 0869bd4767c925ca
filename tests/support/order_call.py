"""One phone conversation with the offline planner on the restaurant demo, and the order it holds afterwards."""

from __future__ import annotations

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.pipeline.access import Session


class OrderCall:
    def __init__(self, restaurant, phone):
        self.restaurant, self.phone = restaurant, phone
        self.agent = Agent(restaurant, OfflineProvider(restaurant))
        self.session_id: str | None = None

    async def say(self, text: str):
        turn = await self.agent.ask(text, self.phone, session_id=self.session_id, auto_confirm=True)
        self.session_id = turn.session_id
        return turn

    def _rows(self) -> list[dict]:
        return self.restaurant.invoke("read_order", {}, self.phone, session=Session(self.session_id or "")).rows

    def order(self) -> dict[tuple[str, str | None], int]:
        """(item, option): quantity, of every line the order holds."""
        return {(r["item"], r["option"]): r["quantity"] for r in self._rows() if r["item"]}

    def pickup(self) -> str | None:
        """The pickup time set, HH:MM, or None."""
        return next((r["pickup_time"] for r in self._rows() if r.get("pickup_time")), None)
