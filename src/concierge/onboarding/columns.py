"""What a table offers a drafted tool (names, amounts, dates, enums, code patterns), and the SQL
its dialect writes for them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from sqlalchemy.dialects import mysql, postgresql, sqlite

from concierge.onboarding import measures
from concierge.onboarding.introspect import Column, Table
from concierge.onboarding.naming import concept_words, japanese, words
from concierge.storage.database import is_mysql

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# a UUID however written (a SQL Server rowguid: no dashes, or braces)
_ANY_UUID = re.compile(r"\{?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\}?")
_CODE = re.compile(r"(?P<prefix>[A-Za-z]*[-_]?)(?P<digits>\d+)")
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
        self.mysql = is_mysql(name)  # MySQL and MariaDB
        self.duckdb = name == "duckdb"  # PostgreSQL's SQL but for formatting dates (strftime, no to_char)
        # The drivers' dialects double a % in names: the named paramstyle writes them as they are
        dialect = (sqlite.dialect() if self.sqlite else mysql.dialect(paramstyle="named") if self.mysql
                   else postgresql.dialect(paramstyle="named"))
        self._quote = dialect.identifier_preparer.quote
        self._string = "CHAR" if self.mysql else "VARCHAR"  # MySQL casts to CHAR, not VARCHAR

    def writable(self, identifier: str) -> bool:
        """Whether catalog SQL can name it: anything but, on SQLite and MySQL, a name with a colon that begins a
        word (PostgreSQL writes that colon as an escape; the others have none)."""
        return not (self.sqlite or self.mysql) or not _PARAM_LIKE.search(identifier)

    def q(self, identifier: str) -> str:
        """The identifier as catalog SQL names it: quoted where it must be (spaces, quotes, capitals, reserved
        words, any script), with a colon that begins a word as ``U&"\\003A"`` on PostgreSQL, so that it is
        never read as a parameter. A name that `writable` refuses is a ValueError."""
        if not _PARAM_LIKE.search(identifier):
            return self._quote(identifier)
        if not self.writable(identifier):
            raise ValueError(f"{identifier!r} cannot be named in catalog SQL on {self.name}")
        escaped = identifier.replace("\\", "\\\\").replace('"', '""').replace(":", "\\003A")
        return f'U&"{escaped}"'

    def text(self, expr: str, col: Column) -> str:
        """The column as text, for comparing with a string parameter."""
        return expr if col.kind == "text" and col.native_text else f"CAST({expr} AS {self._string})"

    def text_param(self, p: str, length: int) -> str:
        """The parameter :p as text of up to `length` characters (so that a NULL has a type)."""
        return f"CAST(:{p} AS {self._string}({length}))"

    def select_one(self) -> str:
        """A statement's start that selects one row of no table (MySQL's WHERE needs a FROM: DUAL)."""
        return "SELECT 1 FROM DUAL" if self.mysql else "SELECT 1"

    def joined(self, parts: list[str]) -> str:
        """Texts joined with a space between them."""
        if self.mysql:  # MySQL's || is OR
            return "CONCAT(" + ", ' ', ".join(parts) + ")"
        return " || ' ' || ".join(parts)

    def concat(self, *parts: str) -> str:
        """Texts joined as they are."""
        return f"CONCAT({', '.join(parts)})" if self.mysql else " || ".join(parts)

    def as_text(self, expr: str) -> str:
        return f"CAST({expr} AS {self._string})"

    def equals(self, expr: str, col: Column, p: str) -> str:
        """The column equal to the parameter :p, in the column's own type (so its index serves)."""
        return f"{expr} = CAST(:{p} AS UUID)" if col.uuid and self.name == "postgresql" else f"{expr} = :{p}"

    def date_from(self, expr: str, col: Column, p: str) -> str:
        if not self.sqlite and col.stored_as_text:
            return f"{expr} >= CAST(:{p} AS {self._string})"
        return f"{expr} >= :{p}"

    def date_to(self, expr: str, col: Column, p: str) -> str:
        """Up to and including the day :p, also for timestamps (before the next day)."""
        if self.sqlite:
            return f"{expr} < date(:{p}, '+1 day')"
        next_day = f"CAST(:{p} AS DATE) + INTERVAL 1 DAY" if self.mysql else f"CAST(:{p} AS DATE) + 1"
        if col.stored_as_text:
            return f"{expr} < CAST({next_day} AS {self._string})"
        if col.kind == "date":
            return f"{expr} <= :{p}"
        return f"{expr} < {next_day}"

    def day(self, expr: str, col: Column) -> str:
        if self.sqlite or col.stored_as_text:
            return f"substr({expr}, 1, 10)"
        return self._formatted(expr, "YYYY-MM-DD")

    def month(self, expr: str, col: Column) -> str:
        if self.sqlite or col.stored_as_text:
            return f"substr({expr}, 1, 7)"
        return self._formatted(expr, "YYYY-MM")

    def year_bounds(self, table: str, col: Column) -> str:
        """From the first day of the data's first year to the last day of next year (or of the data's last
        year, if later): a period partly outside the data still runs, new rows stay reachable while the
        server runs, and a mistyped year is refused with the range."""
        c, t = self.q(col.name), self.q(table)
        if self.mysql:
            return self._mysql_year_bounds(t, c, col)
        if self.sqlite:  # MIN and MAX alone in a subquery: SQLite reads them from an index, not every row
            return (f"SELECT substr((SELECT MIN({c}) FROM {t}), 1, 4) || '-01-01', "
                    f"MAX(substr((SELECT MAX({c}) FROM {t}), 1, 4), strftime('%Y', 'now', '+1 year')) || '-12-31'")
        if col.stored_as_text:
            next_year = self._formatted("CURRENT_DATE + INTERVAL '1 year'", "YYYY")
            return (f"SELECT SUBSTR(MIN({c}), 1, 4) || '-01-01', "
                    f"GREATEST(SUBSTR(MAX({c}), 1, 4), {next_year}) || '-12-31' "
                    f"FROM {t}")
        return (f"SELECT CAST(date_trunc('year', MIN({c})) AS DATE), "
                f"CAST(GREATEST(date_trunc('year', MAX({c})), date_trunc('year', CURRENT_DATE + INTERVAL '1 year')) "
                f"+ INTERVAL '1 year' - INTERVAL '1 day' AS DATE) FROM {t}")

    def _formatted(self, expr: str, pattern: str) -> str:
        """A date as text: `pattern` in PostgreSQL's words (YYYY, MM, DD)."""
        strf = pattern.replace("YYYY", "%Y").replace("MM", "%m").replace("DD", "%d")
        if self.mysql:
            return f"DATE_FORMAT({expr}, '{strf}')"
        if self.duckdb:
            return f"strftime({expr}, '{strf}')"
        return f"to_char({expr}, '{pattern}')"

    def _mysql_year_bounds(self, t: str, c: str, col: Column) -> str:
        first, last = f"SUBSTR(MIN({c}), 1, 4)", f"CAST(SUBSTR(MAX({c}), 1, 4) AS UNSIGNED)"
        if not col.stored_as_text:
            first, last = f"YEAR(MIN({c}))", f"YEAR(MAX({c}))"
        start, end = f"CONCAT({first}, '-01-01')", f"CONCAT(GREATEST({last}, YEAR(CURRENT_DATE) + 1), '-12-31')"
        if not col.stored_as_text:
            start, end = f"CAST({start} AS DATE)", f"CAST({end} AS DATE)"
        return f"SELECT {start}, {end} FROM {t}"


