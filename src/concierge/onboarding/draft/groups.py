"""What a summary groups by, and the three parameters that choose and rank the groups.

A summary groups by one of: its low-cardinality columns and those that name a thing its rows share
(`columns.group_columns`); each named entity its foreign keys point at, and those up to three steps away
(`paths`: the customer of the invoice a line belongs to, that customer's support rep), grouped by the
entity's key and shown by its name (two customers called Frank are two groups); the low-cardinality
columns of the tables one and two steps away; and, where it has a date, the day or the month. At most
MAX_GROUPS, the nearest first. A group is named by its English concept words (prefecture, not todofuken),
and said by phrases in English and Japanese (by customer, 顧客別, 都道府県ごと).

No identifier is ever taken from a parameter: `group_by` is one of fixed values, and the SQL is
``CASE :group_by WHEN 'status' THEN ... END``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from concierge.onboarding.columns import display_column, enum_columns, group_columns
from concierge.onboarding.draft.context import Context, ToolDraft, unique
from concierge.onboarding.draft.labels import key_stem, ref_noun
from concierge.onboarding.draft.paths import Paths
from concierge.onboarding.glossary import JA, english_of, plural
from concierge.onboarding.introspect import Column, Table
from concierge.onboarding.naming import Noun, concept_words, japanese_forms, slug, unique_list

SUMMARY_MAX_ROWS = 100
MAX_GROUPS = 24  # beyond the day and the month; the nearest kept first
ENUM_DEPTH = 2  # the low-cardinality columns of tables up to this many steps away are groups

_TIME_SYNONYMS = {"daily": "day", "per day": "day", "by day": "day", "each day": "day", "which day": "day",
                  "日別": "day", "日ごと": "day", "毎日": "day", "どの日": "day", "多い日": "day",
                  "monthly": "month", "per month": "month", "by month": "month", "each month": "month",
                  "which month": "month", "月別": "month", "月ごと": "month", "毎月": "month", "どの月": "month",
                  "多い月": "month"}
# What ends a question about the one group at the top (いちばん売れた商品は？, 多い担当者は誰): the group's noun
# followed by one of these; the noun alone is what is counted (曲の売上, 映画は何本), never the grouping.
_JA_ASKED = ("は?", "はどれ", "は誰", "はだれ", "はどこ", "はどちら")  # not は何: 何個, 何種類 count
_COUNT_RANKS = ["most often", "most frequently", "most times", "busiest", "most popular", "most common",
                "件数順", "件数が", "件数の多い", "回数が", "回数の多い"]


@dataclass(frozen=True)
class Group:
    expr: str  # what rows are grouped by, as SQL text (an entity's key)
    ja: str | None  # its Japanese label, where there is one
    shown: str | None = None  # what a group is shown as, where not `expr` (the entity's name)
    also: tuple[str, ...] = ()  # other words a request groups by it with (country, for billing_country)
    joins: tuple[str, ...] = ()  # the aliases of the joins it needs
    depth: int = 0  # steps away from the table's own row
    ja_forms: tuple[str, ...] = ()  # every Japanese form of an entity's noun (顧客, お客様, お客さん), where known


@dataclass(frozen=True)
class Measure:
    """One figure a summary sums."""

    name: str  # its column in the result
    sql: str  # SUM(...)
    alias: str  # the table it is read from (t, or a join's alias)
    words: str  # what it is in English words (unit price, amount)
    label: dict[str, str]  # {ja, en}
    noun: Noun
    source: tuple[Table, Column]  # the column it sums (a line amount: its unit price), for its format


def groups(ctx: Context, table: Table, paths: Paths) -> dict[str, Group]:
    """What a summary of `table` can group by (the module docstring), the nearest first."""
    sql, q = ctx.sql, ctx.sql.q
    found: dict[str, Group] = {}
    for col in [*enum_columns(table), *group_columns(table)]:
        cnoun = Noun.of(col.name, col.comment, countable=False)
        found[unique(_value(col), found)] = Group(sql.text(f"t.{q(col.name)}", col),
                                                  cnoun.ja if cnoun.has_japanese else None)
    for j in paths.all:
        fk = j.key(table)
        rnoun = ref_noun(fk, j.table)
        rja = rnoun.ja if rnoun.has_japanese else None
        label = slug(key_stem(fk.name) if j.named_by_key else rnoun.one, "ref")
        if j.depth > 1 and label in found and j.owner is not None:
            label = f"{slug(Noun.of(j.owner.name, j.owner.comment).one, 'ref')}_{label}"
        needs = tuple(x.alias for x in paths.chain(j))
        display = display_column(j.table)
        if display is not None:  # an entity of no name (an order of an item) is no group a person asks for
            found[unique(label, found)] = Group(sql.text(f"{j.source}.{q(fk.name)}", fk), rja,
                                                display.sql(j.alias, sql), joins=needs, depth=j.depth,
                                                ja_forms=_forms(rnoun) if rja else ())
        if j.table is table or j.depth > ENUM_DEPTH:
            continue
        for col in enum_columns(j.table):
            cnoun = Noun.of(col.name, col.comment, countable=False)
            ja = None
            if rja and cnoun.has_japanese:
                ja = cnoun.ja if cnoun.ja.startswith(rja) else f"{rja}の{cnoun.ja}"  # 商品区分, not 商品の商品区分
            value = _value(col)
            name = value if value.startswith(f"{label}_") else f"{label}_{value}"
            found[unique(name, found)] = Group(sql.text(f"{j.alias}.{q(col.name)}", col), ja, joins=needs,
                                               depth=j.depth)
    kept = {k for k, _ in sorted(found.items(), key=lambda kv: kv[1].depth)[:MAX_GROUPS]}
    return with_heads({k: g for k, g in found.items() if k in kept})


def _forms(noun: Noun) -> tuple[str, ...]:
    """The Japanese forms of an entity's noun a request says (顧客, お客様, お客さん): not one letter alone (客)."""
    return tuple(f for f in noun.japanese_forms if len(f) > 1)


