"""Answers of tools with no answer templates (a drafted catalog) are sentences a person would write, in the
user's language, built from the call's arguments and the result's figures and labels (answer/sentences.py):
no recital of parameter descriptions, no table where one figure answers.

The catalog is written by hand in the shape `concierge init` drafts (tests/planner/drafted_music.py).
"""

from __future__ import annotations

import re
from decimal import Decimal

import drafted_music as music
import pytest

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.demo.bootstrap import open_pipeline
from concierge.storage import users

MARCH = "invoice_date >= '2009-03-01' AND invoice_date <= '2009-03-31'"


@pytest.fixture
def shop(sqlite_url, tmp_path):
    music.create(sqlite_url)
    file = tmp_path / "music.yaml"
    file.write_text(music.catalog(), encoding="utf-8")
    pipeline = open_pipeline([str(file)], sqlite_url, today=music.TODAY)
    users.add(pipeline.db, "yamada", "staff")
    yield sqlite_url, Agent(pipeline, OfflineProvider(pipeline)), pipeline.user("yamada")
    pipeline.close()


def _said(answer: str, expected: str, **figures) -> bool:
    """Whether the answer is the expected sentence, its figures equal as numbers (money is printed by the one
    number formatter, which another part of the product owns: 14, 14.0 and 14.00 are one figure here)."""
    pattern = re.escape(expected)
    for name in figures:
        pattern = pattern.replace(re.escape("{" + name + "}"), rf"(?P<{name}>[\d,]+(?:\.\d+)?)")
    m = re.fullmatch(pattern, answer)
    return m is not None and all(Decimal(m[k].replace(",", "")) == Decimal(str(v)) for k, v in figures.items())


@pytest.mark.anyio
@pytest.mark.parametrize(("question", "expected"), [
    ("How many albums are there?", "There are {n} albums."),
    ("アルバムは何枚ありますか？", "アルバムは全部で{n}枚です。"),
    ("アルバムは何件？", "アルバムは全部で{n}件です。"),
])
async def test_a_count_is_one_sentence_with_the_noun_and_the_counter_asked(shop, question, expected):
    url, agent, user = shop
    turn = await agent.ask(question, user)
    assert [c.name for c in turn.calls] == ["albums"]
    assert turn.answer == expected.format(n=music.scalar(url, "SELECT COUNT(*) FROM albums"))


@pytest.mark.anyio
async def test_a_total_over_a_period_says_the_period_the_count_and_the_sum(shop):
    url, agent, user = shop
    n = music.scalar(url, f"SELECT COUNT(*) FROM invoices WHERE {MARCH}")
    total = music.scalar(url, f"SELECT SUM(total) FROM invoices WHERE {MARCH}")
    en = await agent.ask("What was the total invoiced in March 2009?", user)
    assert _said(en.answer, f"In March 2009 there were {n} invoices, and their total comes to {{total}}.", total=total)
    ja = await agent.ask("2009年3月の請求書の合計は？", user)
    assert _said(ja.answer, f"2009年3月の請求書は{n}件、合計は{{total}}です。", total=total)


@pytest.mark.anyio
async def test_a_ranking_of_one_names_the_first_with_its_figure(shop):
    url, agent, user = shop
    name, spent = next(iter(music.rows(url, """
        SELECT c.first_name || ' ' || c.last_name, SUM(i.total) FROM invoices i
        JOIN customers c ON c.customer_id = i.customer_id GROUP BY i.customer_id, c.first_name, c.last_name
        ORDER BY SUM(i.total) DESC LIMIT 1""")))
    en = await agent.ask("Which customer spent the most?", user)
    assert [(c.name, c.args.get("group_by"), c.args.get("top_n")) for c in en.calls] == [
        ("invoices_summary", "customer", 1)]
    assert _said(en.answer, f"The customer with the highest total is {name} ({{spent}}).", spent=spent)
    ja = await agent.ask("請求書の合計がいちばん多い顧客は？", user)
    assert _said(ja.answer, f"合計がいちばん多い顧客は{name}（{{spent}}）です。", spent=spent)
    top = await agent.ask("Top 3 customers by total", user)
    assert [(c.name, c.args.get("group_by"), c.args.get("top_n")) for c in top.calls] == [
        ("invoices_summary", "customer", 3)]
    sentence, *table = top.answer.splitlines()  # the names said, their figures in the table
    assert sentence.startswith(f"The top 3 customers by total: {name}, ") and sentence.count(", ") == 2
    assert len([line for line in table if line.startswith("| ") and "---" not in line]) == 4  # a header, 3 rows


@pytest.mark.anyio
async def test_a_list_says_how_many_then_shows_the_rows(shop):
    url, agent, user = shop
    turn = await agent.ask("Show the tracks of the Jazz genre", user)
    n = music.scalar(url, "SELECT COUNT(*) FROM tracks t JOIN genres g ON g.genre_id = t.genre_id "
                          "WHERE g.name = 'Jazz'")
    first, header = turn.answer.splitlines()[:2]
    assert first == f"There are {n} tracks with genre Jazz."
    assert header == "| track id | name |"  # the genre is said once, in the sentence
    none = await agent.ask("Show the tracks named Nothing Here", user)
    assert [(c.name, dict(c.args)) for c in none.calls] == [("tracks", {"name": "Nothing Here"})]
    assert none.answer == "There are no tracks with name Nothing Here."
