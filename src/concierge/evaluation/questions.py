"""Cases generated from a live database (`concierge eval --generate N`): the questions staff ask of any
business's data, in English and Japanese, with the figures each answer must state.

The kinds, each asked of every table (or foreign key) that has what it needs:

- `count`: how many rows a table has (「顧客は何人？」, "How many customers are there?");
- `period_total`, `year_total`: the total of a table's amount in a month, or a year, present in the data;
- `followup`: that month's total, then "And the month before?";
- `top_entity`: which referenced row (a customer) has the largest total amount, by its key, named;
- `entity_count`: how many rows a referenced row has, asked by its name (only a name no other row holds);
- `entity_key`: the rows of a referenced row, asked by its key (the answer must state how many);
- `date_range`: how many rows in the first half of a month.

Nouns and which columns are amounts, names and dates come from `onboarding.columns` and
`onboarding.naming`; the figures from `evaluation.figures`, SQL of our own over the introspected
schema. Every case's clock is the day after the data's last date, and every period is explicit.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import zip_longest
from typing import Any

from concierge.evaluation.figures import Figures, shown
from concierge.onboarding import measures
from concierge.onboarding.columns import Display, amount_columns, date_columns, display_column
from concierge.onboarding.introspect import Column, Schema, Table, introspect
from concierge.onboarding.naming import Noun
from concierge.storage.database import Database

KINDS = ("count", "period_total", "top_entity", "entity_count", "entity_key", "date_range", "followup",
         "year_total")
_EN_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December")
# Nouns counted in people (何人), else in things (何件).
_PEOPLE = {"customer", "member", "user", "employee", "staff", "client", "patient", "student", "guest", "person"}
TEXTS: dict[str, dict[str, str]] = {
    "count": {"en": "How many {many} are there?", "ja": "{ja}は全部で{counter}？"},
    "period_total": {"en": "What was the total {amount} of {many} in {month}?",
                     "ja": "{month}の{ja}の{amount}の合計は？"},
    "year_total": {"en": "What was the total {amount} of {many} in {year}?",
                   "ja": "{year}の{ja}の{amount}の合計は？"},
    "followup": {"en": "And the month before?", "ja": "その前の月は？"},
    "top_entity": {"en": "Which {ref} has the highest total {amount} of {many}?",
                   "ja": "{ja}の{amount}の合計が一番多い{ref}は？"},
    "entity_count": {"en": "How many {many} does {name} have?", "ja": "{name}の{ja}は何件？"},
    "entity_key": {"en": "Show the {many} of {ref} {key}", "ja": "{ref}{key}の{ja}を見せて"},
    "date_range": {"en": "How many {many} were there from {start} to {end}?",
                   "ja": "{start}から{end}までの{ja}は何件？"},
}


@dataclass(frozen=True)
class _Words:
    """How a table (or a column) is said in each language; no Japanese where naming has none."""

    en_one: str
    en_many: str
    ja: str | None

    @classmethod
    def of(cls, name: str, comment: str | None, *, countable: bool = True) -> _Words:
        noun = Noun.of(name, comment, countable=countable)
        forms = noun.japanese_forms
        return cls(noun.one, noun.many, forms[0] if forms else None)


def generate(db: Database, domain: str, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` cases on the database's data, the kinds taken in turn so that a few cover them all."""
    schema = introspect(db)
    maker = _Maker(schema, Figures(db), domain)
    by_kind = [list(maker.cases(kind)) for kind in KINDS]
    out = [case for round_ in zip_longest(*by_kind) for case in round_ if case is not None]
    return out[:limit]


