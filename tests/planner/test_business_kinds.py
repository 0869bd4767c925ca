"""Kinds of business questions on drafted catalogs of small schemas made here: the figure asked, by plain SQL, or
an honest answer with no figure; never a figure from a query that dropped or added a filter.

Two schemas: an English one (customers keyed by text codes, orders, order lines with a quantity and a price, a
ship date that may be missing) and a romaji one (m_tokuisaki with a prefecture, t_juchu with a kind and a total).
Each test is one kind of request (docs/planner.md): rankings by an entity, follow-ups that keep the figure asked,
the one measure named, an exact value over a partial name, conditions no value says, keys said in Japanese,
quantities sold.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
import sqlalchemy as sa
from drafted import BACKENDS, Drafted, ask, figures, scalar

from concierge.agent.loop import Agent
from concierge.pipeline.pipeline import Pipeline

TODAY = date(2025, 12, 15)
COUNTRIES = ["Germany", "France", "Japan", "Brazil"]
COMPANIES = [("ALFKI", "Alfreds Futterkiste", "Germany"), ("BONAP", "Bon app", "France"),
             ("TOKYO", "Tokyo Traders", "Japan"), ("RIODJ", "Rio Doces", "Brazil"), ("BERGS", "Berglunds", "Germany"),
             ("PARIS", "Paris Specialites", "France")]
PRODUCTS = ["Widget", "Gadget", "Sprocket"]


def _english(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as c:
        c.execute(sa.text("CREATE TABLE customers (customer_code VARCHAR(5) PRIMARY KEY, "
                          "company_name VARCHAR(60) NOT NULL, country VARCHAR(30) NOT NULL)"))
        c.execute(sa.text("CREATE TABLE products (product_id INTEGER PRIMARY KEY, product_name VARCHAR(40) NOT NULL)"))
        c.execute(sa.text("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_code VARCHAR(5) NOT NULL "
                          "REFERENCES customers(customer_code), order_date DATE NOT NULL, shipped_date DATE)"))
        c.execute(sa.text("CREATE TABLE order_lines (line_id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL "
                          "REFERENCES orders(order_id), product_id INTEGER NOT NULL REFERENCES products(product_id), "
                          "quantity INTEGER NOT NULL, unit_price NUMERIC(10, 2) NOT NULL)"))
        c.execute(sa.text("INSERT INTO customers VALUES (:k, :n, :c)"),
                  [{"k": k, "n": n, "c": country} for k, n, country in COMPANIES])
        c.execute(sa.text("INSERT INTO products VALUES (:i, :n)"),
                  [{"i": i, "n": n} for i, n in enumerate(PRODUCTS, 1)])
        orders, lines = [], []
        for i in range(1, 61):
            ordered = date(2024 + i % 2, 1 + i % 12, 1 + i % 27)
            shipped = None if i % 9 == 0 else ordered
            orders.append({"i": i, "k": COMPANIES[(i * 7) % 6 if i % 4 else 0][0], "d": ordered, "s": shipped})
            for j in range(1 + i % 3):
                lines.append({"i": len(lines) + 1, "o": i, "p": 1 + (i + j) % 3, "q": 1 + (i * j) % 5,
                              "u": [2.5, 4.25, 10.0][(i + j) % 3]})
        c.execute(sa.text("INSERT INTO orders VALUES (:i, :k, :d, :s)"), orders)
        c.execute(sa.text("INSERT INTO order_lines VALUES (:i, :o, :p, :q, :u)"), lines)
    engine.dispose()


def _romaji(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as c:
        c.execute(sa.text("CREATE TABLE m_tokuisaki (tokuisaki_cd VARCHAR(5) PRIMARY KEY, "
                          "tokuisaki_mei VARCHAR(40) NOT NULL, todofuken VARCHAR(10) NOT NULL)"))
        c.execute(sa.text("CREATE TABLE t_juchu (juchu_no INTEGER PRIMARY KEY, tokuisaki_cd VARCHAR(5) NOT NULL "
                          "REFERENCES m_tokuisaki(tokuisaki_cd), juchu_bi DATE NOT NULL, "
                          "juchu_kbn VARCHAR(4) NOT NULL, gokei_kingaku INTEGER NOT NULL)"))
        customers = [("T0001", "株式会社東京デリカ", "神奈川県"), ("T0002", "丸井物産", "東京都"),
                     ("T0003", "浪速食品", "大阪府"), ("T0004", "みどり屋", "東京都"),
                     ("T0005", "横浜マート", "神奈川県"), ("T0006", "千葉ストア", "千葉県")]
        c.execute(sa.text("INSERT INTO m_tokuisaki VALUES (:c, :n, :t)"),
                  [{"c": k, "n": n, "t": t} for k, n, t in customers])
        c.execute(sa.text("INSERT INTO t_juchu VALUES (:i, :c, :d, :k, :g)"),
                  [{"i": 1000 + i, "c": customers[(i * 5) % 6][0], "d": date(2025, 1 + i % 11, 1 + i % 28),
                    "k": ["受注", "見積", "取消"][i % 3 if i % 4 else 0], "g": 1000 * (1 + i % 7) + i}
                   for i in range(40)])
    engine.dispose()



@pytest.fixture(params=BACKENDS)
def url(request) -> str:
    return request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")


def _agent(url: str, tmp_path, name: str) -> tuple[Agent, Pipeline]:
    drafted = Drafted(url, [], tmp_path, name, today=TODAY)
    return drafted.agent, drafted.pipeline


@pytest.fixture
def english(url, tmp_path):
    _english(url)
    agent, pipeline = _agent(url, tmp_path, "trade")
    yield agent, pipeline, url
    pipeline.close()


@pytest.fixture
def romaji(url, tmp_path):
    _romaji(url)
    agent, pipeline = _agent(url, tmp_path, "oroshi")
    yield agent, pipeline, url
    pipeline.close()



_SALES = "SUM(l.quantity * l.unit_price)"
_LINES = "order_lines l JOIN orders o ON o.order_id = l.order_id JOIN customers c ON c.customer_code = o.customer_code"


@pytest.mark.anyio
async def test_a_superlative_of_an_entity_ranks_the_summary_grouped_by_it(english):
    agent, pipeline, url = english
    top = scalar(url, "SELECT c.country FROM orders o JOIN customers c ON c.customer_code = o.customer_code "
                    "GROUP BY c.country ORDER BY COUNT(*) DESC, c.country LIMIT 1")
    turn = await ask(agent, pipeline, "注文がいちばん多い国は？")
    if turn.calls:  # the orders' summary by the customer's country
        assert [c.args.get("top_n") for c in turn.calls] == [1] and turn.calls[0].args.get("group_by") != "month"
        assert top in turn.answer and "|" not in turn.answer  # the one country, not the list of every order
    else:  # never the country with the most customers: no summary adds the orders up by country
        assert "国" in turn.answer and not figures(turn.answer)


@pytest.mark.anyio
async def test_top_n_by_sales_ranks_by_the_money_and_names_the_groups(english):
    agent, pipeline, url = english
    ranked = [scalar(url, f"SELECT c.country FROM {_LINES} GROUP BY c.country ORDER BY {_SALES} DESC "
                          f"LIMIT 1 OFFSET {k}") for k in range(2)]
    turn = await ask(agent, pipeline, "Top 2 countries by sales")
    if not turn.calls:  # no summary of the lines groups by the customer's country: said, with no figure
        assert "countries" in turn.answer and not figures(turn.answer) - {Decimal(2)}
        return
    assert [c.args.get("top_n") for c in turn.calls] == [2]
    sentence = turn.answer.splitlines()[0]
    assert sentence.index(ranked[0]) < sentence.index(ranked[1])


@pytest.mark.anyio
async def test_a_ranking_by_an_entity_no_summary_groups_by_says_so(english):
    agent, pipeline, _ = english
    turn = await ask(agent, pipeline, "売上がいちばん多い支店は？")  # no branch anywhere in the data
    assert turn.calls == [] and not figures(turn.answer)


@pytest.mark.anyio
async def test_the_measure_named_is_the_one_stated_and_a_follow_up_keeps_it(english):
    agent, pipeline, url = english
    quantity = {scalar(url, f"SELECT SUM(l.quantity) FROM {_LINES} WHERE o.order_date >= '{y}-01-01' "
                          f"AND o.order_date < '{y + 1}-01-01'") for y in (2024, 2025)}
    turn = await ask(agent, pipeline, "2025年の売上合計は？")
    money = Decimal(str(scalar(url, f"SELECT {_SALES} FROM {_LINES} WHERE o.order_date >= '2025-01-01' "
                                  "AND o.order_date < '2026-01-01'"))).quantize(Decimal("0.01"))
    said = figures(turn.answer)
    assert money in said and not {Decimal(q) for q in quantity} & said - {money}
    follow = await ask(agent, pipeline, "2024年は？", turn.session_id)
    before = Decimal(str(scalar(url, f"SELECT {_SALES} FROM {_LINES} WHERE o.order_date >= '2024-01-01' "
                                   "AND o.order_date < '2025-01-01'"))).quantize(Decimal("0.01"))
    assert before in figures(follow.answer) and "数量" not in follow.answer


@pytest.mark.anyio
async def test_units_sold_are_the_quantity_of_the_sales_lines(english):
    agent, pipeline, url = english
    units = scalar(url, "SELECT SUM(l.quantity) FROM order_lines l JOIN products p ON p.product_id = l.product_id "
                      "WHERE p.product_name = 'Widget'")
    turn = await ask(agent, pipeline, "How many units of Widget have we sold?")
    assert Decimal(units) in figures(turn.answer)
    assert all(c.args.get("group_by") in (None, "month") for c in turn.calls)


@pytest.mark.anyio
async def test_a_key_said_in_japanese_is_used_or_said_unused(english):
    agent, pipeline, url = english
    everything = scalar(url, "SELECT COUNT(*) FROM orders")
    own = scalar(url, "SELECT COUNT(*) FROM orders WHERE customer_code = 'ALFKI'")
    turn = await ask(agent, pipeline, "ALFKIの注文は何件？")
    said = figures(turn.answer)
    assert Decimal(everything) not in said
    assert Decimal(own) in said or (turn.calls == [] and "ALFKI" in turn.answer)


@pytest.mark.anyio
async def test_a_condition_no_value_says_is_applied_or_said_unapplied(english):
    agent, pipeline, url = english
    everything = scalar(url, "SELECT COUNT(*) FROM orders")
    waiting = scalar(url, "SELECT COUNT(*) FROM orders WHERE shipped_date IS NULL")
    turn = await ask(agent, pipeline, "How many orders haven't shipped yet?")
    said = figures(turn.answer)
    assert Decimal(everything) not in said
    assert Decimal(waiting) in said or turn.calls == []


@pytest.mark.anyio
async def test_an_exact_value_beats_a_part_of_a_name(romaji):
    agent, pipeline, url = romaji
    turn = await ask(agent, pipeline, "東京都の得意先は何社？")
    tokyo = scalar(url, "SELECT COUNT(*) FROM m_tokuisaki WHERE todofuken = '東京都'")
    assert all("東京デリカ" not in str(v) for c in turn.calls for v in c.args.values())
    assert "東京デリカ" not in turn.answer
    assert Decimal(tokyo) in figures(turn.answer) or turn.calls == []


@pytest.mark.anyio
async def test_a_clause_before_a_value_is_no_name(romaji):
    agent, pipeline, url = romaji
    cancelled = scalar(url, "SELECT COUNT(*) FROM t_juchu WHERE juchu_kbn = '取消'")
    turn = await ask(agent, pipeline, "取消になった受注を見せて")
    assert [c.args.get("juchu_kbn") for c in turn.calls] == ["取消"]
    assert Decimal(cancelled) in figures(turn.answer)


@pytest.mark.anyio
async def test_the_customer_with_the_largest_amount_this_year(romaji):
    agent, pipeline, url = romaji
    top = scalar(url, "SELECT m.tokuisaki_mei FROM t_juchu j JOIN m_tokuisaki m ON m.tokuisaki_cd = j.tokuisaki_cd "
                    "WHERE j.juchu_bi >= '2025-01-01' GROUP BY m.tokuisaki_cd, m.tokuisaki_mei "
                    "ORDER BY SUM(j.gokei_kingaku) DESC, m.tokuisaki_cd LIMIT 1")
    turn = await ask(agent, pipeline, "今年いちばん受注金額が大きい得意先は？")
    assert [c.args.get("top_n") for c in turn.calls] == [1]
    assert top in turn.answer and "|" not in turn.answer
