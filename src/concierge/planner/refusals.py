"""The planner's refusals in the audit: a request it declines leaves a line, as a refused call does.

The planner declines before any call reaches `Pipeline.invoke`: a tool the user is not offered
(``refused:not_permitted``), a write asked under a condition (``refused:conditional_write``), a request
to run SQL or to delete or change data, which no tool does (``refused:unknown_tool``, with ``[sql]`` or
``[change]`` where a tool's name would be), and one no tool can answer (a forecast, advice, a general
question: ``[out_of_scope]``), and one too long to work out within the planner's budget (``refused:too_long``,
``[too_long]``). The line keeps the request's words, shortened.
"""

from __future__ import annotations

from concierge.agent.providers.interface import ModelRequest
from concierge.errors import ResultCode
from concierge.pipeline.pipeline import Pipeline
from concierge.planner.plan import Plan, Problem

REQUEST_CHARS = 500
_ASKED = {"refused_sql": "[sql]", "refused_change": "[change]", "cannot_change": "[change]",
          "out_of_scope": "[out_of_scope]"}
_MESSAGES = {
    "refused_sql": "the planner declined: the request asks to run SQL, and only the declared tools run",
    "refused_change": "the planner declined: the request asks to delete or change data, and no tool does that",
    "cannot_change": "the planner declined: the request asks to correct registered data, and no tool does that",
    "out_of_scope": "the planner declined: the request asks for what no tool does (a forecast, advice, a general"
                    " question)",
}


def record(pipeline: Pipeline, plan: Plan, request: ModelRequest) -> None:
    """One audit line for each part of `plan` the planner declined, as `request.user`."""
    offered = {spec.name for spec in request.tools}
    for part in plan.requests:
        for problem in part.problems:
            refused = _refusal(problem, offered)
            if refused is not None:
                tool, code, message = refused
                pipeline.record_refusal(request.user, tool, code, message,
                                        args={"request": part.text[:REQUEST_CHARS]})


def record_too_long(pipeline: Pipeline, request: ModelRequest, text: str, err: Exception) -> None:
    """The audit line of a request the planner gave up on past its budget (`planner.budget`)."""
    pipeline.record_refusal(request.user, "[too_long]", "too_long", f"the planner declined: {err}",
                            args={"request": text[:REQUEST_CHARS], "chars": len(text)})


def _refusal(problem: Problem, offered: set[str]) -> tuple[str, str, str] | None:
    if problem.kind in _ASKED:
        return _ASKED[problem.kind], ResultCode.UNKNOWN_TOOL, _MESSAGES[problem.kind]
    if problem.kind != "forbidden" or problem.tool is None:
        return None
    if problem.tool not in offered:
        return (problem.tool, ResultCode.NOT_PERMITTED,
                f"the planner did not call {problem.tool}: this user's role is not offered it")
    return (problem.tool, "conditional_write",
            f"the planner did not call {problem.tool}: a write is not run on a condition")