def plain(identifier: str) -> bool:
    """Whether a column keeps its own name in a drafted tool's result (else it is given one in words)."""
    return _PLAIN.fullmatch(identifier) is not None


# --- what a table offers -------------------------------------------------------------------------
@dataclass(frozen=True)
class Display:
    """What shows a row to a person: its name column, or a person's names joined in the order they are
    said (first and last; family name first where the columns are Japanese: 姓 名)."""

    columns: tuple[Column, ...]

    @property
    def name(self) -> str:
        """The words it is named by in a result (customer_name): its column's, or ``name`` for joined names."""
        return self.columns[0].name if len(self.columns) == 1 else "name"

    @property
    def comment(self) -> str | None:
        return self.columns[0].comment if len(self.columns) == 1 else None

    @property
    def joined(self) -> bool:
        return len(self.columns) > 1

    def sql(self, alias: str, dialect: Dialect) -> str:
        """The name as text, of the row `alias` names."""
        parts = [dialect.text(f"{alias}.{dialect.q(c.name)}", c) for c in self.columns]
        if len(parts) == 1:
            return parts[0]
        return "TRIM(" + dialect.joined([f"COALESCE({p}, '')" for p in parts]) + ")"


NameRole = Literal["full", "name", "family", "given", "reading"]
_ROLE_ORDER: tuple[NameRole, ...] = ("full", "name", "family", "given", "reading")
_NAME_WORDS = {"name", "names", "title", "label", "nickname", "fullname", "firstname", "lastname", "surname",
               "forename"}
