"""Helpers of the planner tests: plans without a database, and conversations with the real agent."""

from __future__ import annotations

from datetime import date
from typing import Any

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.pipeline import Pipeline
from concierge.planner import progress
from concierge.planner.lexicon import Lexicon
from concierge.planner.plan import Context, Memory, build
from concierge.planner.text import normalise

TODAY = {"farm": date(2025, 5, 15), "pos": date(2026, 8, 31)}

# A convenience store's products and categories, as its data would list them (test data, not the demo module):
# tests/planner/test_fuzzy.py and bench/fuzzy_find.py.
PRODUCTS = ["鮭おにぎり", "明太子おにぎり", "ツナマヨおにぎり", "梅おにぎり", "昆布おにぎり",
            "幕の内弁当", "ハンバーグ弁当", "唐揚げ弁当", "焼肉弁当", "のり弁当",
            "アイスバー", "プリン", "シュークリーム", "ロールケーキ", "杏仁豆腐",
            "麦茶", "緑茶", "ミネラルウォーター", "ブラックコーヒー", "オレンジジュース"]
GLOSSES = {"pudding": "プリン", "green tea": "緑茶", "barley tea": "麦茶", "rice ball": "おにぎり"}


def _words(text: str) -> list[str]:
    return text.split()


_HEADS = _words("特製 季節の 北海道 国産 手作り 大盛り ミニ スパイシー 濃厚 贅沢 炭火 和風 洋風 旨辛 生 揚げ"
                " 焼き 冷やし 温 塩 醤油 味噌 黒 白 赤 新 極 匠 本格 プレミアム")
_TAILS = _words("おにぎり 弁当 プリン ケーキ ラーメン うどん そば パン サンド カレー パスタ サラダ スープ"
                " コーヒー ジュース ティー 茶 餃子 唐揚げ コロッケ ドーナツ アイス ゼリー チキン 丼 定食"
                " セット バーガー ピザ グラタン ドリア ナゲット ワッフル クレープ まん 団子 大福 羊羹 煎餅"
                " 饅頭 寿司 巻き 天ぷら フライ ステーキ ハンバーグ オムライス チャーハン 焼きそば たこ焼き"
                " お好み焼き ポテト シュークリーム モンブラン タルト マフィン スコーン クッキー ビスケット"
                " キャンディ")


def many_products() -> list[str]:
    """`PRODUCTS` and 1,800 more: every head (特製, 季節の, ...) before every tail (おにぎり, 弁当, ...)."""
    return PRODUCTS + [head + tail for head in _HEADS for tail in _TAILS]


class Planning:
    """Plans built straight from a message, with no database: the first calls a request makes."""

    def __init__(self, pipeline: Pipeline, today: date):
        self.pipeline, self.today = pipeline, today
        self.lexicon = Lexicon(pipeline.tools)

    def plan(self, text: str, *, today: date | None = None, offered: set[str] | None = None,
             memory: Memory | None = None):
        ctx = Context(self.lexicon, offered if offered is not None else set(self.pipeline.tools),
                      today or self.today, dict(self.pipeline.guard_context().enum_values), memory or Memory())
        return build(normalise(text), ctx)

    def first_calls(self, text: str, **options: Any) -> list[tuple[str, dict]]:
        calls, _ = progress.advance(self.plan(text, **options), [], self.pipeline.tools)
        return calls


def open_demo(domain: str, url: str, today: date | None = None) -> Pipeline:
    return open_pipeline([domain], url, today=today or TODAY[domain])


async def converse(agent: Agent, user, texts: list[str]) -> list[tuple[list[tuple[str, dict, str]], Any]]:
    """Each message in one conversation, confirming writes as a user would: (calls, final turn) per message."""
    out, session = [], None
    for text in texts:
        turn = await agent.ask(text, user, session_id=session)
        session = turn.session_id
        calls = [(c.name, dict(c.args), c.status) for c in turn.calls]
        while turn.pending is not None:
            turn = await agent.confirm(session, user)
            calls += [(c.name, dict(c.args), c.status) for c in turn.calls[1:]]
        out.append((calls, turn))
    return out


def offline_agent(pipeline: Pipeline) -> Agent:
    return Agent(pipeline, OfflineProvider(pipeline))