def _value(col: Column) -> str:
    """A column's group value: its English concept words (todofuken -> prefecture, shohin_kbn -> product_kind)."""
    return slug(" ".join(concept_words(col.name)) or col.name, "group")


def _many(ws: str) -> str:
    parts = ws.split()
    return " ".join([*parts[:-1], plural(parts[-1])])


def with_heads(found: dict[str, Group]) -> dict[str, Group]:
    """The groups, each of several words also said by its last one (billing_country: by country, top
    countries) where no other group ends in it, or where it is the table's own column and the others are
    columns of what it points at (an invoice's billing country before its customer's country)."""
    heads: dict[str, list[str]] = {}
    for value in found:
        if "_" in value and found[value].depth <= 1:  # an extra's room's type is no "type" of the extra
            heads.setdefault(value.rsplit("_", 1)[-1], []).append(value)
    own = {v for v, g in found.items() if g.expr.startswith("t.") and g.shown is None}
    out = dict(found)
    for head, values in heads.items():
        if head not in found and (len(values) == 1 or (values[0] in own and not own & set(values[1:]))):
            out[values[0]] = replace(found[values[0]], also=(head,))
    return out


def group_phrases(value: str, group: Group) -> list[str]:
    """What a request says to group by one value: by customer, per customer, which customer, 顧客別."""
    if value in ("day", "month"):
        return [k for k, v in _TIME_SYNONYMS.items() if v == value]
    out = []
    for ws in (value.replace("_", " "), *group.also):
        out += [f"by {ws}", f"per {ws}", f"each {ws}", f"top {_many(ws)}", f"best {_many(ws)}", f"{ws} ranking",
                f"which {ws}"]
    said_ja = unique_list([*(japanese_forms(group.ja) if group.ja else ()), *group.ja_forms,
                           *([group.ja.rsplit("の", 1)[-1]] if group.also and group.ja and "の" in group.ja else [])])
    for ja in said_ja:  # the noun asked about at the end (売れた商品は？)
        out += [f"{ja}別", f"{ja}ごと", f"どの{ja}", f"多い{ja}", f"{ja}ランキング"]
        out += [f"{ja}{end}" for end in _JA_ASKED]
    concept = english_of(said_ja[0]) if said_ja else None
    for ja in (f for f in JA.get(concept or "", ()) if len(f) == 1):  # 店別: a noun of one letter, with its suffix
        out += [f"{ja}別", f"{ja}ごと"]
    return out