_GIVEN = ({"first", "name"}, {"given", "name"}, {"firstname"}, {"forename"}, {"fname"})
_FAMILY = ({"last", "name"}, {"family", "name"}, {"lastname"}, {"surname"}, {"lname"})
_READING = {"reading", "kana", "yomi", "furigana", "phonetic"}
_JA_FULL = ("氏名", "名称", "名前", "フルネーム")
_JA_FAMILY = ("姓", "氏", "苗字", "名字")
_JA_READING = ("カナ", "かな", "フリガナ", "ふりがな", "ﾌﾘｶﾞﾅ", "ｶﾅ", "読み", "よみ")
# Words of text that describes or reaches a row, not a thing rows share: never a group.
_NOT_THINGS = {"description", "desc", "note", "notes", "memo", "comment", "comments", "remark", "remarks", "address",
               "addr", "email", "mail", "phone", "tel", "fax", "url", "uri", "link", "path", "password", "hash",
               "token", "body", "text", "content", "message", "json", "html", "xml", "image", "photo", "picture",
               "file", "id", "uuid", "guid", "key", "postal", "zip", "reading", "street"}


# Words of text columns that never label a row (how to reach it, or what is said about it at length).
_NOT_LABELS = _NOT_THINGS - {"description", "desc", "text", "comment", "remark", "remarks"}


def _ja_name(col: Column) -> str:
    """What a column is called in Japanese: its comment's first phrase, or a name written in Japanese."""
    return japanese(col.comment) or (col.name if not col.name.isascii() else "")


def name_role(col: Column) -> NameRole | None:
    """How a text column names its row: in full (name, title, full_name, shimei, 氏名, 名称), by a name of
    some kind (*_name, *_mei, 商品名), as a person's family or given name, as a reading (kana); else None."""
    if col.kind != "text":
        return None
    cw, ja = set(concept_words(col.name)), _ja_name(col)
    if cw & _READING or any(r in ja for r in _JA_READING):
        return "reading" if cw & _NAME_WORDS or "名" in ja else None
    if any(s <= cw for s in _FAMILY) or ja in _JA_FAMILY:
        return "family"
    if any(s <= cw for s in _GIVEN) or ja == "名":
        return "given"
    if cw in ({"name"}, {"title"}, {"full", "name"}, {"fullname"}) or ja in _JA_FULL:
        return "full"
    if cw & _NAME_WORDS or "名" in ja:
        return "name"
    return None


def repeats(col: Column, table: Table) -> bool | None:
    """Whether a column's values repeat across rows: False for a unique index, True where the values read
    show it (an enum, the same value twice among the samples), None where nothing tells."""
    if any(ix.unique and ix.columns == (col.name,) for ix in table.indexes) or table.primary_key == (col.name,):
        return False
    if col.values is not None or len(set(col.samples)) < len(col.samples):
        return True
    return None


def name_columns(table: Table) -> list[Column]:
    """The text columns that name a table's rows (its own, not a foreign key's), the best name first: a
    whole name before a part of one, one whose values are not seen to repeat before one whose values do."""
    fks = {c for fk in table.foreign_keys for c in fk.columns}
    found = [(name_role(c), i, c) for i, c in enumerate(table.columns)
             if not c.primary_key and c.name not in fks and (c.values is None or _person_part(c))]
    uniq = {False: 0, None: 1, True: 2}
    ranked = sorted(((r, i, c) for r, i, c in found if r is not None),
                    key=lambda f: (uniq[repeats(f[2], table)], _ROLE_ORDER.index(f[0]),
                                   "name" not in concept_words(f[2].name), f[1]))
    return [c for _, _, c in ranked]


def _person_part(col: Column) -> bool:
    """Whether a column is a part of a person's name, whose values repeat in any table of people (a few given
    names among 150 patients read as an enum): a name all the same."""
    return name_role(col) in ("family", "given")