class _Maker:
    def __init__(self, schema: Schema, figures: Figures, domain: str):
        self.schema, self.figures, self.domain = schema, figures, domain
        self.tables = [t for t in schema.tables if not t.is_view and t.row_count > 0]
        lasts = [c.last for t in self.tables for c in t.columns if c.is_date and c.last]
        self.today = (date.fromisoformat(max(lasts)) + timedelta(days=1)) if lasts else date.today()

    def case(self, kind: str, name: str, lang: str, turns: list[tuple[str, list[str]]]) -> dict[str, Any]:
        return {"id": f"{kind}-{name}-{lang}", "domain": self.domain, "today": self.today.isoformat(), "kind": kind,
                "turns": [{"say": say, "answer_contains": expected} for say, expected in turns]}

    def cases(self, kind: str) -> Iterator[dict[str, Any]]:
        yield from getattr(self, f"_{kind}")()

    # --- the kinds ---------------------------------------------------------------------------------
    def _count(self) -> Iterator[dict[str, Any]]:
        for table in self.tables:
            words, n = _Words.of(table.name, table.comment), f"{self.figures.count(table):,}"
            yield self.case("count", table.name, "en", [(TEXTS["count"]["en"].format(many=words.en_many), [n])])
            if words.ja:
                counter = "何人" if words.en_one.split()[-1] in _PEOPLE else "何件"
                yield self.case("count", table.name, "ja",
                                [(TEXTS["count"]["ja"].format(ja=words.ja, counter=counter), [n])])

    def _measured(self) -> Iterator[tuple[Table, Column, Column, list[tuple[str, int]]]]:
        """Tables with an amount and a date, with their months (busiest first)."""
        for table in self.tables:
            amounts, dates = amount_columns(table), date_columns(table)
            if amounts and dates:
                yield table, amounts[0], dates[0], self.figures.months(table, dates[0])

    def _period_total(self) -> Iterator[dict[str, Any]]:
        for table, amount, when, months in self._measured():
            if len(months) > 1:  # one month of data: its total is every row's
                start = date.fromisoformat(months[0][0] + "-01")
                yield from self._total_cases("period_total", table, amount, when, start, _next_month(start))

    def _year_total(self) -> Iterator[dict[str, Any]]:
        for table, amount, when, months in self._measured():
            if len({m[:4] for m, _ in months}) > 1:  # one year of data: its total is every row's
                start = date(int(months[0][0][:4]), 1, 1)
                yield from self._total_cases("year_total", table, amount, when, start, date(start.year + 1, 1, 1))

    def _total_cases(self, kind: str, table: Table, amount: Column, when: Column, start: date,
                     end: date) -> Iterator[dict[str, Any]]:
        words, money = _Words.of(table.name, table.comment), _Words.of(amount.name, amount.comment, countable=False)
        total = [shown(self.figures.total(table, amount, when, start, end), amount)]
        period = {"en": _EN_MONTHS[start.month - 1] + f" {start.year}", "ja": f"{start.year}年{start.month}月"}
        if kind == "year_total":
            period = {"en": str(start.year), "ja": f"{start.year}年"}
        for lang in ("en", "ja"):
            if lang == "ja" and not (words.ja and money.ja):
                continue
            say = TEXTS[kind][lang].format(many=words.en_many, ja=words.ja, amount=money.ja if lang == "ja"
                                           else money.en_one, month=period[lang], year=period[lang])
            yield self.case(kind, table.name, lang, [(say, total)])

    def _followup(self) -> Iterator[dict[str, Any]]:
        for table, amount, when, months in self._measured():
            present = {m for m, _ in months}
            month = next((m for m, _ in months if _month_before(m) in present), None)
            if month is None:
                continue
            start = date.fromisoformat(month + "-01")
            before = date.fromisoformat(_month_before(month) + "-01")
            for first in self._total_cases("period_total", table, amount, when, start, _next_month(start)):
                lang = first["id"].rsplit("-", 1)[1]
                again = [shown(self.figures.total(table, amount, when, before, start), amount)]
                turns = [(t["say"], t["answer_contains"]) for t in first["turns"]]
                yield self.case("followup", table.name, lang, [*turns, (TEXTS["followup"][lang], again)])

    def _date_range(self) -> Iterator[dict[str, Any]]:
        for table in self.tables:
            dates = [c for c in date_columns(table) if measures.event_date(c)]  # never a ModifiedDate
            if not dates:
                continue
            months = self.figures.months(table, dates[0])
            if not months:
                continue
            start = date.fromisoformat(months[0][0] + "-01")
            end = start.replace(day=15)
            count = self.figures.count(table, dates[0], start, end + timedelta(days=1))
            if count in (0, table.row_count):
                continue  # a range that tells nothing apart from all the rows, or from none
            n = [f"{count:,}"]
            words = _Words.of(table.name, table.comment)
            en = _en_day(start), _en_day(end)
            yield self.case("date_range", table.name, "en",
                            [(TEXTS["date_range"]["en"].format(many=words.en_many, start=en[0], end=en[1]), n)])
            if words.ja:
                ja = f"{start.year}年{start.month}月{start.day}日", f"{end.year}年{end.month}月{end.day}日"
                yield self.case("date_range", table.name, "ja",
                                [(TEXTS["date_range"]["ja"].format(ja=words.ja, start=ja[0], end=ja[1]), n)])

    def _references(self) -> Iterator[tuple[Table, Any, Table, Display]]:
        """Each single-column foreign key to a table with an obvious name column."""
        for table in self.tables:
            for fk in table.foreign_keys:
                ref = self.schema.table(fk.table)
                display = display_column(ref) if ref is not None and len(fk.columns) == 1 else None
                if ref is not None and display is not None:
                    yield table, fk, ref, display

    def _top_entity(self) -> Iterator[dict[str, Any]]:
        for table, fk, ref, display in self._references():
            amounts = amount_columns(table)
            if not amounts:
                continue
            top = self.figures.per_entity(table, fk, ref, display, amounts[0], limit=2)
            if not top or len(top) > 1 and top[0].total == top[1].total:
                continue  # no rows, or a tie: no one answer
            words, rwords = _Words.of(table.name, table.comment), _Words.of(ref.name, ref.comment)
            money = _Words.of(amounts[0].name, amounts[0].comment, countable=False)
            expected = [top[0].name, shown(top[0].total or 0, amounts[0])]
            name = f"{ref.name}-by-{amounts[0].name}-{table.name}"
            yield self.case("top_entity", name, "en", [(TEXTS["top_entity"]["en"].format(
                ref=rwords.en_one, amount=money.en_one, many=words.en_many), expected)])
            if words.ja and rwords.ja and money.ja:
                yield self.case("top_entity", name, "ja", [(TEXTS["top_entity"]["ja"].format(
                    ref=rwords.ja, amount=money.ja, ja=words.ja), expected)])

    def _entity_count(self) -> Iterator[dict[str, Any]]:
        for table, fk, ref, display in self._references():
            found = next((e for e in self.figures.per_entity(table, fk, ref, display)
                          if e.rows < table.row_count and self.figures.named_alone(ref, display, e.name)), None)
            if found is None:
                continue
            words, n = _Words.of(table.name, table.comment), [f"{found.rows:,}"]
            name = f"{table.name}-of-{ref.name}-by-name"
            yield self.case("entity_count", name, "en",
                            [(TEXTS["entity_count"]["en"].format(many=words.en_many, name=found.name), n)])
            if words.ja:
                yield self.case("entity_count", name, "ja",
                                [(TEXTS["entity_count"]["ja"].format(ja=words.ja, name=found.name), n)])

    def _entity_key(self) -> Iterator[dict[str, Any]]:
        for table, fk, ref, display in self._references():
            found = self.figures.per_entity(table, fk, ref, display, limit=1)
            if not found or found[0].rows == table.row_count:
                continue  # every row is that one's: the key would tell nothing apart
            words, rwords, n = _Words.of(table.name, table.comment), _Words.of(ref.name, ref.comment), [
                f"{found[0].rows:,}"]
            name = f"{table.name}-of-{ref.name}-by-key"
            yield self.case("entity_key", name, "en", [(TEXTS["entity_key"]["en"].format(
                many=words.en_many, ref=rwords.en_one, key=found[0].key), n)])
            if words.ja and rwords.ja:
                yield self.case("entity_key", name, "ja", [(TEXTS["entity_key"]["ja"].format(
                    ja=words.ja, ref=rwords.ja, key=found[0].key), n)])


def _en_day(day: date) -> str:
    return f"{_EN_MONTHS[day.month - 1]} {day.day}, {day.year}"


def _next_month(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


def _month_before(month: str) -> str:
    year, m = int(month[:4]), int(month[5:7])
    return f"{year - 1}-12" if m == 1 else f"{year}-{m - 1:02d}"
