"""What every tool call returns, and the shaping a tool declares for it.

A result is one of four kinds, told by its `status`: `Rows` (ok: what a call found or wrote), `Confirmation`
(confirm: a write that waits for the user's yes), `Refusal` (refused: nothing ran) and `Failure` (error: the
call ran and failed). `ToolResult` is their union; readers narrow it with `isinstance` (or `match`) to read what
only one kind has. Every wire (stored conversations, the audit, the model's, MCP's, the CLI's) writes each kind in
one flat layout, as results have always been written: every key of every kind, in one order, with the empty
value of a key its kind does not have (`to_json`; `wire_schema` is its JSON schema).

Totals, changes and percentages are computed here, by the tool, so that no
model ever has to do arithmetic on the rows.

Numbers stay exact: a sum over rows adds their decimal values (0.99 + 1.99 is 2.98, never
2.9800000000000004), and a column a tool declares as money or with decimal places (`result.money`,
`result.decimals`) is rounded to them, rows and totals alike, also where the database summed floats
(SQLite keeps NUMERIC values as floats). JSON carries them as numbers; `money` and `currency` say
which are amounts of money and how many decimals they are shown with, and `Rows.shown_rows` and
`Rows.shown_totals` hand renderers each such amount as a `Money`, which writes itself (81.24, $81.24, 1,234円).
"""

from __future__ import annotations

import copy
import os
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    SkipValidation,
    TypeAdapter,
    field_validator,
    model_serializer,
)

from concierge.catalog.model import ChangeSummary, ResultShape, Tool
from concierge.errors import ResultCode

Status = Literal["ok", "refused", "error", "confirm"]


_IDS = random.Random()  # seeded by the OS, once per process (and again in a forked child): no system call per id
os.register_at_fork(after_in_child=_IDS.seed)


def new_result_id() -> str:
    """The id of a call's result and audit line, to find one from the other: 40 random bits, never a secret."""
    return f"r_{_IDS.getrandbits(40):010x}"


# The rows of a result, taken as given: shaping makes them JSON-ready dicts, and stored results are our own JSON
# (validating each row again cost a read of a few rows as much as the rest of its result).
RowList = SkipValidation[list[dict[str, Any]]]


_ASK_AGAIN_JA = "もう一度依頼して、表示された内容を確かめてから確定してください。"
_RETRY_JA = "処理できませんでした。少し時間をおいてもう一度依頼してください。"
# Why a confirmation token no longer works (pipeline/confirm.py), in words for a person.
_CONFIRMATION_JA = (
    ("already used", "この確認はすでに使われ、登録は済んでいます。同じ内容をもう一度なら改めて依頼してください。"),
    ("expired", "確認の期限が切れました。" + _ASK_AGAIN_JA),
    ("different call", "確認した内容と違う登録です。" + _ASK_AGAIN_JA),
)
_BY_CODE_JA = {
    ResultCode.UNKNOWN_TOOL: "その操作はここではできません。できることを聞いてから、もう一度依頼してください。",
    ResultCode.BAD_ARGUMENT: "指定された値が使えません。値を確かめてもう一度依頼してください。",
    ResultCode.NOT_PERMITTED: "この操作を行う権限がありません。必要なら管理者に権限を頼んでください。",
    ResultCode.NOT_FOUND: "該当するものが見つかりません。値を確かめてもう一度依頼してください。",
    ResultCode.CONFIRMATION_INVALID: "この確認は使えません。" + _ASK_AGAIN_JA,
}


def _japanese_by_code(code: ResultCode | None, message: str) -> str:
    if code == ResultCode.CONFIRMATION_INVALID:
        for words, text in _CONFIRMATION_JA:
            if words in message:
                return text
    return _BY_CODE_JA.get(code, _RETRY_JA) if code is not None else _RETRY_JA


# ISO 4217 currencies: the decimals an amount is shown with, and the signs written before and after it.
# Any other code is shown with 2 decimals and the code after the amount (12.50 CHF).
CURRENCIES: dict[str, tuple[int, str, str]] = {
    "JPY": (0, "", "円"), "USD": (2, "$", ""), "EUR": (2, "€", ""), "GBP": (2, "£", ""), "CNY": (2, "CN¥", ""),
    "KRW": (0, "₩", ""), "TWD": (0, "NT$", ""), "HKD": (2, "HK$", ""), "SGD": (2, "S$", ""), "AUD": (2, "A$", ""),
    "CAD": (2, "C$", ""), "INR": (2, "₹", ""),
}
MONEY_DECIMALS = 2  # an amount of no declared currency nor decimal places (a NUMERIC without a scale)


