"""Fuzzed tool calls through the pipeline: never an unhandled exception, and refused input runs no SQL.

Arguments are what a confused or hostile model might send: the right keys with
wrong values, plausible values just outside the rules, any JSON at all, keys
that do not exist, and arguments that are not an object.
"""

from __future__ import annotations

import json
import string
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event

from concierge.errors import ResultCode
from concierge.pipeline import guard
from concierge.sources.result import BaseResult, ToolResult

USERS = ("admin", "tanaka", "suzuki", "pos_analyst")
# Refused before any SQL: by the guard or the permission check.
REFUSED_UNSEEN = {ResultCode.UNKNOWN_TOOL, ResultCode.BAD_ARGUMENT, ResultCode.NOT_PERMITTED}

json_scalar = (
    st.none() | st.booleans() | st.integers() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats() | st.text(max_size=30)
)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
TRICKY_TEXT = [
    "", " ", "\x00", "0001\x00", "a\u0000b", "\ud800", "0001\ud83d", "０００９", "٠٠٠٩", "%", "_", "\\",
    "'; DROP TABLE farm_sales; --", "x" * 10_000, "\u202e0100", "佐藤\n", "NULL", "null", "2025-05-15\x00",
]
tricky_text = st.sampled_from(TRICKY_TEXT)
date_text = st.one_of(
    st.dates(date(2024, 6, 1), date(2026, 12, 31)).map(lambda d: d.isoformat()),
    st.dates().map(lambda d: d.isoformat()),
    st.sampled_from(["2025-02-29", "2024-02-29", "2025-13-01", "2025-5-1", "２０２５-０５-０１", " 2025-05-01 ",
                     "0001-01-01", "9999-12-31", "2026-08-24T00:00:00", "2025/05/01", "昨日"]),
    st.from_regex(r"\A\d{4}-\d{2}-\d{2}\Z"),
)
code_text = st.one_of(st.integers(0, 25).map("{:04d}".format), st.from_regex(r"\A\d{4}\Z"),
                      st.text(alphabet=string.digits, max_size=6))


def valid(param, ctx) -> st.SearchStrategy:
    """Values the guard accepts (a date pair may still come out reversed)."""
    if param.type == "date":
        data_range = ctx.date_ranges.get(param.bounds.query) if param.bounds and param.bounds.query else None
        low, high = data_range or (date(2024, 10, 1), ctx.today)
        return st.dates(low, high).map(lambda d: d.isoformat())
    if param.type == "integer":
        return st.integers(param.min if param.min is not None else -1000, param.max if param.max is not None else 1000)
    if param.type == "enum":
        return st.sampled_from(guard.valid_values(param, ctx) + list(param.enum.synonyms))
    if param.pattern and "\\d{4}" in param.pattern:
        return st.integers(1, 25).map("{:04d}".format)
    if param.pattern:
        return st.from_regex(param.pattern, fullmatch=True)
    return st.text(st.characters(codec="utf-8", exclude_categories=["Cc", "Cs"]), min_size=1, max_size=30)


def plausible(param) -> st.SearchStrategy:
    """Values near what the parameter accepts, on both sides of each rule."""
    if param.type == "date":
        return date_text
    if param.type == "integer":
        low = param.min if param.min is not None else -1000
        high = param.max if param.max is not None else 1000
        return st.integers(low - 5, high + 5) | st.floats(low - 5, high + 5) | st.sampled_from([True, "5"])
    if param.type == "enum":
        known = list(param.enum.values or []) + list(param.enum.synonyms)
        return st.sampled_from(known + ["おにぎり", "飲料", "鮭おにぎり", "ＤＥＳＣ", "bento ", "none"])
    if param.pattern and "\\d{4}" in param.pattern:
        return code_text
    return st.text(max_size=60) | tricky_text


