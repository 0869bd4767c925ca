"""When the offline planner chooses a drafted tool (`intents`: keywords, topics, examples), in English and
Japanese: a read tool by its nouns and the phrases that count its rows (how many customers, 得意先は何社); a
summary by its totals, its groups (by customer, 都道府県ごと) and its rankings, a dated one by its days and
months too; and the summary of the money a business sells by the words for sales (sales, revenue, 売上,
売れた), the summary of its lines by the words for the pieces sold (units sold, 何個売れた), as data
(onboarding/words/flows.toml)."""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

from concierge.onboarding.draft.groups import Group, group_phrases
from concierge.onboarding.glossary import japanese as glossed
from concierge.onboarding.glossary import plural, singular
from concierge.onboarding.naming import Noun, concept_words, japanese, japanese_forms, unique_list

_FLOWS = tomllib.loads(resources.files("concierge.onboarding").joinpath("words", "flows.toml").read_text("utf-8"))
SALES_TABLES = frozenset(_FLOWS["tables"]["sales"])
NOT_SALES = frozenset(_FLOWS["tables"]["not_sales"])
SALES_TABLES_JA = tuple(_FLOWS["tables"]["sales_ja"])
NOT_SALES_TABLES = frozenset(_FLOWS["tables"]["not_sales_tables"])
NOT_SALES_TABLES_JA = tuple(_FLOWS["tables"]["not_sales_tables_ja"])
NOT_SALES_JA = tuple(_FLOWS["tables"]["not_sales_ja"])
SALES_WORDS: tuple[str, ...] = (*_FLOWS["sales"]["en"], *_FLOWS["sales"]["ja"])
UNITS_WORDS: tuple[str, ...] = (*_FLOWS["units"]["en"], *_FLOWS["units"]["ja"])
_SALES_BY: tuple[tuple[str, ...], tuple[str, ...]] = (tuple(_FLOWS["sales"]["by_en"]), tuple(_FLOWS["sales"]["by_ja"]))


def of_sales(table_name: str, comment: str | None = None) -> bool:
    """Whether a table's name or Japanese comment says it records sales (orders, invoice_lines, t_juchu_meisai,
    uriage, 来店)."""
    ja = japanese(comment) or (table_name if not table_name.isascii() else "")
    cw = concept_words(table_name)
    if set(cw) & NOT_SALES_TABLES or any(w in ja for w in NOT_SALES_TABLES_JA):
        return False  # a purchase order is an order we place, never a sale
    return any(singular(w) in SALES_TABLES or w in SALES_TABLES for w in cw) or any(w in ja for w in SALES_TABLES_JA)


def sales_money(column_name: str, comment: str | None = None) -> bool:
    """Whether money kept under this name can be sales (an amount, a total; not freight, tax or a fee)."""
    ja = japanese(comment) or (column_name if not column_name.isascii() else "")
    return not set(concept_words(column_name)) & NOT_SALES and not any(w in ja for w in NOT_SALES_JA)


def sales_by(found: dict[str, Group]) -> list[str]:
    """What says the sales of each group (sales by product, 商品区分ごとの売上), for a summary of sales."""
    out = []
    for value, group in found.items():
        if value in ("day", "month"):
            continue
        for ws in (value.replace("_", " "), *group.also):
            out += [p.format(ws) for p in _SALES_BY[0]]
        for ja in japanese_forms(group.ja) if group.ja else ():
            out += [p.format(ja) for p in _SALES_BY[1]]
    return out


def read_intents(noun: Noun, named: bool) -> dict[str, Any]:
    """Said to list or count a table's rows: its nouns (the head noun too: customers finds farm_customers),
    counting phrases (how many customers, 顧客は何人), in English and Japanese."""
    keywords = [f"{noun.one} list", f"list of {noun.many}"]
    for many in noun.plurals:
        keywords += [many, *counting(many)]
    topics = unique_list([noun.one, *noun.heads[:1]])
    examples = [f"How many {noun.many} do we have?", f"Show the {noun.many}"]
    if named:
        examples.append(f"Find the {noun.one} named Smith")
    for ja in noun.japanese_forms:
        keywords += [ja, f"{ja}一覧", f"{ja}の一覧", f"{ja}リスト", *counting_ja(ja, noun)]
        topics.append(ja)
    if noun.has_japanese:
        examples += [f"{noun.ja}は何件ありますか", f"{noun.ja}の一覧を見せて"]
    return {"keywords": unique_list(keywords), "topics": unique_list(topics), "examples": examples}