def currency_decimals(currency: str | None) -> int | None:
    """The decimals an amount in `currency` is shown with; None without a currency."""
    return None if currency is None else CURRENCIES.get(currency, (MONEY_DECIMALS, "", ""))[0]


@dataclass(frozen=True)
class Money:
    """An amount of money as an answer shows it: to its decimals (its currency's, else its column's), with
    the currency's sign; no sign without a currency (81.24, $81.24, 1,234円, -$5.00)."""

    amount: Decimal
    currency: str | None
    decimals: int

    def text(self, *, signed: bool = False) -> str:
        shown = self.amount.quantize(Decimal(1).scaleb(-self.decimals), rounding=ROUND_HALF_UP)
        before, after = ("", "") if self.currency is None else \
            CURRENCIES.get(self.currency, (0, "", f" {self.currency}"))[1:]
        sign = "-" if shown < 0 else "+" if signed and shown > 0 else ""
        return f"{sign}{before}{abs(shown):,.{self.decimals}f}{after}"

    def __str__(self) -> str:
        return self.text()

    def __abs__(self) -> Money:
        return Money(abs(self.amount), self.currency, self.decimals)


class Repeated(BaseModel):
    """A write of exactly the same values done a moment ago (its audit line): a preview points it out."""

    at: datetime
    result_id: str

    def minutes_ago(self) -> int:
        """How long ago, in whole minutes (at least 1)."""
        at = self.at if self.at.tzinfo else self.at.replace(tzinfo=UTC)
        return max(1, round((datetime.now(UTC) - at).total_seconds() / 60))


# The one layout every kind of result is written in: each key any kind has, in this order, with the value a kind
# that lacks it writes. Stored conversations, the audit and every channel have always read results so.
_LAYOUT: dict[str, Any] = {
    "result_id": None, "tool": None, "status": None, "code": None, "message": None, "message_ja": None,
    "param": None, "valid": None, "args": {}, "columns": [], "rows": [], "row_count": 0, "truncated": False,
    "totals": {}, "summary": None, "money": {}, "currency": None, "preview": None, "repeats": None,
    "ai_instruction": None, "ms": 0.0,
}


