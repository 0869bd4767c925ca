"""Values of the data that are also words of the question never outrank the request's structure.

A POS export can carry products named 売上, 全商品, ランキング, 合計 (or Sales, Total, All). Such a name is
read as the product only where the sentence places it as one: quoted (『売上』の売上), named (売上という
商品, the product named Total); where it is also the question's own word and nothing says which, the
question's reading stands (先週の売上は？ is the total of every product), and where the sentence half
places it (商品ランキングの売上: the product ranking, or the product ランキング?) the planner asks.

The figures expected are read from the database with plain SQL, never written here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from demo_databases import with_demos
from planner_helpers import converse, offline_agent, open_demo

from concierge.agent.loop import Agent
from concierge.pipeline.pipeline import Pipeline
from concierge.storage.database import Database

pytestmark = pytest.mark.anyio

LAST_WEEK = {"start": "2026-08-24", "end": "2026-08-30"}  # the POS demo's 先週 / last week
# Products whose names are words of a question, with their category and the units sold on a few days.
COLLIDING = {"売上": "デザート", "全商品": "デザート", "ランキング": "デザート", "合計": "デザート",
             "Sales": "飲料", "Total": "飲料", "All": "飲料"}
DAYS = ("2026-08-20", "2026-08-25", "2026-08-28")  # one day before last week, two within it


def _add_colliding_products(url: str) -> None:
    rows = [{"store": "D店", "sale_date": day, "product": product, "category": category, "unit_price": 100 + 10 * i,
             "quantity": 2 + i + d, "amount": (100 + 10 * i) * (2 + i + d)}
            for i, (product, category) in enumerate(COLLIDING.items()) for d, day in enumerate(DAYS)]
    database = Database(url)
    try:
        with database.write() as conn:
            conn.execute(sa.text("INSERT INTO pos_sales (store, sale_date, product, category, unit_price, quantity, "
                                 "amount) VALUES (:store, :sale_date, :product, :category, :unit_price, :quantity, "
                                 ":amount)"), rows)
    finally:
        database.dispose()


def _sold(url: str, product: str | None = None) -> int:
    """Last week's sales, of one product or of all."""
    database = Database(url)
    try:
        with database.read() as conn:
            sql = "SELECT SUM(amount) FROM pos_sales WHERE sale_date BETWEEN :start AND :end"
            if product is not None:
                sql += " AND product = :product"
            total = conn.scalar(sa.text(sql), {**LAST_WEEK, "product": product})
    finally:
        database.dispose()
    return int(total)


def _yen(amount: int, asked: str) -> str:
    """A sum as the answer to the question `asked` writes it: 1,234円, or ¥1,234 in English."""
    return f"¥{amount:,}" if asked.isascii() else f"{amount:,}円"


def _best_seller(url: str) -> tuple[str, int]:
    database = Database(url)
    try:
        with database.read() as conn:
            product, amount = conn.execute(sa.text(
                "SELECT product, SUM(amount) FROM pos_sales WHERE sale_date BETWEEN :start AND :end "
                "GROUP BY product ORDER BY SUM(amount) DESC, product LIMIT 1"), LAST_WEEK).one()
    finally:
        database.dispose()
    return product, amount


@pytest.fixture(scope="module")
def url(tmp_path_factory) -> str:
    """The POS demo on SQLite, with the colliding products added (read-only for the tests here)."""
    url = with_demos(f"sqlite:///{tmp_path_factory.mktemp('collisions') / 'pos.db'}", "pos")
    _add_colliding_products(url)
    return url


@pytest.fixture(scope="module")
def pos(url) -> Iterator[Pipeline]:
    pipeline = open_demo("pos", url)
    yield pipeline
    pipeline.close()


@pytest.fixture
def agent(pos) -> Agent:
    return offline_agent(pos)


async def ask(agent: Agent, pos: Pipeline, *texts: str):
    """The calls and the answer of the last message of one conversation."""
    return (await converse(agent, pos.user("admin"), list(texts)))[-1]


# --- the question's own words stay the question's ---------------------------------------------------

@pytest.mark.parametrize("text", ["先週の売上は？", "先週の合計は？", "先週の全商品の売上を教えて", "先週の売上合計",
                                  "What were total sales last week?", "Show all sales last week",
                                  "product sales last week"])
async def test_a_word_of_the_question_named_like_a_product_asks_for_every_product(agent, pos, url, text):
    calls, turn = await ask(agent, pos, text)
    assert calls == [("daily_sales", LAST_WEEK, "ok")]
    assert _yen(_sold(url), text) in turn.answer


