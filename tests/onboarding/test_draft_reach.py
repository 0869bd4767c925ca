"""Drafts that reach further, on a small music shop made here: every figure through the pipeline is compared
with plain SQL, on SQLite and PostgreSQL.

- a table with no date gets a summary when it has something to group by (albums per artist, customers per
  country), its totals with no grouping; a master's birth date is no period of one;
- the rows two and three steps away filter and group: the tracks of an artist through their albums, the
  sales of an artist's tracks through track -> album -> artist, invoice lines by the customer's support rep;
- a table reached by two routes of one length is left out, and the header says so.
"""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from drafted import BACKENDS, Drafted

ARTISTS = ["AC/DC", "Aerosmith", "Led Zeppelin", "Queen", "Iron Maiden", "Metallica"]
COUNTRIES = ["USA", "Canada", "Brazil", "Germany"]
REPS = [("Jane", "Peacock"), ("Margaret", "Park"), ("Steve", "Johnson")]


def _music() -> list[str]:
    rnd = random.Random(7)
    out = [
        "CREATE TABLE artists (artist_id INTEGER PRIMARY KEY, name VARCHAR(60) NOT NULL)",
        "CREATE TABLE albums (album_id INTEGER PRIMARY KEY, title VARCHAR(80) NOT NULL,"
        " artist_id INTEGER NOT NULL REFERENCES artists (artist_id))",
        "CREATE TABLE genres (genre_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)",
        "CREATE TABLE tracks (track_id INTEGER PRIMARY KEY, name VARCHAR(80) NOT NULL,"
        " album_id INTEGER REFERENCES albums (album_id), genre_id INTEGER REFERENCES genres (genre_id),"
        " unit_price NUMERIC(4, 2) NOT NULL, milliseconds INTEGER NOT NULL)",
        "CREATE TABLE employees (employee_id INTEGER PRIMARY KEY, first_name VARCHAR(20) NOT NULL,"
        " last_name VARCHAR(20) NOT NULL, birth_date DATE)",
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, first_name VARCHAR(20) NOT NULL,"
        " last_name VARCHAR(20) NOT NULL, country VARCHAR(20),"
        " support_rep_id INTEGER REFERENCES employees (employee_id))",
        "CREATE TABLE invoices (invoice_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers"
        " (customer_id), invoice_date DATE NOT NULL, total NUMERIC(10, 2) NOT NULL)",
        "CREATE TABLE invoice_lines (invoice_line_id INTEGER PRIMARY KEY, invoice_id INTEGER NOT NULL REFERENCES"
        " invoices (invoice_id), track_id INTEGER NOT NULL REFERENCES tracks (track_id),"
        " unit_price NUMERIC(4, 2) NOT NULL, quantity INTEGER NOT NULL)",
    ]
    out += [f"INSERT INTO artists VALUES ({i}, '{n}')" for i, n in enumerate(ARTISTS, 1)]
    out += [f"INSERT INTO albums VALUES ({i}, 'Album {i}', {rnd.randint(1, len(ARTISTS))})" for i in range(1, 21)]
    out += [f"INSERT INTO genres VALUES ({i}, '{n}')" for i, n in enumerate(["Rock", "Jazz", "Metal"], 1)]
    out += [f"INSERT INTO tracks VALUES ({i}, 'Track {i}', {rnd.randint(1, 20)}, {rnd.randint(1, 3)}, "
            f"{rnd.choice(['0.99', '1.99'])}, {rnd.randint(150_000, 400_000)})" for i in range(1, 81)]
    out += [f"INSERT INTO employees VALUES ({i}, '{f}', '{last}', '19{60 + i}-0{i}-1{i}')"
            for i, (f, last) in enumerate(REPS, 1)]
    firsts = ["Frank", "Luis", "Helena", "Astrid", "Daan", "Kara", "Mark", "Julia", "Emma", "Phil"]
    out += [f"INSERT INTO customers VALUES ({i}, '{firsts[i % 10]}', 'Name{i}', '{COUNTRIES[i % 4]}', {i % 3 + 1})"
            for i in range(1, 25)]
    lines, line_id = [], 0
    for invoice in range(1, 101):
        items = []
        for _ in range(rnd.randint(1, 4)):
            line_id += 1
            track, price, qty = rnd.randint(1, 80), rnd.choice(["0.99", "1.99"]), rnd.randint(1, 3)
            items.append(Decimal(price) * qty)
            lines.append(f"INSERT INTO invoice_lines VALUES ({line_id}, {invoice}, {track}, {price}, {qty})")
        day = f"2025-{rnd.randint(1, 5):02d}-{rnd.randint(1, 28):02d}"
        out.append(f"INSERT INTO invoices VALUES ({invoice}, {rnd.randint(1, 24)}, '{day}', {sum(items)})")
    return out + lines


@pytest.fixture(params=BACKENDS)
def music(request, tmp_path):
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    made = Drafted(url, _music(), tmp_path, "music")
    yield made
    made.pipeline.close()


def _money(value) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"))


