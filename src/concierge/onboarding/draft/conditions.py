"""Yes/no conditions read from the data, each an optional filter `yes` / `no` said in words.

- A flag: a boolean column, or a 0/1 integer or a Y/N text column named as one (is_active, del_flg,
  discontinued, a comment 有効フラグ / 販売中止): "discontinued products", 「販売中止の商品」, "not active".
- An event: a date column that is empty until something happens, where the data has empty ones
  (shipped_date): "orders not shipped yet", 「未出荷の受注」, besides the date's own period.

The words are data (onboarding/words/conditions.toml), in English and Japanese: what says yes and what
says no, the no the longer phrase (not shipped), so that it wins where both are said."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Literal

from concierge.onboarding.draft.context import Context, ToolDraft
from concierge.onboarding.introspect import Column, Table
from concierge.onboarding.naming import Noun, concept_words, japanese, slug, unique_list, words

_DATA = tomllib.loads(resources.files("concierge.onboarding").joinpath("words", "conditions.toml").read_text("utf-8"))
_NAMES = _DATA["names"]
_FLAG_WORDS = frozenset(_NAMES["flag_words"])
_FLAG_NAMES = frozenset(_NAMES["flag_names"])
_YES = frozenset(_NAMES["yes_values"])
_NO = frozenset(_NAMES["no_values"])
_DATE_WORDS = frozenset(_NAMES["date_words"])
_FLAGS: dict[str, dict[str, list[str]]] = _DATA["flags"]
_EVENTS: dict[str, dict[str, Any]] = {w: e for e in _DATA["events"].values() for w in [e["en"], *e["also"]]}
_EVENT_KEYS = {w: (k, e) for k, e in _DATA["events"].items() for w in [k, e["en"], *e["also"]]}  # return: returned
_FUNCTION_WORDS = frozenset({"in", "on", "of", "for", "to", "by", "with", "a", "an", "the"})
_VOID = re.compile(r"(?i)cncl|cxl|cancel+ed|cancel|void(?:ed)?|annul+ed|キャンセル|取消|取り消し|中止")
_JA_CUT = ("フラグ", "区分", "有無", "状態", "日時", "日付", "年月日", "日")


@dataclass(frozen=True)
class YesNo:
    """A condition a column's data holds or not: its words, and the SQL of yes and no for a row `alias`."""

    column: Column
    word: str  # English: discontinued, shipped
    ja: str  # Japanese: 販売中止, 出荷
    said_yes: tuple[str, ...]
    said_no: tuple[str, ...]
    kind: Literal["flag", "event"]  # an event: a date set or empty
    literals: tuple[str, str] = ("1", "0")  # a flag's yes and no, as SQL: TRUE / FALSE, 1 / 0
    text_values: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # a Y/N text flag's values as written
    void: tuple[Column, tuple[str, ...]] | None = None  # an event's status of rows called off (`_void`)

    def sql(self, expr: str, status: str | None = None) -> tuple[str, str]:
        """The SQL of yes and of no, for the column written as `expr`, its row's `void` status as `status`."""
        if self.kind == "event":
            if self.void is not None and status is not None:  # not received yet: and not cancelled either
                values = self.void[1]
                listed = ", ".join("'" + v.replace("'", "''") + "'" for v in values)
                return f"{expr} IS NOT NULL", f"{expr} IS NULL AND ({status} IS NULL OR {status} NOT IN ({listed}))"
            return f"{expr} IS NOT NULL", f"{expr} IS NULL"
        if self.text_values != ((), ()):
            yes, no = (", ".join("'" + v.replace("'", "''") + "'" for v in vs) for vs in self.text_values)
            return f"{expr} IN ({yes})", f"{expr} IN ({no})"
        return f"{expr} = {self.literals[0]}", f"{expr} = {self.literals[1]}"


def yes_no_columns(table: Table, dialect: str) -> list[YesNo]:
    """The flags and events of a table (the module docstring)."""
    out = []
    for col in table.columns:
        if col.primary_key or table.fk_of(col.name) is not None:
            continue
        found = _flag(col, dialect) if not col.is_date else _event(col)
        if found is not None and found.kind == "event":
            found = replace(found, void=_void(table))
        if found is not None:
            out.append(found)
    return out