def display_column(table: Table) -> Display | None:
    """What shows a row of `table` to a person (a customer's name next to an order): a name column whose
    values are not seen to repeat, else a person's family and given names joined, else any name; None
    where the table has no name. First and last name together beat a title (an employee's job title), a
    column that names the whole row beats them (full_name, 氏名)."""
    ranked = name_columns(table)
    roles = {c.name: name_role(c) for c in ranked}
    single = [c for c in ranked if roles[c.name] in ("full", "name") and not repeats(c, table)]
    family = next((c for c in ranked if roles[c.name] == "family"), None)
    given = next((c for c in ranked if roles[c.name] == "given"), None)
    if family is not None and given is None:  # sei and mei: a bare "name" beside a family name is the given one
        given = next((c for c in ranked if c is not family and set(concept_words(c.name)) == {"name"}
                      and c.name.lower() not in ("name", "title")), None)
    whole = [c for c in single if roles[c.name] == "full" and "title" not in concept_words(c.name)]
    if family is not None and given is not None and not whole:
        return Display((family, given) if _family_first(family) else (given, family))
    if single:
        return Display((single[0],))
    rest = [c for c in ranked if roles[c.name] != "reading"]
    if rest:
        return Display((rest[0],))
    label = _label_column(table)
    if label is not None:
        return Display((label,))
    named = next((c for c in table.columns if c.values is not None and name_role(c) in ("full", "name")), None)
    return Display((named,)) if named is not None else None  # a class's sessions: Yoga on each day


_LABEL_CHARS = 40  # a label of a row of a small lookup table (Suite, 普通預金) is short


def _label_column(table: Table) -> Column | None:
    """The text column that labels the rows of a lookup table that has no name (room_types: code STE,
    description Suite): one whose values differ row to row and are short, words before a code."""
    keys = set(table.primary_key) | {c for fk in table.foreign_keys for c in fk.columns}
    found = [c for c in table.columns
             if c.kind == "text" and c.name not in keys and c.samples and len(set(c.samples)) == len(c.samples)
             and all(len(v) <= _LABEL_CHARS for v in c.samples) and not (set(concept_words(c.name)) & _NOT_LABELS)
             and not (c.samples and all(_ANY_UUID.fullmatch(v) for v in c.samples))]
    return min(found, key=lambda c: (bool(code_pattern(c.samples)) or "code" in concept_words(c.name),
                                     table.columns.index(c)), default=None)


def _family_first(family: Column) -> bool:
    """Whether names are said family name first: where the columns are named in Japanese or romaji (姓, sei)."""
    return bool(_ja_name(family)) or concept_words(family.name) != words(family.name)


def group_columns(table: Table) -> list[Column]:
    """The text columns of a table that name a thing its rows share, beyond its enums: a product, a city,
    a composer, of 40 or 4,000 values (a summary ranks them and cuts to the top ones). Not a key, not a
    name of the row itself (a customer's own name, a part of a person's name), not text that describes or
    reaches a row (a description, an address, an email), not a column of unique values."""
    keys = set(table.primary_key) | {c for fk in table.foreign_keys for c in fk.columns}
    noun = set(concept_words(table.name))
    out = []
    for c in table.columns:
        if c.kind != "text" or c.values is not None or c.name in keys or repeats(c, table) is False:
            continue
        role, cw = name_role(c), set(concept_words(c.name))
        if role in ("full", "family", "given", "reading") or (role == "name" and cw - _NAME_WORDS <= noun):
            continue
        if cw & _NOT_THINGS or not cw or (c.samples and all(_ANY_UUID.fullmatch(s) for s in c.samples)):
            continue
        out.append(c)
    return out


def amount_columns(table: Table) -> list[Column]:
    """The additive measures a drafted tool sums (`measures.additive_columns`): money amounts, then pieces."""
    return measures.additive_columns(table)


def date_columns(table: Table) -> list[Column]:
    """The date columns that hold dates, the event dates first (`measures.event_date`: ordered_at before
    last_update and a birth date), those named as the date of a sale or an order before others."""
    dates = [c for c in table.columns if c.is_date and c.first is not None]
    return sorted(dates, key=lambda c: (not measures.event_date(c), _stamp(c),
                                        next((i for i, w in enumerate(_DATE_WORDS) if w in words(c.name)), 99)))


_STAMP_WORDS = {"created", "inserted", "updated", "at", "on", "date", "time", "timestamp"}


