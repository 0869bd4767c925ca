"""Kinds of requests whose words name other rows than the tool their keyword chooses, on drafted catalogs of small
schemas made here; figures by plain SQL.

A figure named that the entity's tool lacks (その顧客の支払い合計は？) is the summary's that has it, filtered by the
entity; そのうち / of those keeps every filter of the turn before; a verb (rented, 予約された) chooses the summary of
the rows it names. Two schemas: an English rental shop, and a romaji clinic (m_kanja, t_yoyaku, t_kaikei).
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
FILMS = ["Alien Dawn", "Blue River", "Cold Star", "Dark Sun"]
NAMES = ["Ann Lee", "Bob Kay", "Cy Ode", "Di Fox", "Ed Hale"]


def _shop(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as c:
        c.execute(sa.text("CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, full_name VARCHAR(40) NOT NULL)"))
        c.execute(sa.text("CREATE TABLE film (film_id INTEGER PRIMARY KEY, title VARCHAR(40) NOT NULL)"))
        c.execute(sa.text("CREATE TABLE inventory (inventory_id INTEGER PRIMARY KEY, "
                          "film_id INTEGER NOT NULL REFERENCES film(film_id))"))
        c.execute(sa.text("CREATE TABLE rental (rental_id INTEGER PRIMARY KEY, "
                          "customer_id INTEGER NOT NULL REFERENCES customer(customer_id), "
                          "film_id INTEGER NOT NULL REFERENCES film(film_id), rental_date DATE NOT NULL, "
                          "status VARCHAR(10) NOT NULL)"))
        c.execute(sa.text("CREATE TABLE payment (payment_id INTEGER PRIMARY KEY, "
                          "customer_id INTEGER NOT NULL REFERENCES customer(customer_id), "
                          "amount NUMERIC(8, 2) NOT NULL, payment_date DATE NOT NULL)"))
        c.execute(sa.text("INSERT INTO customer VALUES (:i, :n)"), [{"i": i, "n": n} for i, n in enumerate(NAMES, 1)])
        c.execute(sa.text("INSERT INTO film VALUES (:i, :t)"), [{"i": i, "t": t} for i, t in enumerate(FILMS, 1)])
        # many copies of the film rented least: the copies held never answer "the most rented"
        c.execute(sa.text("INSERT INTO inventory VALUES (:i, :f)"),
                  [{"i": i, "f": 4 if i % 2 else 1 + i % 3} for i in range(1, 21)])
        c.execute(sa.text("INSERT INTO rental VALUES (:i, :c, :f, :d, :s)"),
                  [{"i": i, "c": 1 + i % 5, "f": [1, 2, 2, 3, 2, 1, 4][i % 7], "d": date(2025, 1 + i % 11, 1 + i % 27),
                    "s": "lost" if i % 6 == 0 else "returned"} for i in range(1, 50)])
        c.execute(sa.text("INSERT INTO payment VALUES (:i, :c, :a, :d)"),
                  [{"i": i, "c": 1 + (i * 3) % 5, "a": float(f"{1 + i % 4}.{i:02d}"), "d": date(2025, 1 + i % 11, 2)}
                   for i in range(1, 40)])
    engine.dispose()


def _clinic(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as c:
        c.execute(sa.text("CREATE TABLE m_kanja (kanja_id INTEGER PRIMARY KEY, kanja_mei VARCHAR(20) NOT NULL)"))
        c.execute(sa.text("CREATE TABLE t_yoyaku (yoyaku_id INTEGER PRIMARY KEY, "
                          "kanja_id INTEGER NOT NULL REFERENCES m_kanja(kanja_id), yoyaku_bi DATE NOT NULL, "
                          "jotai VARCHAR(10) NOT NULL)"))
        c.execute(sa.text("CREATE TABLE t_kaikei (kaikei_id INTEGER PRIMARY KEY, "
                          "kanja_id INTEGER NOT NULL REFERENCES m_kanja(kanja_id), kaikei_bi DATE NOT NULL, "
                          "futan_gaku INTEGER NOT NULL)"))
        c.execute(sa.text("INSERT INTO m_kanja VALUES (:i, :n)"),
                  [{"i": i, "n": n} for i, n in enumerate(["山田花子", "佐藤一郎", "鈴木次郎", "田中三郎"], 1)])
        c.execute(sa.text("INSERT INTO t_yoyaku VALUES (:i, :k, :d, :s)"),
                  [{"i": i, "k": 1 + i % 4, "d": date(2025, 1 + i % 11, 3),
                    "s": "キャンセル" if i % 5 == 0 else "受診済"} for i in range(1, 41)])
        c.execute(sa.text("INSERT INTO t_kaikei VALUES (:i, :k, :d, :g)"),
                  [{"i": i, "k": 1 + (i * 3) % 4, "d": date(2025, 1 + i % 11, 5), "g": 300 * (1 + i % 6)}
                   for i in range(1, 31)])
    engine.dispose()



@pytest.fixture(params=BACKENDS)
def url(request) -> str:
    return request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")


def _agent(url: str, tmp_path, name: str) -> tuple[Agent, Pipeline]:
    drafted = Drafted(url, [], tmp_path, name, today=TODAY)
    return drafted.agent, drafted.pipeline


@pytest.fixture
def shop(url, tmp_path):
    _shop(url)
    agent, pipeline = _agent(url, tmp_path, "rentals")
    yield agent, pipeline, url
    pipeline.close()


@pytest.fixture
def clinic(url, tmp_path):
    _clinic(url)
    agent, pipeline = _agent(url, tmp_path, "clinic")
    yield agent, pipeline, url
    pipeline.close()



@pytest.mark.anyio
async def test_a_figure_the_entity_lacks_is_the_summary_of_the_rows_that_have_it(shop):
    agent, pipeline, url = shop
    first = await ask(agent, pipeline, "顧客番号3のレンタルは何件？")
    turn = await ask(agent, pipeline, "その顧客の支払い合計は？", first.session_id)
    paid = Decimal(str(scalar(url, "SELECT SUM(amount) FROM payment WHERE customer_id = 3"))).quantize(Decimal("0.01"))
    assert paid in figures(turn.answer) and "|" not in turn.answer  # the customer's payments, not their row
    assert all(c.args.get("customer_id") == 3 for c in turn.calls)


@pytest.mark.anyio
async def test_a_figure_named_after_a_period_keeps_the_period(clinic):
    agent, pipeline, url = clinic
    first = await ask(agent, pipeline, "2025年3月の会計は何件？")
    turn = await ask(agent, pipeline, "その負担額の合計は？", first.session_id)
    total = scalar(url, "SELECT SUM(futan_gaku) FROM t_kaikei WHERE kaikei_bi BETWEEN '2025-03-01' AND '2025-03-31'")
    everything = scalar(url, "SELECT SUM(futan_gaku) FROM t_kaikei")
    said = figures(turn.answer)
    assert Decimal(everything) not in said
    assert Decimal(total) in said or not turn.calls


@pytest.mark.anyio
async def test_of_those_keeps_every_filter_of_the_turn_before(clinic):
    agent, pipeline, url = clinic
    first = await ask(agent, pipeline, "患者番号2の予約を見せて")
    turn = await ask(agent, pipeline, "そのうちキャンセルは何件？", first.session_id)
    mine = scalar(url, "SELECT COUNT(*) FROM t_yoyaku WHERE kanja_id = 2 AND jotai = 'キャンセル'")
    every = scalar(url, "SELECT COUNT(*) FROM t_yoyaku WHERE jotai = 'キャンセル'")
    assert mine != every and Decimal(mine) in figures(turn.answer) and Decimal(every) not in figures(turn.answer)


@pytest.mark.anyio
async def test_of_those_in_english_keeps_the_filter_or_gives_no_figure(shop):
    agent, pipeline, url = shop
    first = await ask(agent, pipeline, "How many rentals does customer 2 have?")
    turn = await ask(agent, pipeline, "Of those, how many are lost?", first.session_id)
    mine = scalar(url, "SELECT COUNT(*) FROM rental WHERE customer_id = 2 AND status = 'lost'")
    every = scalar(url, "SELECT COUNT(*) FROM rental WHERE status = 'lost'")
    said = figures(turn.answer)
    assert Decimal(every) not in said - {Decimal(2)}
    assert Decimal(mine) in said or not turn.calls


@pytest.mark.anyio
@pytest.mark.parametrize("say", ["What is the most rented film?", "いちばん借りられた映画は？"])
async def test_a_verb_chooses_the_summary_of_the_rows_it_names(shop, say):
    agent, pipeline, url = shop
    top = scalar(url, "SELECT f.title FROM rental r JOIN film f ON f.film_id = r.film_id GROUP BY f.title "
                    "ORDER BY COUNT(*) DESC LIMIT 1")
    held = scalar(url, "SELECT f.title FROM inventory i JOIN film f ON f.film_id = i.film_id GROUP BY f.title "
                     "ORDER BY COUNT(*) DESC LIMIT 1")
    assert top != held
    turn = await ask(agent, pipeline, say)
    assert top in turn.answer and held not in turn.answer


@pytest.mark.anyio
async def test_a_verb_of_another_form_names_its_rows(shop):
    agent, pipeline, url = shop
    top = scalar(url, "SELECT c.full_name FROM payment p JOIN customer c ON c.customer_id = p.customer_id "
                    "GROUP BY c.full_name ORDER BY SUM(p.amount) DESC LIMIT 1")
    turn = await ask(agent, pipeline, "Which customer paid the most?")
    assert top in turn.answer