def test_a_table_of_no_date_is_summarised_by_what_its_rows_share(music):
    summary = music.params("albums_summary")
    assert "artist" in summary["group_by"]["enum"]["values"] and summary["group_by"]["nullable"]
    assert not any(p["type"] == "date" for p in summary.values())  # no period: albums have no date
    top = music.invoke("albums_summary", {"group_by": "artist", "rank_by": "count_of_albums", "top_n": 1})
    expected = music.rows("SELECT r.name, COUNT(*) FROM albums a JOIN artists r ON r.artist_id = a.artist_id "
                          "GROUP BY r.artist_id, r.name ORDER BY 2 DESC, 1 LIMIT 1")[0]
    assert (top.rows[0]["group_value"], top.rows[0]["albums"]) == expected
    everything = music.invoke("albums_summary", {})  # no grouping: the totals of all rows
    assert len(everything.rows) == 1 and everything.totals["albums"] == music.scalar("SELECT COUNT(*) FROM albums")
    per_country = music.invoke("customers_summary", {"group_by": "country"})
    assert {r["group_value"]: r["customers"] for r in per_country.rows} == dict(
        music.rows("SELECT country, COUNT(*) FROM customers GROUP BY country"))
    assert "customers per country" in music.keywords("customers_summary") or "per country" in music.keywords(
        "customers_summary")


def test_what_has_nothing_to_group_by_and_a_birth_date_make_no_summary_or_period(music):
    assert "artists_summary" not in music.raw["tools"] and "genres_summary" not in music.raw["tools"]
    reps = music.tool("employees")["params"]
    assert "extract" not in reps["birth_date_from"]  # a period said is never a birth date
    assert "employees_summary" not in music.raw["tools"] or not any(
        p["type"] == "date" for p in music.params("employees_summary").values())


def test_the_tracks_of_an_artist_are_found_through_their_albums(music):
    artist = music.params("tracks")["artist"]
    assert artist["type"] == "enum" and "artists" in artist["enum"]["query"]
    for name in ("AC/DC", "Queen"):
        got = music.invoke("tracks", {"artist": name}).row_count
        assert got == music.scalar("SELECT COUNT(*) FROM tracks t JOIN albums a ON a.album_id = t.album_id "
                                   f"JOIN artists r ON r.artist_id = a.artist_id WHERE r.name = '{name}'")


def test_sales_of_an_artist_go_through_track_album_artist_and_reps_through_the_customer(music):
    lines = music.params("invoice_lines_summary")
    assert {"track", "genre", "album", "artist", "customer", "support_rep"} <= set(lines["group_by"]["enum"]["values"])
    acdc = music.invoke("invoice_lines_summary", {"artist": "AC/DC"})
    assert _money(acdc.totals["amount"]) == _money(music.scalar(
        "SELECT SUM(l.unit_price * l.quantity) FROM invoice_lines l JOIN tracks t ON t.track_id = l.track_id "
        "JOIN albums a ON a.album_id = t.album_id JOIN artists r ON r.artist_id = a.artist_id "
        "WHERE r.name = 'AC/DC'"))
    by_rep = music.invoke("invoice_lines_summary", {"group_by": "support_rep"})
    expected = music.rows(
        "SELECT e.first_name || ' ' || e.last_name, SUM(l.unit_price * l.quantity) FROM invoice_lines l "
        "JOIN invoices i ON i.invoice_id = l.invoice_id JOIN customers c ON c.customer_id = i.customer_id "
        "JOIN employees e ON e.employee_id = c.support_rep_id GROUP BY e.employee_id, e.first_name, e.last_name")
    assert {r["group_value"]: _money(r["amount"]) for r in by_rep.rows} == {n: _money(v) for n, v in expected}
    by_genre = music.invoke("invoice_lines_summary", {"group_by": "genre", "top_n": 1})
    assert by_genre.rows[0]["group_value"] == music.rows(
        "SELECT g.name FROM invoice_lines l JOIN tracks t ON t.track_id = l.track_id JOIN genres g "
        "ON g.genre_id = t.genre_id GROUP BY g.genre_id, g.name ORDER BY SUM(l.unit_price * l.quantity) DESC")[0][0]


def test_two_routes_of_one_length_to_a_table_are_left_out_and_said(sqlite_url, tmp_path):
    shop = Drafted(sqlite_url, [
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)",
        "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers (customer_id))",
        "CREATE TABLE returns (return_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers (customer_id))",
        "CREATE TABLE parcels (parcel_id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders (order_id),"
        " return_id INTEGER REFERENCES returns (return_id), sent_on DATE NOT NULL, postage NUMERIC(8, 2))",
        *(f"INSERT INTO customers VALUES ({i}, 'Customer {i}')" for i in range(1, 6)),
        *(f"INSERT INTO orders VALUES ({i}, {i % 5 + 1})" for i in range(1, 11)),
        *(f"INSERT INTO returns VALUES ({i}, {i % 5 + 1})" for i in range(1, 4)),
        *(f"INSERT INTO parcels VALUES ({i}, {i % 10 + 1}, NULL, '2025-05-{i:02d}', 4.5)" for i in range(1, 21)),
    ], tmp_path, "parcels")
    try:
        groups = shop.params("parcels_summary")["group_by"]["enum"]["values"]
        assert "customer" not in groups and "customer" not in shop.params("parcels")
        (said,) = [line for line in shop.draft.text.splitlines() if line.startswith("#   parcels: customers through")]
        assert "orders.customer_id" in said and "returns.customer_id" in said
    finally:
        shop.pipeline.close()