class BaseResult(BaseModel):
    """What every result has, of whatever kind. Its dumps (`to_json`, `model_dump`) are in the one layout of
    every result; a confirmation's token is never part of one, unless asked for (`to_json(with_token=True)`)."""

    result_id: str = Field(default_factory=new_result_id)
    tool: str
    status: Status
    args: dict[str, Any] = Field(default_factory=dict)
    message: str | None = None
    message_ja: str | None = None
    ai_instruction: str | None = None
    ms: float = 0.0
    # with read replicas: where a read ran, and why the primary ("read from the primary: replica ... is unreachable");
    # for the trace and the audit, never in what the model or a client is sent
    read_from: str | None = Field(default=None, exclude=True)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def is_error(self) -> bool:
        return self.status in ("refused", "error")

    @property
    def waits_for_confirmation(self) -> bool:
        return self.status == "confirm"

    def any_rows(self) -> list[dict[str, Any]]:
        """The rows the result carries, whatever its kind: what a read found or a write wrote, or what a failed
        check offers instead; none for the other kinds."""
        return []

    def any_row_count(self) -> int:
        """How many rows matched (of which `any_rows` holds at most the cap); 0 for a kind without rows."""
        return 0

    def to_json(self, *, with_token: bool = False, exclude_none: bool = False) -> dict[str, Any]:
        """The result as JSON values: the one serialisation of a result, for storage and every wire.
        `with_token`: a confirmation's token too (`Confirmation.to_json`), for the caller who sends it back."""
        return self.model_dump(mode="json", exclude_none=exclude_none)

    @model_serializer(mode="wrap")
    def _in_layout(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> dict[str, Any]:
        """The kind's own fields, with the keys of the other kinds (`_LAYOUT`), in the layout's order."""
        own: dict[str, Any] = handler(self)
        fields = type(self).model_fields
        fill = not (info.exclude_unset or info.exclude_defaults)
        out: dict[str, Any] = {}
        for key, empty in _LAYOUT.items():
            if key in own:
                out[key] = own[key]
            elif fill and key not in fields and not (empty is None and info.exclude_none) \
                    and (info.include is None or key in info.include) and not (info.exclude and key in info.exclude):
                out[key] = copy.copy(empty)
        return out | own


class Rows(BaseResult):
    """What a call found or wrote: rows (at most the cap), their count over all matching rows, totals (with
    `count`, which is row_count), a summary; `money` says which columns are amounts of money."""

    status: Literal["ok"] = "ok"
    columns: list[str] = Field(default_factory=list)
    rows: RowList = Field(default_factory=list)
    row_count: int = 0
    truncated: bool = False
    totals: dict[str, Any] = Field(default_factory=dict)
    summary: dict[str, Any] | None = None
    money: dict[str, int] = Field(default_factory=dict)  # money column -> the decimals it is shown with
    currency: str | None = None  # of the money columns (ISO 4217), where the catalog says

    def any_rows(self) -> list[dict[str, Any]]:
        return self.rows

    def any_row_count(self) -> int:
        return self.row_count

    def shown_rows(self) -> list[dict[str, Any]]:
        """The rows with each amount of a money column a `Money`, which a renderer writes as it is."""
        return [self.with_money(r) for r in self.rows] if self.money else self.rows

    def shown_totals(self) -> dict[str, Any]:
        """The totals but the count (which is row_count), each amount of a money column a `Money`."""
        return self.with_money({k: v for k, v in self.totals.items() if k != "count"})

    def with_money(self, values: dict[str, Any]) -> dict[str, Any]:
        """`values` (a row, totals) with each amount of a money column a `Money`."""
        return {k: self._money(k, v) for k, v in values.items()}

    def _money(self, column: str, value: Any) -> Any:
        if column not in self.money or isinstance(value, bool) or not isinstance(value, int | float):
            return value
        return Money(_decimal(value), self.currency, self.money[column])


class Confirmation(BaseResult):
    """A write that waits for the user's yes: nothing is written yet. `preview` is what it would write (with
    `repeats`, the same write done minutes ago); `message` is addressed to the model, `text(lang)` to the person
    who confirms; `confirmation_token` goes back with the yes."""

    status: Literal["confirm"] = "confirm"
    code: ResultCode | None = None  # PREVIEW_CHANGED: what a yes confirmed had changed; this is a new preview
    preview: dict[str, Any] = Field(default_factory=dict)
    repeats: Repeated | None = None
    confirmation_token: str | None = Field(default=None, exclude=True)

    @field_validator("preview", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return {} if value is None else value  # a stored preview of nothing (the flat layout wrote null)

    def text(self, lang: str = "en") -> str:
        """What the person who confirms is told."""
        if lang == "ja":
            return "まだ登録していません。内容を確かめて、よければ確定してください。"
        return "Nothing is registered yet. Check these values and confirm to register them."

    def to_json(self, *, with_token: bool = False, exclude_none: bool = False) -> dict[str, Any]:
        out = super().to_json(exclude_none=exclude_none)
        if with_token and self.confirmation_token is not None:
            out["confirmation_token"] = self.confirmation_token
        return out


class _Unsuccessful(BaseResult):
    """A refused call or a failed one: what is wrong (`code`, `text`)."""

    code: ResultCode | None = None

    def text(self, lang: str = "en") -> str:
        """The message in `lang`. A Japanese one the call did not carry (a permission, a confirmation that
        no longer works, an error of the system) is said in general words by its code, never in English."""
        said = self.message or self.status
        if lang != "ja":
            return said
        return self.message_ja or _japanese_by_code(self.code, said)


class Refusal(_Unsuccessful):
    """A call refused before anything ran (an unknown tool, a bad argument, no permission, a confirmation
    that no longer works): the argument at fault (`param`) and what would be valid."""

    status: Literal["refused"] = "refused"
    param: str | None = None
    valid: dict[str, Any] | None = None


class Failure(_Unsuccessful):
    """A call that ran and failed (not found, a source that could not answer); where a check of the tool failed,
    the rows it offers instead (the customers there are ...)."""

    status: Literal["error"] = "error"
    columns: list[str] = Field(default_factory=list)
    rows: RowList = Field(default_factory=list)
    row_count: int = 0

    def any_rows(self) -> list[dict[str, Any]]:
        return self.rows

    def any_row_count(self) -> int:
        return self.row_count


# What every tool call returns, whoever called it: the kind of result its `status` says.
ToolResult = Annotated[Rows | Confirmation | Refusal | Failure, Field(discriminator="status")]

_RESULT: TypeAdapter[ToolResult] = TypeAdapter(ToolResult)
_KINDS: tuple[type[BaseResult], ...] = (Rows, Refusal, Failure, Confirmation)  # in the order of `Status`


def from_json(data: Any) -> ToolResult:
    """A result from its JSON (`to_json`, a stored conversation): the kind its `status` says."""
    return _RESULT.validate_python(data)


_WIRE_DOC = """What every tool call returns, whoever called it: `status` says which kind of result it is (ok: rows;
confirm: a preview that waits for the user's yes; refused, error: what is wrong). Each kind fills the keys it has.

The confirmation token is never part of a dump (`to_json`, `model_dump`): only the MCP channel, whose
caller must send it back, adds it on purpose (`to_json(with_token=True)`)."""


def wire_schema() -> dict[str, Any]:
    """The JSON schema of a result as `to_json` writes it, whatever its kind: one object with every key of the
    layout, each with the schema of the kinds that have it, and `status` one of the kinds'."""
    schemas = [kind.model_json_schema() for kind in _KINDS]
    defs = {name: d for s in schemas for name, d in s.get("$defs", {}).items()}
    properties = {key: next(s["properties"][key] for s in schemas if key in s["properties"]) for key in _LAYOUT}
    properties["status"] = {"enum": [kind.model_fields["status"].default for kind in _KINDS], "type": "string"}
    required = [k for k in _LAYOUT if k == "status" or all(k in s.get("required", ()) for s in schemas)]
    schema: dict[str, Any] = {"description": _WIRE_DOC, "properties": properties, "required": required,
                              "title": "ToolResult", "type": "object"}
    return {**schema, "$defs": defs} if defs else schema


def plain(value: Any) -> Any:
    """A JSON-ready version of a database value: a result holds nothing a JSON encoder refuses
    (a uuid, an interval, bytes, an address, an array of them ...)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return str(value)


_AS_IS = frozenset({str, bool, int, float, type(None)})  # the types whose values `plain` hands back unchanged


def plain_rows(columns: list[str], rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    """Database rows as dicts of JSON-ready values (`plain`); a row of such values only is taken as it is."""
    return [dict(zip(columns, r if _AS_IS.issuperset(map(type, r)) else map(plain, r), strict=True)) for r in rows]


def plain_args(args: dict[str, Any]) -> dict[str, Any]:
    return {k: plain(v) for k, v in args.items()}


def shaped(tool: Tool, args: dict[str, Any], columns: list[str], rows: list[dict[str, Any]],
           counted: dict[str, Any] | None = None) -> Rows:
    """The result of a call that ran: its rows shaped as the tool declares, with the tool's instruction."""
    instruction = None
    if tool.ai_instruction:
        instruction = tool.ai_instruction.success if rows else tool.ai_instruction.empty
    return Rows(tool=tool.name, args=plain_args(args), columns=columns, ai_instruction=instruction,
                **shape(rows, tool.result, counted=counted))


def shape(rows: list[dict[str, Any]], spec: ResultShape, *, counted: dict[str, Any] | None = None) -> dict[str, Any]:
    """Rows capped at `max_rows`, plus totals and summaries over *all* matching rows.

    Either `rows` are all the matching rows, and the count and totals are computed here; or they stop
    at the cap (`max_rows` + 1 rows fetched) and `counted` holds the count and totals the database
    computed over all of them (`totals_sql`). Declared money and decimal columns are rounded (`rounded`).
    """
    places = _places(spec)
    if places:
        rows = [{k: _round(v, places[k]) if k in places else v for k, v in r.items()} for r in rows]
    if counted is not None:
        totals: dict[str, Any] = dict(counted)
        row_count = totals["count"]
    else:
        totals = {"count": len(rows)}
        row_count = len(rows)
        for column, how in spec.totals.items():
            values = [r[column] for r in rows if r.get(column) is not None]
            if how == "sum":
                totals[column] = rounded(_exact_sum(values), column, spec)
            elif values:
                totals[column] = min(values) if how == "min" else max(values)
    summary = _change_summary(rows, spec.summary) if spec.summary else None
    return {
        "rows": rows[: spec.max_rows],
        "row_count": row_count,
        "truncated": row_count > spec.max_rows,
        "totals": totals,
        "summary": summary,
        "money": {c: money_decimals(c, spec) for c in spec.money},
        "currency": spec.currency if spec.money else None,
    }


def money_decimals(column: str, spec: ResultShape) -> int:
    """The decimals a money column is shown with: its currency's, else its own (`decimals`), else 2."""
    found = currency_decimals(spec.currency)
    return found if found is not None else spec.decimals.get(column, MONEY_DECIMALS)


def rounded(value: Any, column: str, spec: ResultShape) -> Any:
    """A value of `column` as a result carries it: to the column's decimal places where it declares them,
    else a money column's to its currency's (or 2); any other float without the noise of float sums (to 15
    significant digits, all a float holds)."""
    places = _places(spec).get(column)
    if places is not None:
        return _round(value, places)
    if isinstance(value, float):
        return float(f"{value:.15g}")
    return value


def _places(spec: ResultShape) -> dict[str, int]:
    """Column -> the decimal places its values are rounded to in a result: its own (`decimals`), else a money
    column's currency's (or 2)."""
    money = currency_decimals(spec.currency)
    return {**dict.fromkeys(spec.money, MONEY_DECIMALS if money is None else money), **spec.decimals}


def _round(value: Any, places: int) -> Any:
    if isinstance(value, bool) or not isinstance(value, float | Decimal):
        return value
    return _number(_decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _decimal(value: int | float | Decimal) -> Decimal:
    """A number as the decimal it was written as (0.99, not 0.9899999999999999911182158029987...)."""
    return value if isinstance(value, Decimal) else Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def _number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _exact_sum(values: list[Any]) -> Any:
    """The sum of numbers as decimals add (0.99 + 1.99 = 2.98); whole numbers stay whole."""
    if all(isinstance(v, int) for v in values):
        return sum(values)
    try:
        return _number(sum((_decimal(v) for v in values), Decimal(0)))
    except (TypeError, InvalidOperation):
        return sum(values)


def needs_every_row(spec: ResultShape) -> bool:
    """A summary compares every row (top decreases ...); counts and totals alone the database computes."""
    return spec.summary is not None


def totals_sql(sql: str, columns: list[str], spec: ResultShape, quote: Callable[[str], str]) -> str:
    """The count and the declared totals of a tool's rows, computed by the database over all of them.

    The tool's own statement is the subquery, so its parameters bind as they do for the rows. A total
    of a column the statement does not return is 0 (sum) or left out (min, max), as `shape` does.
    """
    body = _body(sql)
    parts = ["COUNT(*) AS n"]
    for i, (column, how) in enumerate(spec.totals.items()):
        if column in columns:
            parts.append(f"{how.upper()}(q.{quote(column)}) AS t{i}")
    return f"SELECT {', '.join(parts)} FROM (\n{body}\n) AS q"


def capped_sql(sql: str, spec: ResultShape, *, wrapped: bool = True) -> str:
    """The tool's statement stopped by the database one row past the cap (which says there are more): wrapped in a
    query that limits it, or (`wrapped` False: it has no LIMIT of its own) with a LIMIT at its end."""
    if not wrapped:
        return f"{_body(sql)}\nLIMIT {spec.max_rows + 1}"
    return f"SELECT * FROM (\n{_body(sql)}\n) AS q LIMIT {spec.max_rows + 1}"


def _body(sql: str) -> str:
    return sql.strip().rstrip(";")


def counted_totals(row: Any, columns: list[str], spec: ResultShape) -> dict[str, Any]:
    """The row `totals_sql` returned, as `shape` reports totals: JSON-ready, a sum of nothing is 0."""
    totals: dict[str, Any] = {"count": int(row[0])}
    at = 1
    for column, how in spec.totals.items():
        if column not in columns:
            if how == "sum":
                totals[column] = 0
            continue
        value = plain(row[at])
        at += 1
        if how == "sum":
            totals[column] = rounded(value, column, spec) if value is not None else 0
        elif value is not None:
            totals[column] = rounded(value, column, spec)
    return totals


def _change_summary(rows: list[dict[str, Any]], spec: ChangeSummary) -> dict[str, Any]:
    current = sum(r[spec.current] or 0 for r in rows)
    previous = sum(r[spec.previous] or 0 for r in rows)
    changes = [
        {
            spec.key: r[spec.key],
            "change": (r[spec.current] or 0) - (r[spec.previous] or 0),
            spec.current: r[spec.current] or 0,
            spec.previous: r[spec.previous] or 0,
        }
        for r in rows
    ]
    decreases = sorted((c for c in changes if c["change"] < 0), key=lambda c: (c["change"], str(c[spec.key])))
    increases = sorted((c for c in changes if c["change"] > 0), key=lambda c: (-c["change"], str(c[spec.key])))
    change = current - previous
    return {
        "current_total": current,
        "previous_total": previous,
        "change": change,
        "change_pct": round(change * 100 / previous, 1) if previous else None,
        "top_decreases": decreases[: spec.top],
        "top_increases": increases[: spec.top],
    }