@st.composite
def tool_calls(draw, tools: dict, ctx) -> tuple[str, object, str, str | None]:
    """A call that is valid, or valid but for one argument, or noise in every argument."""
    if draw(st.integers(0, 9)):
        name = draw(st.sampled_from(sorted(tools)))
    else:
        name = draw(st.sampled_from(["run_sql", "", "get_sales ", "GET_SALES"]) | st.text(max_size=20) | tricky_text)
    tool = tools.get(name)
    if tool is None or draw(st.integers(0, 9)) == 0:
        args = draw(json_value)
    else:
        args = {pname: draw(valid(param, ctx)) for pname, param in tool.params.items()
                if param.required or draw(st.booleans())}
        noise = draw(st.sampled_from(["none", "one", "one", "all"]))
        for pname, param in tool.params.items():
            if noise == "all" or (noise == "one" and pname == draw(st.sampled_from(sorted(tool.params)))):
                args[pname] = draw(plausible(param) | plausible(param) | json_value | st.none())
        if draw(st.integers(0, 9)) == 0:
            args[draw(st.text(min_size=1, max_size=12) | tricky_text)] = draw(json_value)
    user = draw(st.sampled_from(USERS[:1] * 3 + USERS))
    confirmation = draw(st.none() | st.none() | st.text(max_size=40) | tricky_text)
    return name, args, user, confirmation


def statements_of(engine) -> list[str]:
    seen: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _seen(_conn, _cursor, statement, *_):
        seen.append(" ".join(statement.split()))

    return seen


@pytest.fixture
def fuzz_pipeline(pipeline):
    users = {name: pipeline.user(name) for name in USERS}
    seen = statements_of(pipeline.db.engine)
    return pipeline, users, seen


def call_and_check(pipeline, users, seen, call) -> ToolResult:
    """One call through the pipeline, and what must hold whatever the input was."""
    name, args, user, confirmation = call
    pipeline.guard_context()  # the values read from the data, cached before the call
    seen.clear()
    result = pipeline.invoke(name, args, users[user], confirmation=confirmation)

    assert isinstance(result, BaseResult)
    json.loads(result.model_dump_json())  # every result can be sent to a client
    assert result.status in ("ok", "confirm", "refused", "error")
    if result.status == "error":
        assert result.code == ResultCode.NOT_FOUND, result
    if result.status == "refused" and result.code in REFUSED_UNSEEN:
        run = [s for s in seen if not s.upper().startswith("BEGIN")]
        # the caller's rights, read as they are now, and the audit line: nothing of the business data
        assert len(run) == 2 and run[0].startswith("SELECT concierge_users.") and run[1].startswith(
            "INSERT INTO concierge_audit"), (call, run)
    return result


def test_fuzzed_calls_never_raise_and_refusals_run_no_sql(fuzz_pipeline):
    pipeline, users, seen = fuzz_pipeline

    @settings(max_examples=300, deadline=None, database=None, print_blob=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(call=tool_calls(pipeline.tools, pipeline.guard_context()))
    def check(call):
        call_and_check(pipeline, users, seen, call)

    check()


def test_awkward_text_in_every_string_parameter(fuzz_pipeline):
    """NUL, unpaired surrogates, other scripts' digits, LIKE wildcards, 10,000 characters: each is
    refused or answered, never a crash, in every text parameter of every tool and as a name."""
    pipeline, users, seen = fuzz_pipeline
    base = {"get_customers": {}, "get_sales": {"code_customer": "0002"},
            "add_sale": {"code_customer": "0002", "products": "トマト1個", "price": 80},
            "compare_periods": {"cur_start": "2026-08-24", "cur_end": "2026-08-30", "prev_start": "2026-08-17",
                                "prev_end": "2026-08-23", "category": None},
            "sales_ranking": {"start": "2026-08-01", "end": "2026-08-31", "category": None},
            "daily_sales": {"start": "2026-08-01", "end": "2026-08-31", "category": None}}
    assert set(base) == set(pipeline.tools)
    outcomes = set()
    for name, tool in pipeline.tools.items():
        for pname in [p for p, param in tool.params.items() if param.type in ("string", "enum", "date")]:
            for text in TRICKY_TEXT:
                result = call_and_check(pipeline, users, seen, (name, {**base[name], pname: text}, "admin", None))
                outcomes.add(result.status)
    for text in TRICKY_TEXT:  # as a tool name, an argument name, and a confirmation token
        call_and_check(pipeline, users, seen, (text, {}, "admin", None))
        call_and_check(pipeline, users, seen, ("get_customers", {text: text}, "admin", None))
        call_and_check(pipeline, users, seen, ("add_sale", base["add_sale"], "admin", text))
    assert {"ok", "refused"} <= outcomes
