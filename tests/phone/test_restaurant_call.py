"""A whole phone order for the restaurant demo, with the offline planner: a caller over the real
WebSocket, speaking ConversationRelay's JSON to `concierge serve`'s app."""

from __future__ import annotations

import asyncio

import pytest
import sqlalchemy as sa
from phone_caller import dial

from concierge.demo.restaurant import tables as restaurant

CALLER = "+819012345678"

JA_ORDER = [  # the caller's words, then what the answer must say (numbers and times as they are said)
    ("もしもし、注文をお願いしたいのですが", ["ご注文を承ります", "何になさいますか"]),
    ("唐揚げ弁当を大盛りで2つください", ["唐揚げ弁当（大盛り）を2つ", "1,580円"]),
    ("のり弁当を1つお願いします", ["2,030円"]),
    ("エビフライ弁当も1つください", ["売り切れ", "鮭弁当"]),  # refused, with others of its category
    ("唐揚げ弁当を3つに変更してください", ["3つ", "2,820円"]),
    ("22時に受け取りに行きます", ["お渡しできません", "11時から21時"]),
    ("18時半に受け取りに行きます", ["18時30分"]),
    ("今の注文を確認してください", ["唐揚げ弁当（大盛り）3つ", "のり弁当1つ", "2,820円", "18時30分"]),
    ("以上でお願いします", ["2,820円", "18時30分", "よろしいですか？"]),  # the read-back: nothing written yet
    ("はい", ["受付番号は1番", "18時30分"]),
    ("ありがとう、失礼します", ["ありがとうございました"]),
]
EN_ORDER = [
    ("Hello, I'd like to order", ["take your order", "What would you like"]),
    ("I'd like two karaage bento, large", ["1,580 yen"]),
    ("Can I get one miso soup?", ["1,730 yen"]),
    ("I'd like one fried shrimp bento", ["sold out", "のり弁当"]),
    ("Change the karaage bento to three", ["2,520 yen"]),
    ("I'll pick it up at 10 pm", ["11 am", "9 pm"]),
    ("I'll pick it up at 6:30 pm", ["6:30 pm"]),
    ("That's all", ["2,520 yen", "6:30 pm", "?"]),
    ("Yes", ["ticket number 1", "6:30 pm"]),
    ("Thanks, bye", ["Thank you"]),
]


def orders(url: str) -> list[dict]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.select(restaurant.restaurant_orders)).mappings().all()
            items = conn.scalar(sa.select(sa.func.count()).select_from(restaurant.restaurant_order_items))
    finally:
        engine.dispose()
    return [{**dict(r), "items": items} for r in rows]


@pytest.mark.parametrize("script", [JA_ORDER, EN_ORDER], ids=["ja", "en"])
def test_a_whole_order_by_phone_is_written_once_and_the_call_ends(restaurant_phone, sqlite_url, script):
    written_when_read_back: list[int] = []

    async def call():
        said = []
        async with dial(restaurant_phone, caller=CALLER) as c:
            for i, (words, _) in enumerate(script):
                said.append(await c.say(words, lang="ja-JP" if script is JA_ORDER else "en-US"))
                if i == len(script) - 3:  # the read-back: asked, not yet written
                    written_when_read_back.append(len(orders(sqlite_url)))
            return said, await c.listen()

    said, last = asyncio.run(call())
    for (words, expected), reply in zip(script, said, strict=True):
        for part in expected:
            assert part in reply.text, (words, reply.text)
        assert "[r_" not in reply.text and "|" not in reply.text
    assert written_when_read_back == [0]
    assert last.end is not None and last.end["reason"] == "end"
    [order] = orders(sqlite_url)
    assert (order["caller"], order["pickup_time"], order["total"], order["items"]) == (
        CALLER, "18:30", 2820 if script is JA_ORDER else 2520, 2)


def test_a_dropped_call_leaves_no_order_and_the_next_call_starts_fresh(restaurant_phone, sqlite_url):
    async def dropped() -> str:
        async with dial(restaurant_phone, caller=CALLER) as c:
            await c.say("唐揚げ弁当を2つください")
            await c.say("18時半に受け取りに行きます")
            return (await c.say("以上でお願いします")).text  # read back; the line drops before はい

    async def again() -> list[str]:
        async with dial(restaurant_phone, caller=CALLER) as c:
            return [(await c.say("はい")).text, (await c.say("今の注文を確認してください")).text]

    assert "よろしいですか" in asyncio.run(dropped())
    yes, order = asyncio.run(again())
    assert "受付番号" not in yes
    assert "まだご注文はありません" in order
    assert orders(sqlite_url) == []


def test_asking_for_a_person_hands_the_call_over(restaurant_phone):
    async def call():
        async with dial(restaurant_phone, caller=CALLER) as c:
            return await c.say("お店の人と話したいです"), await c.listen()

    words, end = asyncio.run(call())
    assert "おつなぎします" in words.text
    assert end.end is not None and end.end["reason"] == "handover"