def group_by(tool: ToolDraft, found: dict[str, Group], default: str | None) -> None:
    """The `group_by` parameter; with no default (a table of no date), no grouping gives the totals."""
    values = list(found)
    synonyms = {phrase: value for value, group in reversed(found.items()) for phrase in group_phrases(value, group)}
    spec: dict[str, Any] = {"type": "enum"}
    if default is None:
        spec["nullable"] = True
        spec["description"] = {"ja": f"集計の単位: {'、'.join(values)}（null なら全体の合計）",
                               "en": f"what to group by: {', '.join(values)} (null: the totals of all rows)"}
    else:
        spec["default"] = default
        spec["description"] = {"ja": f"集計の単位: {'、'.join(values)}（既定 {default}）",
                               "en": f"what to group by: {', '.join(values)} (default {default})"}
    spec["enum"] = {"values": values}
    spec["extract"] = {"kind": "enum",
                       "synonyms": dict(sorted(synonyms.items(), key=lambda s: values.index(s[1])))}
    tool.params["group_by"] = spec
    tool.review += [f"tools.{tool.name}.params.group_by.description", f"tools.{tool.name}.params.group_by.extract"]


def rank_by(tool: ToolDraft, noun: Noun, count_col: str, amounts: list[Measure], found: dict[str, Group]
            ) -> list[str]:
    """Which figure ranks the groups: the count (the most orders, most often) or one of the sums (the highest
    order total), each sum by its name in the result. Its values are no words a request says by accident (a
    value said is a value chosen)."""
    count_value = f"count_of_{count_col}"
    values = [count_value, *(m.name for m in amounts)]
    taken = {p for v, g in found.items() for p in group_phrases(v, g)}
    synonyms = {p: count_value for p in _COUNT_RANKS}
    for many in noun.plurals:
        synonyms.update({f"most {many}": count_value, f"largest number of {many}": count_value})
    # レッスンが多い, レッスン数の上位3人: ranked by their count
    synonyms.update({f"{ja}{said}": count_value for ja in noun.japanese_forms
                     for said in ("が", "数", "の数", "の件数", "の回数")})
    for m in amounts:
        cw = m.words
        for phrase in (f"highest {cw}", f"largest {cw}", f"biggest {cw}", f"most {cw}", f"top {cw}", f"by {cw}"):
            if phrase not in taken:
                synonyms.setdefault(phrase, m.name)
        for ja in m.noun.japanese_forms:
            synonyms.update({f"{ja}が": m.name, f"{ja}順": m.name, f"{ja}の多い": m.name})
    dated = "day" in found
    default = values[1] if len(values) > 1 else values[0]
    tool.params["rank_by"] = {
        "type": "enum", "nullable": True,
        "enum": {"values": values},
        "description": {"ja": f"順位を決める値: {'、'.join(values)}（null なら {default}"
                              f"{'、日・月は日付順' if dated else ''}）",
                        "en": f"what ranks the groups, largest first: {', '.join(values)} "
                              f"(null: {default}{', and days and months in date order' if dated else ''})"},
        "extract": {"kind": "enum", "synonyms": synonyms},
    }
    tool.review += [f"tools.{tool.name}.params.rank_by.description", f"tools.{tool.name}.params.rank_by.extract"]
    return values


def top_n(tool: ToolDraft, found: dict[str, Group]) -> None:
    which = [f"which {v.replace('_', ' ')}" for v in found]  # which day had ...: the one day
    dated = "day" in found
    tool.params["top_n"] = {
        "type": "integer", "default": SUMMARY_MAX_ROWS, "min": 1, "max": SUMMARY_MAX_ROWS,
        "description": {"ja": f"上位何件か（1〜{SUMMARY_MAX_ROWS}）",
                        "en": f"how many groups at most (1..{SUMMARY_MAX_ROWS})"
                              f"{'; fewer ranks days and months too' if dated else ''}"},
        "extract": {"kind": "count", "cues": ["top", "best", "トップ", "上位", "ベスト"],
                    "one": ["the most", "the best", "number one", "いちばん", "一番", "最も", *which]},
    }
    tool.review += [f"tools.{tool.name}.params.top_n.description", f"tools.{tool.name}.params.top_n.extract"]