def void_column(table: Table) -> Column | None:
    """The status column of a table whose values say a row was called off (`_void`), if it has one."""
    found = _void(table)
    return found[0] if found else None


def _void(table: Table) -> tuple[Column, tuple[str, ...]] | None:
    """A status of the table that says a row was called off (CNCL, cancelled, キャンセル): such a row will never be
    shipped or received, so it is not among those not shipped yet."""
    for col in table.columns:
        called_off = tuple(v for v in col.values or () if _VOID.fullmatch(v.strip()))
        if called_off:
            return col, called_off
    return None


def flag_names(table: Table, dialect: str) -> set[str]:
    """The columns of a table that are flags (a Y/N text is then no enum filter of its own)."""
    return {yn.column.name for yn in yes_no_columns(table, dialect) if yn.kind == "flag"}


def yes_no_filter(ctx: Context, tool: ToolDraft, yn: YesNo, alias: str = "t") -> str:
    """The `yes` / `no` filter of a condition, with the phrases that say each (the enum's synonyms)."""
    status = f"{alias}.{ctx.sql.q(yn.void[0].name)}" if yn.void is not None else None
    yes, no = yn.sql(f"{alias}.{ctx.sql.q(yn.column.name)}", status)
    synonyms = {**dict.fromkeys(yn.said_yes, "yes"), **dict.fromkeys(yn.said_no, "no")}
    spec = {
        "type": "enum", "nullable": True,
        "enum": {"values": ["yes", "no"]},
        "description": {"ja": f"{yn.ja}（yes か no、null なら全て）",
                        "en": f"{yn.word}, yes or no (null for all)"},
        "extract": {"kind": "enum", "synonyms": synonyms},
    }
    return tool.param(slug(yn.word, "flag"), spec,
                      f"(:{{p}} IS NULL OR (:{{p}} = 'yes' AND {yes}) OR (:{{p}} = 'no' AND {no}))")


def _flag(col: Column, dialect: str) -> YesNo | None:
    cw = concept_words(col.name)
    ja = japanese(col.comment) or (col.name if not col.name.isascii() else "")
    named = bool(set(cw) & (_FLAG_WORDS | _FLAG_NAMES)) or any(w in ja for w in _NAMES["ja_flag_words"])
    text_values: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    literals = ("1", "0")
    if col.kind == "boolean":
        literals = ("TRUE", "FALSE") if dialect != "sqlite" else ("1", "0")
    elif col.kind == "text" and col.values and named and {v.lower() for v in col.values} <= _YES | _NO:
        text_values = (tuple(v for v in col.values if v.lower() in _YES),
                       tuple(v for v in col.values if v.lower() in _NO))
    elif not (col.kind == "integer" and named and _zero_one(col)):
        return None
    word = " ".join(w for w in cw if w not in _FLAG_WORDS) or " ".join(cw)
    known = _FLAGS.get(word, {})
    ja_word = _ja_condition(col) or (known.get("ja") or [_ja_of_romaji(col) or _ja_of_words(word)])[0]
    ja_yes = unique_list([*known.get("ja", []), ja_word])
    ja_no = [*known.get("ja_no", []), *(f"{w}{end}" for w in ja_yes for end in ("でない", "ではない", "以外"))]
    en_no = known.get("en_no") or [f"not {word}", f"non-{word}", f"non {word}"]
    return YesNo(col, word, ja_yes[0], tuple(unique_list([word, *ja_yes])),
                 tuple(unique_list([*en_no, f"not {word}", *ja_no])), "flag", literals, text_values)


def _ja_of_romaji(col: Column) -> str | None:
    """The Japanese a romaji name says a flag with, through the glossary (shoshin_flg -> 初診), else None: an
    English compound's Japanese is no word for word translation (first_visit is not 訪問)."""
    if concept_words(col.name) == words(col.name):
        return None
    return _ja_cut(Noun.of(col.name, None, countable=False).ja)


def _ja_of_words(word: str) -> str:
    """The Japanese of a flag's English words, every word said (online order: オンライン注文, never 注文, which
    is every order); the English where a word has none."""
    parts = [Noun.of(w, None, countable=False).ja for w in word.split() if w not in _FUNCTION_WORDS]
    return "".join(parts) if parts and not any(p.isascii() for p in parts) else word


