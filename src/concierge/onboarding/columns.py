"""What a table offers a drafted tool (names, amounts, dates, enums, code patterns), and the SQL
its dialect writes for them."""

from __future__ import annotations

import re

from sqlalchemy.dialects import postgresql, sqlite

from concierge.onboarding.introspect import Column, Table
from concierge.onboarding.naming import words

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_CODE = re.compile(r"(?P<prefix>[A-Za-z]*[-_]?)(?P<digits>\d+)")
_NAME_WORDS = {"name", "names", "title", "label", "nickname"}
_NOT_AMOUNTS = {"id", "code", "no", "number", "zip", "postal", "phone", "tel", "year", "month", "day", "version",
                "seq", "sequence", "rank", "order", "position", "sort", "lat", "latitude", "lon", "lng", "longitude"}
_AMOUNT_WORDS = ("total", "amount", "revenue", "sales", "price", "cost", "value", "quantity", "qty", "paid")
_DATE_WORDS = ("ordered", "order", "date", "created", "sold", "sale", "paid", "placed", "booked", "at", "on", "day")


# A colon that begins a word, where catalog SQL (`catalog.model.SQL_PARAM`, and `sa.text`, which runs it) reads
# a `:name` parameter: a colon after a letter or digit (a:b, made:on) is not one, after a space or sign (a :b) is.
_PARAM_LIKE = re.compile(r"(?<![:\w]):\w")
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # a name the loader reads as a column of the result


class Dialect:
    """The SQL a drafted catalog writes for one database: plain SQL text, which the pipeline runs through
    `sa.text` (that escapes a ``%`` for the driver, so nothing here may escape it first)."""

    def __init__(self, name: str):
        self.name = name
        self.sqlite = name == "sqlite"
        # PostgreSQL's default driver dialect doubles a % in names: the named paramstyle writes them as they are
        dialect = sqlite.dialect() if self.sqlite else postgresql.dialect(paramstyle="named")
        self._quote = dialect.identifier_preparer.quote

    def writable(self, identifier: str) -> bool:
        """Whether catalog SQL can name it: anything but, on SQLite, a name with a colon that begins a word
        (PostgreSQL writes that colon as an escape; SQLite has none)."""
        return not self.sqlite or not _PARAM_LIKE.search(identifier)

    def q(self, identifier: str) -> str:
        """The identifier as catalog SQL names it: quoted where it must be (spaces, quotes, capitals, reserved
        words, any script), with a colon that begins a word as ``U&"\\003A"`` on PostgreSQL, so that it is
        never read as a parameter. A name that `writable` refuses is a ValueError."""
        if not _PARAM_LIKE.search(identifier):
            return self._quote(identifier)
        if self.sqlite:
            raise ValueError(f"{identifier!r} cannot be named in catalog SQL on SQLite")
        escaped = identifier.replace("\\", "\\\\").replace('"', '""').replace(":", "\\003A")
        return f'U&"{escaped}"'

    def text(self, expr: str, col: Column) -> str:
        """The column as text, for comparing with a string parameter."""
        return expr if col.kind == "text" and col.native_text else f"CAST({expr} AS VARCHAR)"

    def equals(self, expr: str, col: Column, p: str) -> str:
        """The column equal to the parameter :p, in the column's own type (so its index serves)."""
        return f"{expr} = CAST(:{p} AS UUID)" if col.uuid and not self.sqlite else f"{expr} = :{p}"

    def date_from(self, expr: str, col: Column, p: str) -> str:
        if not self.sqlite and col.stored_as_text:
            return f"{expr} >= CAST(:{p} AS VARCHAR)"
        return f"{expr} >= :{p}"

    def date_to(self, expr: str, col: Column, p: str) -> str:
        """Up to and including the day :p, also for timestamps (before the next day)."""
        if self.sqlite:
            return f"{expr} < date(:{p}, '+1 day')"
        if col.stored_as_text:
            return f"{expr} < CAST(CAST(:{p} AS DATE) + 1 AS VARCHAR)"
        if col.kind == "date":
            return f"{expr} <= :{p}"
        return f"{expr} < CAST(:{p} AS DATE) + 1"

    def day(self, expr: str, col: Column) -> str:
        if self.sqlite or col.stored_as_text:
            return f"substr({expr}, 1, 10)"
        return f"to_char({expr}, 'YYYY-MM-DD')"

    def month(self, expr: str, col: Column) -> str:
        if self.sqlite or col.stored_as_text:
            return f"substr({expr}, 1, 7)"
        return f"to_char({expr}, 'YYYY-MM')"

    def year_bounds(self, table: str, col: Column) -> str:
        """From the first day of the data's first year to the last day of next year (or of the data's last
        year, if later): a period partly outside the data still runs, new rows stay reachable while the
        server runs, and a mistyped year is refused with the range."""
        c, t = self.q(col.name), self.q(table)
        if self.sqlite:
            return (f"SELECT substr(MIN({c}), 1, 4) || '-01-01', "
                    f"MAX(substr(MAX({c}), 1, 4), strftime('%Y', 'now', '+1 year')) || '-12-31' FROM {t}")
        if col.stored_as_text:
            return (f"SELECT SUBSTR(MIN({c}), 1, 4) || '-01-01', "
                    f"GREATEST(SUBSTR(MAX({c}), 1, 4), to_char(CURRENT_DATE + INTERVAL '1 year', 'YYYY')) || '-12-31' "
                    f"FROM {t}")
        return (f"SELECT CAST(date_trunc('year', MIN({c})) AS DATE), "
                f"CAST(GREATEST(date_trunc('year', MAX({c})), date_trunc('year', CURRENT_DATE + INTERVAL '1 year')) "
                f"+ INTERVAL '1 year' - INTERVAL '1 day' AS DATE) FROM {t}")


