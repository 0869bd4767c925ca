"""The request builder's values inside longer text ({name:quoted}, {name:number}), numbers read from text, and
an error body's own code (docs/catalog.md, "Values inside a query language", "Pages")."""

from __future__ import annotations

from datetime import date
from urllib.parse import parse_qs, urlsplit

import pytest

from concierge.catalog.model import HttpRequest, ResultShape, StatusMap, StatusRule, Text
from concierge.sources.http.answer import outcome, rows_of
from concierge.sources.http.request import build


def query_of(request: HttpRequest, values: dict) -> dict[str, list[str]]:
    return parse_qs(urlsplit(build(request, values).target).query)


@pytest.mark.parametrize(("value", "sent"), [
    ("山田", '"山田"'), ('a"b', '"a\\"b"'), ("a\\", '"a\\\\"'), ('\\" or x = "', '"\\\\\\" or x = \\""'),
    (date(2026, 11, 1), '"2026-11-01"'), (7, '"7"'),
])
def test_a_quoted_value_is_one_string_whatever_it_holds(value, sent):
    request = HttpRequest(path="/r", query={"q": "f = {v:quoted} limit 5"})
    assert query_of(request, {"v": value}) == {"q": [f"f = {sent} limit 5"]}


def test_a_number_inside_text_is_an_integer_only():
    request = HttpRequest(path="/r", query={"q": "limit {n:number}"})
    assert query_of(request, {"n": 500}) == {"q": ["limit 500"]}
    for wrong in ("5 or 1", True, 1.5):
        with pytest.raises(ValueError):
            build(request, {"n": wrong})


def test_a_text_whose_value_is_absent_is_left_out():
    request = HttpRequest(path="/r", query={"q": "f = {v:quoted}", "app": 1})
    assert query_of(request, {"v": None}) == {"app": ["1"]}


def test_numbers_sent_as_text_are_read_as_numbers():
    shape = ResultShape(rows="records", columns={"n": "n.value", "s": "s.value"}, numbers=["n"])
    doc = {"records": [{"n": {"value": "1200000"}, "s": {"value": "12"}}, {"n": {"value": "-3.25"}, "s": {}},
                       {"n": {"value": ""}}, {"n": {"value": "n/a"}}]}
    assert rows_of(doc, shape)[1] == [{"n": 1200000, "s": "12"}, {"n": -3.25, "s": None}, {"n": None, "s": None},
                                      {"n": "n/a", "s": None}]


def test_an_error_bodys_own_code_says_more_than_its_status():
    rule = StatusRule(outcome="error", message=Text(ja="トークン", en="token"))
    status = StatusMap(field="code", codes={"GAIA_IA02": rule})
    said = outcome(status, 401, {"code": "GAIA_IA02", "id": "x", "message": "m"})
    assert said is not None and said.message.en == "token"
    other = outcome(status, 401, {"code": "OTHER"})
    assert other is not None and "HTTP 401" in other.message.en
    assert outcome(status, 200, {"records": []}) is None
