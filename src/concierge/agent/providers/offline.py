"""The offline provider: the deterministic planner behind the provider interface.

No key, no network, no model: a fresh install answers common requests at once. It is
just another provider, so the loop has no special case; like any model it only asks
for tool calls, which the loop runs through the pipeline. Planning is CPU work: it runs in
a worker thread (`concierge.threads.run`), never on the event loop, so a long message
delays no other request; the planner bounds it by its own budget (`concierge.planner.budget`).
"""

from __future__ import annotations

from concierge import threads
from concierge.agent.providers.interface import Capabilities, ModelReply, ModelRequest, Provider
from concierge.pipeline.pipeline import Pipeline
from concierge.planner import Planner


class OfflineProvider(Provider):
    name = "offline"
    model = "planner"
    # it answers at once (a final answer is passed on whole); it reads the catalogs' declarations, the
    # conversation and `ModelRequest.state` itself, not the rules written out as `context`
    capabilities = Capabilities(streams=False, reads_context=False, local=True)

    def __init__(self, pipeline: Pipeline):
        self.planner = Planner(pipeline)

    async def complete(self, request: ModelRequest) -> ModelReply:
        return await threads.run(self.planner.reply, request)
