"""Requests no tool can answer: forecasts, advice, corrections, deletes and general questions.

`out_of_scope` reads a request (the NFKC-`normalise`d text) and says whether it asks for something
the declared tools cannot do, which kind of thing, and where the words that say so are. It only
detects: the caller decides what wins when a catalog has a tool whose keyword covers the words (a
catalog with a cancel tool), and adds what can be done to the answer.

Kinds, tried in this order (the first that matches is the answer):

1. ``delete``: 削除, 消して, 消去, delete, remove, erase, wipe, drop the table.
2. ``correction``: a change to registered data: 訂正, 修正, 直して, 間違えた, 取り消し, キャンセル,
   価格を変更して, cancel, undo, fix, change the price, wrong date.
3. ``advice``: おすすめ, 何を発注すべき, どうすればいい, した方がいい, 戦略, should I, recommend.
4. ``general``: weather, news, translations, definitions, arithmetic, trivia (今日の天気は？,
   1+1は？, 日本の首都は？, tell me a joke, what is MCP?). Before forecasts, so that 明日は晴れる？
   is about the weather and not a sales forecast.
5. ``forecast``: 予測, 見込み, 売れそう, どのくらい売れる, forecast, will we sell; and any read
   question whose periods all lie after today (``future``): 来週の売上は？ asks for figures not yet
   recorded. A write for a future day (来週の月曜に登録して) is not a forecast.

The words are generic (no product, customer or catalog names); ordinary questions about recorded
figures (先週から売上が落ちた商品は？, 売上を増やした商品, Which products dropped in sales) match none.
Values read from the data can hold such words (a product named 本日のおすすめ弁当): pass the text
with them masked (`concierge.planner.text.mask`, same length) and they count for nothing. Leave the
dates unmasked: the span of a forecast by ``future`` is the first period after today.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

import regex

from concierge.language.dates import find_dates
from concierge.language.scripts import KATAKANA

__all__ = ["KINDS", "Kind", "OutOfScope", "out_of_scope"]

Kind = Literal["delete", "correction", "advice", "general", "forecast"]
KINDS: tuple[Kind, ...] = ("delete", "correction", "advice", "general", "forecast")  # in the order tried

_REASONS: dict[Kind, dict[str, str]] = {
    "forecast": {
        "ja": "予測はできません。ここで扱えるのは記録済みの実績だけです。",
        "en": "I can't make forecasts; only figures already recorded are available here.",
    },
    "advice": {
        "ja": "発注や仕入れなどの助言はできません。判断の材料として実績の数字はお出しできます。",
        "en": "I can't give advice on what to order or do; I can show the recorded figures to decide from.",
    },
    "correction": {
        "ja": "登録済みの販売やデータはここでは変更・取り消しできません。",
        "en": "Registered sales and data can't be changed or cancelled here.",
    },
    "delete": {
        "ja": "データの削除はできません。ここには削除する機能がありません。",
        "en": "Data can't be deleted here; nothing here deletes records.",
    },
    "general": {
        "ja": "この質問にはお答えできません。ここで答えられるのは記録されたデータについての質問だけです。",
        "en": "I can't answer that here; I only answer questions about the recorded data.",
    },
}


@dataclass(frozen=True)
class OutOfScope:
    """A request no tool can answer: its kind, and the words that say it (indices in the normalised text)."""

    kind: Kind
    start: int
    end: int

    def reason(self, lang: str) -> str:
        """One plain sentence in "ja" or "en" (any other language gets English): what cannot be done, and why."""
        texts = _REASONS[self.kind]
        return texts.get(lang, texts["en"])


@dataclass(frozen=True)
class _Words:
    """One kind's words: Japanese ones, and English ones (whole words, also numbers), searched apart so
    that a text without ASCII letters or digits skips the English ones and an ASCII text the Japanese.
    Both are searched in the `_lower`ed text (faster than case-insensitive patterns)."""

    ja: re.Pattern[str] | regex.Pattern[str]
    en: re.Pattern[str]

    def search(self, text: str) -> re.Match[str] | regex.Match[str] | None:
        m = None if text.isascii() else self.ja.search(text)
        if m is None and _ASCII_WORD.search(text):
            m = self.en.search(text)
        return m


_ASCII_WORD = re.compile(r"[A-Za-z0-9]")
_NEVER = r"(?!)"


def _words(*alternatives: str) -> _Words:
    en = [a for a in alternatives if a.startswith(_EN_START)]
    ja = [a for a in alternatives if not a.startswith(_EN_START)]
    # \b (ASCII: also between a kana and a letter, as in テーブルをdeleteして) lets the engine skip
    # quickly to the start of a word.
    # A script class (\p{Katakana}) needs the `regex` package, slower on these long alternations than `re`.
    japanese = "|".join(ja) or _NEVER
    return _Words(regex.compile(japanese) if r"\p{" in japanese else re.compile(japanese),
                  re.compile(rf"\b(?:{'|'.join(en) or _NEVER})", re.ASCII))


_EN_START = r"(?<![a-z])"
_EN = _EN_START + r"(?:{})(?![a-z])"  # an English alternative (a whole word), or one with digits
_DATA = (r"価格|金額|値段|単価|日付|日にち|数量|個数|本数|顧客|お客様|販売|売上|登録|データ|記録|内容|住所|電話")
_DATA_EN = r"price|amount|date|quantity|customer|sale|record|entry|address|phone|product|item|goods"

_DELETE = _words(
    r"削除|さくじょ|消去|抹消|(?<!取り)(?<!取)消(?:して|しといて|しておいて|したい|す(?!ぎ))",
    _EN.format(r"delete|deleting|erase|wipe|purge"),
    _EN.format(r"remove(?!\s+(?:the\s+)?(?:filter|condition|limit))"),
    r"(?<![a-z])drop(?=\s*(?:し|する|して))",
    _EN.format(r"drop(?=\s+(?:the|all|this|that|these|those|it|everything|table|tables|data|my|our)(?![a-z]))"),
)
_CORRECTION = _words(
    r"訂正|ていせい|修正|しゅうせい|(?<!見)(?<!やり)直して|(?<!見)(?<!やり)直したい|なおして|取り?消し|とりけし|取消|(?:キャンセル|きゃんせる)(?!され|済|分|率|数)",
    r"間違え[たて]|間違っ[たて]|間違い(?!な)|まちがえ[たて]|まちがっ[たて]|入力ミス|登録ミス|打ち間違|差し替え|書き換え|返品(?:し|処理|扱い|に)|返金",
    rf"(?:{_DATA})[をのはが]?.{{0,24}}?(?:変更|変え)(?:て|たい|する|し|でき|られ)|(?:{_DATA})が?(?:違[うっい]|ちが[うっ])",
    _EN.format(r"cancel(?:l?ing)?(?!l?ed\s)|undo|amend\w*|revert|roll\s+back|modify\w*|overwrite|refund\w*"),
    _EN.format(r"correction|mistake|typo"),
    _EN.format(r"(?:correct|fix|edit)(?=\s+(?:the|that|this|it|my|a|an|its|their|his|her)(?![a-z]))"),
    _EN.format(rf"(?:change|update|edit|correct|fix)\s+(?:\w+\s+){{0,2}}?(?:{_DATA_EN})s?"),
    _EN.format(rf"wrong\s+(?:\w+\s+)?(?:{_DATA_EN})s?|(?:{_DATA_EN})s?\s+(?:is|was|are|were)\s+wrong"),
)
_ADVICE = _words(
    r"お(?:すすめ|ススメ|勧め|薦め|奨め)|オススメ|(?<!お)(?:勧め|薦め)|推奨",
    r"(?:発注|仕入れ?|注文|入荷)(?:すれば|したら|する?べき|れば|たら|るべき|る?と(?:いい|良い|よい))",
    r"(?:発注|仕入れ?)(?:数|量|個数)",  # how many to order: a decision, not a recorded figure
    r"(?:発注|仕入れ?|注文|入荷)?(?:した|た|る|する)(?:方|ほう)が(?:いい|良い|よい|得|まし)",
    r"ど[うおー](?:すれば|したら|すりゃ|しよう|すべき)|(?:する|す)べき",
    rf"アドバイス|あどばいす|助言|戦略|施策|対策|改善策|提案|(?<![{KATAKANA}])(?:コツ|アイデア|アイディア)(?![{KATAKANA}])",
    r"(?:増やす|上げる|伸ばす|改善する|高める|売る|減らす|集める|増やせる|上げられる)には",
    _EN.format(r"should\s+(?:i|we|they|be)|ought\s+to|recommend\w*|advice|advise|suggest\w*|strateg(?:y|ies)"),
    _EN.format(r"what\s+(?:to|should\s+\w+)\s+(?:order|stock|buy|purchase|sell)|tips?\s+(?:for|on|to)"),
    _EN.format(r"how\s+(?:can|could|do|should|might)\s+(?:i|we)\s+(?:increase|improve|boost|grow|raise|get|sell"
               r"|attract|reduce|cut)|is\s+it\s+(?:better|worth|wise)|would\s+it\s+be\s+better|better\s+to"),
)
_ARITHMETIC = (r"(?:\d+\s*[+×✕÷*]\s*\d+|\d+\s*(?:足す|たす|引く|ひく|掛ける|かける|割る|わる)\s*\d+"
               r"|\d+\s*[-/]\s*\d+\s*=)")  # 1+1, 12×3, 5足す3, 10-4=; not 4/10 or 2025-05-06
_GENERAL = _words(
    r"天気|天候|気温|気象|てんき|晴れ(?:る|ます|そう)|[雨雪](?:が|は)?降|台風",
    r"ニュース|にゅーす|株価|為替|首都|人口|大統領|総理|首相|翻訳|英訳|和訳|訳して|英語で(?:何|なん)て",
    r"ジョーク|冗談|笑い話|面白い話|なぞなぞ|しりとり|占い|星座|歌って|詩を(?:書|作)|レシピ|作り方|今(?:何時|なんじ)",
    r"意味(?:は|を教え|って)|^[^\dの、。,\s\x00]{1,15}?(?:とは(?:何|なに|なん)?|って(?:何|なに|なん))(?:です|でしょう)?か?[？?。!！]*$",
    _EN_START + _ARITHMETIC,
    _EN.format(r"weather|temperature|rain(?:s|ing)?|snow(?:s|ing)?|news|headlines|stock\s+price|exchange\s+rate"),
    _EN.format(r"(?:capital|population|president)\s+of|prime\s+minister|translat\w+|how\s+do\s+you\s+say"),
    _EN.format(r"jokes?|riddles?|poem|sing\s+(?:a|me)|recipes?|horoscope|what\s+time\s+is\s+it|meaning\s+of"),
    _EN.format(r"define|definition|what\s+does\s+[\w-]+\s+(?:mean|stand\s+for)|who\s+(?:invented|wrote|discovered"
               r"|painted|founded|won)"),
    _EN.format(r"\d+\s*(?:plus|minus|times|divided\s+by|multiplied\s+by)\s*\d+"),
)
# "what is MCP?": the whole request asks what a term of one to four plain words is ("who is" only
# for a role: "who is the president of ..."; a name may be a customer's).
_WHAT_IS = re.compile(r"^\s*(?:what(?:'s|\s+is|\s+are)|who(?:'s|\s+is)(?=\s+the\s))\s+"
                      r"(?P<term>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,3})\s*[?.!]*\s*$")
_BUSINESS_WORDS = (
    "customer customers client clients product products item items sale sales selling seller sellers sold price "
    "prices order orders shop store category categories code phone number address revenue total amount rank "
    "ranking top best worst most least buyer buyers purchase purchases stock inventory staff my our your this "
    "that these those last today yesterday week month year it them there date")
_BUSINESS = frozenset(_BUSINESS_WORDS.split())
_FORECAST = _words(
    r"予測|予想(?!以上|外|より|を上回|を下回|通り|どおり)|見込(?!客)|見通し|よそく|よそう|みこみ|みとおし",
    r"(?:今後|将来|この先)の?(?:売上|販売|需要|来客|動向|推移|数字|伸び)|今後(?:どう|は)?(?:伸び|増え|減)",
    r"(?:売れ|買い|買われ|伸び|増え|減り|落ち|なり|上がり|下がり|(?<!出)来)そう|(?:て|で)くれそう|このまま(?:いく|行く|だと|のペース|続)",
    r"(?:どの|どれ)(?:くらい|ぐらい|位)売れる|(?:いくつ|何個|何本|いくら)売れる|売れる(?:か|と思|でしょう|だろう)",
    r"どう(?:なる|なりそう)(?=か|と思|でしょう|だろう|の|[？?]|$)|来る(?:か|と思|でしょう|だろう)",
    _EN.format(r"forecast\w*|predict\w*|projection\w*|projected|outlook|anticipat\w*"),
    _EN.format(r"expect(?:ed|ing)?\s+(?:to\s+)?(?:sell|sales|buy|revenue|demand|order|come)"),
    _EN.format(r"(?:will|gonna|going\s+to)\s+(?:[\w']+\s+){0,4}?(?:sell|buy|order|come|visit|spend|purchase"
               r"|increase|decrease|drop|grow|rise|fall|go\s+(?:up|down)|be\s+(?:busy|sold))"),
    _EN.format(r"likely\s+to\s+(?:sell|buy|come|order)|estimate\s+(?:next|future|the\s+coming|upcoming)"),
)
_BY_KIND: dict[Kind, _Words] = {"delete": _DELETE, "correction": _CORRECTION, "advice": _ADVICE, "general": _GENERAL,
            "forecast": _FORECAST}
# A request that registers something is a write, also for a future day: not a forecast.
_WRITE = _words(r"登録|売った|販売した|買った|買われた|納品した",
                _EN.format(r"register\w*|sold|bought|add\s+a\s+sale|record\s+a\s+sale"))


def out_of_scope(text: str, today: date, future: bool) -> OutOfScope | None:
    """What in `text` (normalised) no tool can answer, or None.

    `future` is True when every period the request names lies after `today` (the caller computes it
    from the dates it read); a read question about such a period is a forecast.
    """
    lowered = _lower(text)
    for kind in KINDS:
        m = _BY_KIND[kind].search(lowered)
        if m is not None:
            return OutOfScope(kind, m.start(), m.end())
        if kind == "general" and (asked := _what_is(lowered)) is not None:
            return asked
    if future and not _WRITE.search(lowered):
        return _future_period(text, today)  # as typed: "in May" is a month only capitalised
    return None


def _lower(text: str) -> str:
    """`text` lower-cased, one character for one (a character whose lower case is longer stays)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _what_is(text: str) -> OutOfScope | None:
    m = _WHAT_IS.match(text) if text.isascii() else None
    if m is None or _BUSINESS.intersection(m["term"].split()):
        return None
    return OutOfScope("general", m.start("term"), m.end("term"))


def _future_period(text: str, today: date) -> OutOfScope:
    """A forecast marked at the first period after today (the whole text when none is read here)."""
    ahead = next((d for d in find_dates(text, today) if d.range.start > today), None)
    if ahead is None:
        return OutOfScope("forecast", 0, len(text))
    return OutOfScope("forecast", ahead.start_index, ahead.end_index)