def _stamp(col: Column) -> bool:
    """Whether a date is when the row was written (an ORM's createdAt): after any date of what the row records
    (a booking's scheduledFor), first only where there is none (an order's created_at)."""
    ws = set(words(col.name))
    return bool(ws & {"created", "inserted"}) and ws <= _STAMP_WORDS


def enum_columns(table: Table) -> list[Column]:
    fks = {c for fk in table.foreign_keys for c in fk.columns}
    return [c for c in table.columns if c.values is not None and c.name not in fks and not _person_part(c)
            and not _remark(c)]


_JA_REMARKS = ("備考", "摘要", "メモ", "コメント", "特記", "説明", "注記", "連絡事項")
_REMARKS = {"note", "notes", "memo", "comment", "comments", "remark", "remarks", "description", "desc"}


def _remark(col: Column) -> bool:
    """Whether a column holds what someone wrote about a row (a note, 備考): never a value to filter by, however
    few the notes (次回カラー希望 is no kind of visit)."""
    return bool(set(concept_words(col.name)) & _REMARKS) or any(w in _ja_name(col) for w in _JA_REMARKS)


def code_pattern(samples: tuple[str, ...]) -> str | None:
    """A pattern every sampled key fits and a request can't say by accident: UUIDs, prefixed codes
    (C-0012), fixed-width numbers of 4 digits or more; else a shape all keys share that ordinary words do
    not have (`_shape`: ALFKI, AB-001); else None (the key is not read from requests)."""
    if not samples:
        return None
    if all(_UUID.fullmatch(s) for s in samples):
        return r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    found = [_CODE.fullmatch(s) for s in samples]
    if not all(found):
        return _shape(samples)
    prefixes = {m["prefix"] for m in found if m}
    widths = sorted({len(m["digits"]) for m in found if m})
    if len(prefixes) != 1:
        return _shape(samples)
    prefix = prefixes.pop()
    if not prefix and (len(widths) != 1 or widths[0] < 4):
        return None
    digits = rf"\d{{{widths[0]}}}" if len(widths) == 1 else rf"\d{{{widths[0]},{widths[-1] + 2}}}"
    return f"^{re.escape(prefix)}{digits}$"


SHAPE_MIN_SAMPLES = 3  # fewer keys say nothing about the shape they share
_LETTERS_MIN = 4  # upper-case keys shorter than this are words people write in capitals (UK, USA, TOP)
_RUN = re.compile(r"[A-Z]+|[a-z]+|[0-9]+|[-_/.#]")


def _shape(samples: tuple[str, ...]) -> str | None:
    """The one shape every key has, where ordinary words have none like it: upper-case Latin letters of one
    length of 4 or more (ALFKI), or runs of letters and digits of fixed lengths with the same separators
    (AB-001, x12y). Lower-case letters alone, mixed case and spaces are how words are written: None."""
    if len(samples) < SHAPE_MIN_SAMPLES or len({len(s) for s in samples}) != 1:
        return None
    shapes = {tuple(_runs(s)) for s in samples}
    if len(shapes) != 1 or not all("".join(m.group() for m in _RUN.finditer(s)) == s for s in samples):
        return None
    runs = shapes.pop()
    kinds = {k for k, _ in runs}
    if kinds == {"A"} and len(runs) == 1 and runs[0][1] >= _LETTERS_MIN:
        return f"^[A-Z]{{{runs[0][1]}}}$"
    if "9" not in kinds or not kinds & {"A", "a"}:
        return None
    parts = {"A": "[A-Z]", "a": "[a-z]", "9": r"\d"}
    return "^" + "".join(f"{parts[k]}{{{n}}}" if k in parts else re.escape(k) for k, n in runs) + "$"


def _runs(sample: str) -> list[tuple[str, int]]:
    """ab-12 -> [(a, 2), (-, 1), (9, 2)]: each run of one kind of character and its length."""
    out = []
    for m in _RUN.finditer(sample):
        run = m.group()
        kind = "A" if run.isupper() else "a" if run.isalpha() else "9" if run.isdigit() else run
        out.append((kind, len(run)))
    return out


def letters_only(pattern: str) -> bool:
    """Whether a key pattern is letters alone (ALFKI), a shape a word written in capitals has too."""
    return re.fullmatch(r"\^\[A-Z\]\{\d+\}\$", pattern) is not None