def _zero_one(col: Column) -> bool:
    """Whether an integer column holds 0 and 1 alone."""
    return col.low is not None and col.high is not None and col.low >= 0 and col.high <= 1 and (col.distinct or 0) <= 2


def _event(col: Column) -> YesNo | None:
    """A date empty until its event happens, where the data has empty ones (shipped_date: shipped or not)."""
    if not col.nullable or not col.nulls:
        return None
    cw = concept_words(col.name)
    before = [w for w in cw if w not in _DATE_WORDS]
    found = _event_of(before)
    if found is None or (len(before) == len(cw) and not found[2]):  # check_out says its event whole
        return None
    event = found[1]
    v, ja = event["en"], _ja_condition(col) or event["ja"]
    jas = unique_list([ja, *event.get("ja_also", [])])
    yes = [v, f"already {v}", f"been {v}", *(f"{j}{end}" for j in jas for end in ("済み", "済", "した", "された"))]
    no = [f"not {v}", f"not yet {v}", f"haven't {v}", f"hasn't {v}", f"have not {v}", f"has not {v}",
          f"not been {v}", f"haven't been {v}", f"hasn't been {v}", f"have not been {v}", f"has not been {v}",
          f"havent {v}", f"hasnt {v}", f"havent been {v}", f"hasnt been {v}", f"isn't {v}", f"isnt {v}",
          f"aren't {v}", f"arent {v}", f"wasn't {v}", f"weren't {v}",
          f"un{v}", f"yet to be {v}",
          *(f"{pre}{j}{end}" for j in jas for pre in ("", "まだ") for end in ("していない", "されていない", "してない",
                                                                            "されてない")),
          *(f"{pre}{j}" for j in jas for pre in ("未", "まだ")), *(f"{j}前" for j in jas)]
    return YesNo(col, v, f"{ja}済み", tuple(yes), tuple(no), "event")


def event_words(col: Column) -> list[str]:
    """The words a request says a date's event with, its date suffix cut (shipped_date: shipped, ship,
    shipment, 出荷; return_date: return, returned, 返却; juchu_bi: 受注), for the period of that date."""
    cw = concept_words(col.name)
    before = [w for w in cw if w not in _DATE_WORDS]
    if not before:
        return []
    said = [" ".join(before)]
    found = _event_of(before)
    if found is not None:
        key, event, _ = found
        said += [event["en"], key, *event["also"], event["ja"], *event.get("ja_also", [])]
    ja = _ja_condition(col) or _ja_cut(Noun.of(col.name, col.comment, countable=False).ja)
    return unique_list([*said, *([ja] if ja else [])])


def event_japanese(before: list[str]) -> str | None:
    """The Japanese noun of the event the words of a date's name say whole (received -> 受付, picked up -> 受取),
    or None: a date is called by it (受付日), never by a guess at the English word's sound."""
    found = _event_of(before)
    return found[1]["ja"] if found is not None and found[2] else None


def _event_of(before: list[str]) -> tuple[str, dict[str, Any], bool] | None:
    """The event a date's words name (ShipDate: ship; check_out: checkout, said whole), with whether the words
    name it whole."""
    for said in (" ".join(before), "".join(before)):
        if said in _EVENT_KEYS:
            return (*_EVENT_KEYS[said], True)
    return next(((*_EVENT_KEYS[w], False) for w in reversed(before) if w in _EVENT_KEYS), None)


def _ja_cut(phrase: str) -> str | None:
    """A Japanese date's name without its date word (返却日 -> 返却); None where nothing is left (日付)."""
    for cut in _JA_CUT:
        if phrase.endswith(cut):
            return phrase.removesuffix(cut) or None
    return phrase


def _ja_condition(col: Column) -> str | None:
    """The Japanese a column's comment (or Japanese name) says the condition with: 販売中止フラグ -> 販売中止,
    出荷日 -> 出荷."""
    phrase = japanese(col.comment) or (col.name if not col.name.isascii() else None)
    if not phrase:
        return None
    for cut in _JA_CUT:
        if phrase.endswith(cut) and len(phrase) > len(cut):
            return phrase.removesuffix(cut)
    return phrase