@pytest.mark.parametrize("text", ["先週の売上ランキング", "先週の全商品ランキング", "sales ranking last week"])
async def test_a_sales_ranking_stays_a_ranking_when_products_are_named_売上_and_ランキング(agent, pos, url, text):
    calls, turn = await ask(agent, pos, text)
    assert [(name, args) for name, args, _ in calls] == [("sales_ranking", LAST_WEEK)]
    product, amount = _best_seller(url)
    assert (f"{product} ¥{amount:,}" if text.isascii() else f"{product} {amount:,}円") in turn.answer


async def test_the_other_words_of_the_question_still_choose_the_tool(agent, pos, url):
    calls, _ = await ask(agent, pos, "先週の売上トップ3")
    assert calls == [("sales_ranking", {**LAST_WEEK, "top_n": 3, "order": "desc"}, "ok")]
    calls, turn = await ask(agent, pos, "先週の売上を前週と比べて")
    assert calls == [("compare_periods", {"cur_start": "2026-08-24", "cur_end": "2026-08-30",
                                          "prev_start": "2026-08-17", "prev_end": "2026-08-23"}, "ok")]
    assert f"の売上は{_sold(url):,}円で" in turn.answer


async def test_a_real_product_is_asked_about_alone(agent, pos, url):
    text = "先週のハンバーグ弁当の売上"
    calls, turn = await ask(agent, pos, text)
    assert calls == [("daily_sales", {**LAST_WEEK, "product": "ハンバーグ弁当"}, "ok")]
    assert _yen(_sold(url, "ハンバーグ弁当"), text) in turn.answer


# --- a name the sentence places as a name ---------------------------------------------------------

@pytest.mark.parametrize(("text", "product"), [
    ("先週の『ランキング』の売上", "ランキング"),
    ("先週の「売上」の売上は？", "売上"),
    ("売上という商品の先週の売上", "売上"),
    ("先週の商品名「合計」の売上", "合計"),
    ('What were the sales of "Total" last week?', "Total"),
    ("Sales of the product named Sales last week", "Sales"),
])
async def test_a_name_quoted_or_named_as_a_product_is_that_product(agent, pos, url, text, product):
    calls, turn = await ask(agent, pos, text)
    assert calls == [("daily_sales", {**LAST_WEEK, "product": product}, "ok")]
    assert _yen(_sold(url, product), text) in turn.answer


# --- a name the sentence half places is asked about -----------------------------------------------

async def test_a_product_label_glued_to_a_word_of_the_question_is_asked_with_both_readings(agent, pos):
    calls, turn = await ask(agent, pos, "先週の商品ランキングの売上")
    assert calls == []
    both = "『ランキング』は商品名の『ランキング』のことですか、それとも言葉どおりの「ランキング」ですか？"
    assert both in turn.answer


async def test_the_quoted_name_answers_the_question_and_the_product_is_read(agent, pos, url):
    text = "先週の商品ランキングの売上"
    calls, turn = await ask(agent, pos, text, "『ランキング』です")
    assert calls == [("daily_sales", {**LAST_WEEK, "product": "ランキング"}, "ok")]
    assert _yen(_sold(url, "ランキング"), text) in turn.answer


@pytest.mark.parametrize("text", ["Total sales of Sales last week", "sales of Sales last week"])
async def test_a_word_capitalised_as_a_name_inside_an_english_sentence_is_asked(agent, pos, url, text):
    calls, turn = await ask(agent, pos, text)
    assert calls == []
    assert 'the product name "Sales"' in turn.answer and "sales in its ordinary sense?" in turn.answer
    calls, turn = await ask(agent, pos, text, '"Sales"')
    assert calls == [("daily_sales", {**LAST_WEEK, "product": "Sales"}, "ok")]
    assert _yen(_sold(url, "Sales"), text) in turn.answer


# --- both databases -------------------------------------------------------------------------------

async def test_the_total_and_a_quoted_product_on_both_databases(db_url):
    _add_colliding_products(db_url)
    pipeline = open_demo("pos", db_url)
    try:
        agent = offline_agent(pipeline)
        calls, turn = await ask(agent, pipeline, "先週の売上は？")
        assert calls == [("daily_sales", LAST_WEEK, "ok")] and _yen(_sold(db_url), "先週の売上は？") in turn.answer
        calls, turn = await ask(agent, pipeline, "先週の『売上』の売上は？")
        assert calls == [("daily_sales", {**LAST_WEEK, "product": "売上"}, "ok")]
        assert _yen(_sold(db_url, "売上"), "先週の『売上』の売上は？") in turn.answer
    finally:
        pipeline.close()
