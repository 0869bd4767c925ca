"""Who may call what (a pure matrix) and which rows they see (through the SQL, on both databases)."""

from __future__ import annotations

import pytest

from concierge.catalog.loader import load_catalogs
from concierge.pipeline.access import Denied, Permitted, User, decide

CATALOGS = {c.name: c for c in load_catalogs(["farm", "pos"])}
USERS = {
    "admin": User("admin", "admin"),
    "tanaka": User("tanaka", "sales_rep"),
    "suzuki": User("suzuki", "viewer"),
    "pos_analyst": User("pos_analyst", "analyst"),
}
ALLOWED = {  # docs/demo-data.md §3
    "admin": {"get_customers", "get_sales", "add_sale", "compare_periods", "sales_ranking", "daily_sales"},
    "tanaka": {"get_customers", "get_sales", "add_sale"},
    "suzuki": {"get_customers", "get_sales"},
    "pos_analyst": {"compare_periods", "sales_ranking", "daily_sales"},
}
MATRIX = [(u, c.tools[t]) for u in USERS for c in CATALOGS.values() for t in c.tools]


@pytest.mark.parametrize(("user", "tool"), MATRIX, ids=[f"{u}-{t.name}" for u, t in MATRIX])
def test_permission_matrix(user, tool):
    decision = decide(USERS[user], tool, CATALOGS[tool.catalog].spec.roles)
    if tool.name in ALLOWED[user]:
        assert isinstance(decision, Permitted)
        assert decision.identity["_user"] == user
        assert decision.identity["_all_rows"] is (user != "tanaka")
    else:
        assert isinstance(decision, Denied)
        assert user in decision.message and tool.name in decision.message


def test_tanaka_sees_only_assigned_customers(pipeline):
    tanaka = pipeline.user("tanaka")
    rows = pipeline.invoke("get_customers", {}, tanaka).rows
    assert [r["code_customer"] for r in rows] == [f"{i:04d}" for i in range(11, 21)]
    assert pipeline.invoke("get_customers", {"name_str_customer": "佐藤"}, tanaka).row_count == 0
    assert pipeline.invoke("get_customers", {"code_customer": "0002"}, tanaka).row_count == 0


def test_out_of_scope_behaves_exactly_like_absent(pipeline):
    tanaka = pipeline.user("tanaka")
    hidden = pipeline.invoke("get_sales", {"code_customer": "0002"}, tanaka)
    absent = pipeline.invoke("get_sales", {"code_customer": "0099"}, tanaka)
    assert (hidden.status, hidden.code, hidden.message) == (absent.status, absent.code, absent.message)
    assert hidden.message == "customer not found"
    assert not hidden.rows
    mine = pipeline.invoke("get_sales", {"code_customer": "0016"}, tanaka)
    assert mine.status == "ok" and mine.row_count > 0


def test_tanaka_cannot_write_outside_scope_and_suzuki_cannot_write(pipeline):
    sale = {"code_customer": "0002", "products": "ナス1個", "price": 90}
    out_of_scope = pipeline.invoke("add_sale", sale, pipeline.user("tanaka"))
    assert out_of_scope.status == "error" and out_of_scope.message == "customer not found"
    viewer = pipeline.invoke("add_sale", {**sale, "code_customer": "0016"}, pipeline.user("suzuki"))
    assert viewer.status == "refused" and viewer.code == "not_permitted"
    analyst = pipeline.invoke("get_sales", {"code_customer": "0001"}, pipeline.user("pos_analyst"))
    assert analyst.code == "not_permitted"
    in_scope = pipeline.invoke("add_sale", {**sale, "code_customer": "0016"}, pipeline.user("tanaka"))
    assert in_scope.status == "confirm" and in_scope.preview["name_customer"] == "松本理恵"


def test_identity_cannot_be_passed_by_the_caller(pipeline):
    tanaka = pipeline.user("tanaka")
    forged = pipeline.invoke("get_customers", {"_all_rows": True, "_user": "admin"}, tanaka)
    assert forged.status == "refused" and forged.code == "bad_argument"


def test_tools_for_lists_only_what_the_user_may_call(pipeline):
    names = {u: {t.name for t in pipeline.tools_for(pipeline.user(u))} for u in USERS}
    assert names == ALLOWED