def _qualifiers_ja(noun: Noun) -> list[str]:
    """The Japanese of the words before a table's head noun (cafe of cafe order: カフェ), where the glossary has
    them: the rows a summary sums, said short."""
    if not noun.has_japanese:
        return []
    return [ja for w in noun.one.split()[:-1] for ja in glossed([w])[:1]]


def summary_intents(noun: Noun, groups: dict[str, Group], amounts: list[str], *, dated: bool,
                    flows: tuple[str, ...] = (), amounts_ja: list[str] | None = None) -> dict[str, Any]:
    """Said to ask a summary: totals, counts by a group, rankings; `amounts` are its figures in words (and
    `amounts_ja` in Japanese: 料金の合計, 料金はいくら), `flows` the words for what it sums that a business sells
    (`SALES_WORDS`, `UNITS_WORDS`)."""
    keywords = [f"{noun.one} totals", f"{noun.one} summary", f"{noun.many} summary", *flows]
    for many in noun.plurals:
        keywords += [f"total {many}", f"{many} total", f"{many} totals", *counting(many), f"{many} by",
                     f"{many} per", f"most {many}"]
        if dated:
            keywords += [f"daily {many}", f"monthly {many}"]
    for value, group in groups.items():
        bare = japanese_forms(group.ja or "")  # a group's noun alone names its own table, not this summary
        keywords += [p for p in group_phrases(value, group) if not p.startswith("多い") and p not in bare]
    for cw in amounts:
        keywords += [f"total {cw}", f"sum of {cw}", f"{cw} total", f"highest {cw}"]
    topics = [*amounts, "total", "sum", "summary"] if amounts else ["summary"]
    topics += _qualifiers_ja(noun)  # カフェ of カフェ注文: カフェの売上 is this summary's, never a value カフェラテ
    values = [v for v in groups if v not in ("day", "month")]
    examples = _examples(noun, values, amounts, dated)
    for ja in noun.japanese_forms or ([] if noun.has_japanese else [noun.ja]):
        keywords += [f"{ja}の集計", f"{ja}が多い", f"{ja}が一番多い", f"{ja}が最も多い", f"{ja}の多い",
                     *counting_ja(ja, noun)]
        if amounts:
            keywords += [f"{ja}の合計", f"{ja}合計", f"{ja}の総額"]
        if dated:
            keywords += [f"{ja}の月別", f"{ja}の日別", f"月別の{ja}", f"日別の{ja}"]
    for ja in amounts_ja or ():  # after the noun's own: the first names the rows (planner/nouns.py)
        keywords += [f"{ja}の合計", f"{ja}合計", f"{ja}の総額", f"{ja}はいくら", f"{ja}が一番多い"]
    if noun.has_japanese:
        keywords += ["集計", "ランキング", "上位", "一番多い", *(["合計"] if amounts else []),
                     *(["日別", "月別"] if dated else [])]
    return {"keywords": unique_list(keywords), "topics": unique_list(topics), "examples": examples}


def _examples(noun: Noun, values: list[str], amounts: list[str], dated: bool) -> list[str]:
    if dated:
        examples = [f"What were total {noun.many} last month?", f"{noun.many.capitalize()} by month this year",
                    f"How many {noun.many} last week?", f"Which day had the most {noun.many}?"]
        if values and amounts:
            examples.append(f"Top {plural(values[0].replace('_', ' '))} by {amounts[0]}")
        return [*examples, f"先月の{noun.ja}の合計は？", f"今年の月別の{noun.ja}", f"{noun.ja}が一番多い日は？"]
    by = values[0].replace("_", " ")
    examples = [f"{noun.many.capitalize()} by {by}", f"Which {by} has the most {noun.many}?"]
    return examples + ([f"Top {plural(by)} by {amounts[0]}"] if amounts else [])


def counting(many: str) -> list[str]:
    """Phrases that ask how many rows there are (a read tool's and a summary's alike: the read tool
    answers them with its row count, the summary when the request also says how to group)."""
    return [f"how many {many}", f"number of {many}", f"count of {many}"]


def counting_ja(ja: str, noun: Noun) -> list[str]:
    """Japanese that asks how many rows there are, with the counters the noun is counted in (顧客は何人, 得意先は
    何社, アルバムは何枚)."""
    counted = [f"{ja}は何{c}" for c in unique_list(["件", "人", *noun.counters])]
    return [f"{ja}数", f"{ja}の数", f"{ja}の件数", f"{ja}件数", *counted, f"{ja}はいくつ"]
