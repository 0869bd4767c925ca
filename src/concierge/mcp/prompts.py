"""Prompts and completions: what each catalog says its tools answer (`intents.examples`) as MCP prompts, and
the values of an enum parameter read from the data as the completions of that argument.

A user lists and gets only the prompts of the tools their role may call, and completes only their arguments:
another role's prompt is "not found", as an unknown one is. A completion offers the values that begin with what
was typed, then those that contain it (case and width folded), at most `MAX_VALUES`, with the total.
"""

from __future__ import annotations

import unicodedata

import mcp_types as types
from mcp.shared.exceptions import MCPError

from concierge.catalog.model import Tool
from concierge.pipeline import guard
from concierge.pipeline.access import User
from concierge.pipeline.pipeline import Pipeline

MAX_VALUES = 100  # the most values one completion carries (the MCP specification's cap)


def listing(pipeline: Pipeline, user: User) -> list[types.Prompt]:
    return [_prompt(tool) for tool in _prompted(pipeline, user)]


def get(pipeline: Pipeline, user: User, name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
    """The prompt `name` as one user message: the tool's first example, or, given arguments, the tool's purpose
    with each value said. An argument the tool does not take is refused with the ones it does."""
    tool = _visible(pipeline, user, name)
    if tool is None:
        raise MCPError(code=types.INVALID_PARAMS, message=f"no prompt {name!r}; prompts/list gives yours")
    given = {k: v for k, v in (arguments or {}).items() if v not in (None, "")}
    unknown = sorted(set(given) - set(tool.params))
    if unknown:
        raise MCPError(code=types.INVALID_PARAMS, message=f"the prompt {name} takes no {', '.join(unknown)}; "
                       f"its arguments: {', '.join(tool.params)}")
    if given:
        said = "; ".join(f"{k} = {v}" for k, v in given.items())
        text = f"{tool.description.en}: {said}"
    else:
        text = _examples(tool)[0]
    message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
    return types.GetPromptResult(description=_description(tool), messages=[message])


def complete(pipeline: Pipeline, user: User, params: types.CompleteRequestParams) -> types.CompleteResult:
    """The values of the prompt argument's enum that fit what was typed; none for anything else."""
    ref = params.ref
    tool = _visible(pipeline, user, ref.name) if isinstance(ref, types.PromptReference) else None
    param = tool.params.get(params.argument.name) if tool is not None else None
    if tool is None or param is None or param.type != "enum":
        return types.CompleteResult(completion=types.Completion(values=[], total=0, has_more=False))
    values = guard.valid_values(param, pipeline.guard_context(tool.name))
    typed = _fold(params.argument.value)
    starting = [v for v in values if _fold(v).startswith(typed)]
    containing = [v for v in values if typed in _fold(v) and v not in starting]
    found = starting + containing
    return types.CompleteResult(completion=types.Completion(
        values=found[:MAX_VALUES], total=len(found), has_more=len(found) > MAX_VALUES))


def _prompted(pipeline: Pipeline, user: User) -> list[Tool]:
    return [tool for tool in pipeline.tools_for(user) if _examples(tool)]


def _visible(pipeline: Pipeline, user: User, name: str) -> Tool | None:
    return next((tool for tool in _prompted(pipeline, user) if tool.name == name), None)


def _examples(tool: Tool) -> list[str]:
    return tool.intents.examples if tool.intents else []


def _prompt(tool: Tool) -> types.Prompt:
    arguments = [types.PromptArgument(name=name, description=f"{p.description.en} ({p.description.ja})",
                                      required=False) for name, p in tool.params.items()]
    return types.Prompt(name=tool.name, title=tool.description.en, description=_description(tool),
                        arguments=arguments)


def _description(tool: Tool) -> str:
    shown = " / ".join(_examples(tool)[:2])
    return f"{tool.description.en} ({tool.description.ja}). For example: {shown}"


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()
