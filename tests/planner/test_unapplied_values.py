"""Every value a request names is used by the call, moves the call to a tool that takes it, or is said plainly
to be unused, with no figure for the broader question (planner/leftover.py, planner/whose.py).

The catalog is written by hand in the shape `concierge init` drafts (tests/planner/drafted_music.py); one test
drafts its own schema with `draft_catalog`, as a new user's init would.
"""

from __future__ import annotations

import drafted_music as music
import pytest

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.demo.bootstrap import open_pipeline
from concierge.onboarding.draft import draft_catalog
from concierge.onboarding.introspect import introspect
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import users
from concierge.storage.database import Database


def _open(url: str, tmp_path, text: str) -> Pipeline:
    file = tmp_path / "music.yaml"
    file.write_text(text, encoding="utf-8")
    pipeline = open_pipeline([str(file)], url, today=music.TODAY)
    if users.find(pipeline.db, "yamada") is None:
        users.add(pipeline.db, "yamada", "staff")
    return pipeline


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shop(request, tmp_path):
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    music.create(url)
    return url


async def _ask(pipeline: Pipeline, *questions: str):
    agent = Agent(pipeline, OfflineProvider(pipeline))
    return [await agent.ask(q, pipeline.user("yamada")) for q in questions]


@pytest.mark.anyio
async def test_a_name_no_parameter_takes_is_said_and_the_figure_for_all_rows_is_not(shop, tmp_path):
    pipeline = _open(shop, tmp_path, music.catalog(artist_filter=False))
    try:
        every = music.scalar(shop, "SELECT COUNT(*) FROM albums")
        en, ja = await _ask(pipeline, "How many albums does AC/DC have?", "AC/DCのアルバムは何枚？")
    finally:
        pipeline.close()
    for turn in (en, ja):
        assert turn.calls == []  # not the albums titled AC/DC, and not every album
        assert "AC/DC" in turn.answer and str(every) not in turn.answer
    assert "title" in en.answer  # what the albums can be narrowed down by instead
    assert "タイトル" in ja.answer


@pytest.mark.anyio
async def test_a_name_said_as_the_owner_fills_the_filter_by_the_owner(shop, tmp_path):
    pipeline = _open(shop, tmp_path, music.catalog())
    acdc = music.scalar(shop, "SELECT COUNT(*) FROM albums a JOIN artists r ON r.artist_id = a.artist_id "
                              "WHERE r.name = 'AC/DC'")
    try:
        en, ja, titled = await _ask(pipeline, "How many albums does AC/DC have?", "AC/DCのアルバムは何枚？",
                                    "Show the album named Powerslave")
    finally:
        pipeline.close()
    assert [(c.name, dict(c.args)) for c in en.calls] == [("albums", {"artist_name": "AC/DC"})]
    assert en.answer == f"There are {acdc} albums with artist AC/DC."
    assert [(c.name, dict(c.args)) for c in ja.calls] == [("albums", {"artist_name": "AC/DC"})]
    assert ja.answer == f"アーティストがAC/DCのアルバムは全部で{acdc}枚です。"
    assert [(c.name, dict(c.args)) for c in titled.calls] == [("albums", {"title": "Powerslave"})]


@pytest.mark.anyio
async def test_a_number_no_parameter_takes_is_said_and_a_tool_that_takes_it_is_moved_to(shop, tmp_path):
    pipeline = _open(shop, tmp_path, music.catalog(customer_filter=False))
    every = music.scalar(shop, "SELECT COUNT(*) FROM invoices")
    try:
        (lost,) = await _ask(pipeline, "Show me the invoices of customer 5")
    finally:
        pipeline.close()
    assert lost.calls == [] and "customer 5" in lost.answer and str(every) not in lost.answer
    pipeline = _open(shop, tmp_path, music.catalog())
    try:
        moved, ja = await _ask(pipeline, "How many invoices does customer 5 have?", "顧客5の請求書は何件？")
    finally:
        pipeline.close()
    mine = music.scalar(shop, "SELECT COUNT(*) FROM invoices WHERE customer_id = 5")
    for turn in (moved, ja):  # the read of invoices takes no customer: the summary that does answers
        assert [(c.name, c.args.get("customer_id")) for c in turn.calls] == [("invoices_summary", 5)]
        assert f"| {mine} |" in turn.answer or f" {mine} " in turn.answer or f"{mine}件" in turn.answer


@pytest.mark.anyio
async def test_no_filter_is_added_that_the_request_did_not_say(shop, tmp_path):
    pipeline = _open(shop, tmp_path, music.catalog())
    try:
        (total,) = await _ask(pipeline, "What was the total invoiced in March 2009?")
    finally:
        pipeline.close()
    assert [(c.name, dict(c.args)) for c in total.calls] == [
        ("invoices_summary", {"invoice_date_from": "2009-03-01", "invoice_date_to": "2009-03-31"})]


@pytest.mark.anyio
async def test_a_value_said_in_a_drafted_catalog_is_never_answered_with_every_row(sqlite_url, tmp_path):
    music.create(sqlite_url)
    db = Database(sqlite_url)
    try:
        draft = draft_catalog(introspect(db), "music")
    finally:
        db.dispose()
    pipeline = _open(sqlite_url, tmp_path, draft.text)
    every = music.scalar(sqlite_url, "SELECT COUNT(*) FROM albums")
    acdc = music.scalar(sqlite_url, "SELECT COUNT(*) FROM albums a JOIN artists r ON r.artist_id = a.artist_id "
                                    "WHERE r.name = 'AC/DC'")
    try:
        (turn,) = await _ask(pipeline, "How many albums does AC/DC have?")
    finally:
        pipeline.close()
    assert f"{every} " not in turn.answer + " " or every == acdc  # the right figure, or what was not applied
    assert "AC/DC" in turn.answer