def plain(identifier: str) -> bool:
    """Whether a column keeps its own name in a drafted tool's result (else it is given one in words)."""
    return _PLAIN.fullmatch(identifier) is not None


# --- what a table offers -------------------------------------------------------------------------
def display_column(table: Table) -> Column | None:
    """The obvious name of a row: a text column called name (or *_name, title, label), else None."""
    named = [c for c in table.columns if c.kind == "text" and not c.primary_key and c.values is None
             and (_NAME_WORDS & set(words(c.name)) or (c.comment and "名" in c.comment))]
    exact = [c for c in named if c.name.lower() in ("name", "title")]
    found = exact or named
    return found[0] if found else None


def name_columns(table: Table) -> list[Column]:
    fks = {c for fk in table.foreign_keys for c in fk.columns}
    return [c for c in table.columns if c.kind == "text" and not c.primary_key and c.values is None
            and c.name not in fks and (_NAME_WORDS & set(words(c.name)) or (c.comment and "名" in c.comment))]


def amount_columns(table: Table) -> list[Column]:
    keys = set(table.primary_key) | {c for fk in table.foreign_keys for c in fk.columns}
    out = [c for c in table.columns if c.kind in ("integer", "number") and c.name not in keys
           and not (set(words(c.name)[-1:]) & _NOT_AMOUNTS)]
    return sorted(out, key=lambda c: next((i for i, w in enumerate(_AMOUNT_WORDS) if w in words(c.name)), 99))


def date_columns(table: Table) -> list[Column]:
    dates = [c for c in table.columns if c.is_date and c.first is not None]
    return sorted(dates, key=lambda c: next((i for i, w in enumerate(_DATE_WORDS) if w in words(c.name)), 99))


def enum_columns(table: Table) -> list[Column]:
    fks = {c for fk in table.foreign_keys for c in fk.columns}
    return [c for c in table.columns if c.values is not None and c.name not in fks]


def code_pattern(samples: tuple[str, ...]) -> str | None:
    """A pattern every sampled key fits and a request can't say by accident: UUIDs, prefixed codes
    (C-0012), fixed-width numbers of 4 digits or more; else None (the key is not read from requests)."""
    if not samples:
        return None
    if all(_UUID.fullmatch(s) for s in samples):
        return r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    found = [_CODE.fullmatch(s) for s in samples]
    if not all(found):
        return None
    prefixes = {m["prefix"] for m in found if m}
    widths = sorted({len(m["digits"]) for m in found if m})
    if len(prefixes) != 1:
        return None
    prefix = prefixes.pop()
    if not prefix and (len(widths) != 1 or widths[0] < 4):
        return None
    digits = rf"\d{{{widths[0]}}}" if len(widths) == 1 else rf"\d{{{widths[0]},{widths[-1] + 2}}}"
    return f"^{re.escape(prefix)}{digits}$"
