"""Filters through link tables (many to many), on a small film shop made here: the films of a category through
film_category, of an actor through film_actor (first and last names joined), compared with plain SQL on
SQLite and PostgreSQL, through the pipeline and through the offline agent."""

from __future__ import annotations

import random

import pytest
from drafted import BACKENDS, Drafted

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider

CATEGORIES = ["Action", "Comedy", "Music", "Horror"]
ACTORS = [("PENELOPE", "GUINESS"), ("PENELOPE", "MONROE"), ("NICK", "WAHLBERG"), ("ED", "CHASE")]


def _films() -> list[str]:
    rnd = random.Random(5)
    out = [
        "CREATE TABLE category (category_id INTEGER PRIMARY KEY, name VARCHAR(25) NOT NULL)",
        "CREATE TABLE actor (actor_id INTEGER PRIMARY KEY, first_name VARCHAR(45) NOT NULL,"
        " last_name VARCHAR(45) NOT NULL)",
        "CREATE TABLE film (film_id INTEGER PRIMARY KEY, title VARCHAR(80) NOT NULL, rating VARCHAR(5))",
        "CREATE TABLE film_category (film_id INTEGER NOT NULL REFERENCES film (film_id),"
        " category_id INTEGER NOT NULL REFERENCES category (category_id), last_update TIMESTAMP NOT NULL,"
        " PRIMARY KEY (film_id, category_id))",
        "CREATE TABLE film_actor (actor_id INTEGER NOT NULL REFERENCES actor (actor_id),"
        " film_id INTEGER NOT NULL REFERENCES film (film_id), last_update TIMESTAMP NOT NULL,"
        " PRIMARY KEY (actor_id, film_id))",
    ]
    out += [f"INSERT INTO category VALUES ({i}, '{n}')" for i, n in enumerate(CATEGORIES, 1)]
    out += [f"INSERT INTO actor VALUES ({i}, '{f}', '{last}')" for i, (f, last) in enumerate(ACTORS, 1)]
    out += [f"INSERT INTO film VALUES ({i}, 'FILM {i:02d}', '{rnd.choice(['G', 'PG', 'R'])}')" for i in range(1, 31)]
    out += [f"INSERT INTO film_category VALUES ({i}, {rnd.randint(1, 4)}, '2025-02-15 04:34:33')"
            for i in range(1, 31)]
    pairs = sorted({(rnd.randint(1, 4), rnd.randint(1, 30)) for _ in range(50)})
    out += [f"INSERT INTO film_actor VALUES ({a}, {f}, '2025-02-15 04:34:33')" for a, f in pairs]
    return out


@pytest.fixture(params=BACKENDS)
def shop(request, tmp_path):
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    d = Drafted(url, _films(), tmp_path, "films")
    yield d
    d.pipeline.close()


def _titles(d: Drafted, where: str) -> list[str]:
    return [r[0] for r in d.rows(f"SELECT f.title FROM film f WHERE {where} ORDER BY f.film_id")]


MUSIC = "EXISTS (SELECT 1 FROM film_category fc JOIN category c ON c.category_id = fc.category_id " \
        "WHERE fc.film_id = f.film_id AND c.name = 'Music')"
GUINESS = "EXISTS (SELECT 1 FROM film_actor fa JOIN actor a ON a.actor_id = fa.actor_id " \
          "WHERE fa.film_id = f.film_id AND a.first_name = 'PENELOPE' AND a.last_name = 'GUINESS')"


def test_the_film_tool_filters_by_the_rows_linked_to_it(shop):
    params = shop.params("film")
    assert params["category"]["type"] == "enum" and params["actor"]["type"] == "enum"
    music = shop.invoke("film", {"category": "Music"})
    assert [r["title"] for r in music.rows] == _titles(shop, MUSIC) != []
    guiness = shop.invoke("film", {"actor": "PENELOPE GUINESS"})
    assert [r["title"] for r in guiness.rows] == _titles(shop, GUINESS) != []
    both = shop.invoke("film", {"category": "Music", "actor": "PENELOPE GUINESS"})
    assert [r["title"] for r in both.rows] == _titles(shop, f"{MUSIC} AND {GUINESS}")
    assert shop.invoke("film", {}).row_count == 30  # a film in no category is not lost


def test_a_link_works_both_ways_and_the_link_table_keeps_its_own_filters(shop):
    (film,), = shop.rows("SELECT title FROM film WHERE film_id = 7")
    cats = shop.invoke("category", {"film": film})
    assert [r["name"] for r in cats.rows] == [r[0] for r in shop.rows(
        "SELECT c.name FROM category c JOIN film_category fc ON fc.category_id = c.category_id "
        "WHERE fc.film_id = 7 ORDER BY c.category_id")]
    assert {"film", "category"} <= set(shop.params("film_category"))  # its own foreign keys' names, as before
    music = shop.invoke("film_category", {"category": "Music"})
    assert music.row_count == shop.scalar("SELECT COUNT(*) FROM film_category WHERE category_id = 3")


@pytest.mark.anyio
async def test_the_agent_lists_the_films_of_a_category(shop):
    agent = Agent(shop.pipeline, OfflineProvider(shop.pipeline))
    turn = await agent.ask("List the films in the Music category.", shop.pipeline.user("boss"))
    assert [(c.name, dict(c.args)) for c in turn.calls] == [("film", {"category": "Music"})]
    assert all(t in turn.answer for t in _titles(shop, MUSIC))
    others = _titles(shop, f"NOT {MUSIC}")
    assert not any(t in turn.answer for t in others)
