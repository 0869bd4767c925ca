"""The shape of a catalog file: what a tool declaration may say.

A catalog is YAML. Its keys are documented in docs/catalog.md; the models
below are the single definition of which keys exist (unknown keys are
rejected, so a typo never silently drops a setting).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,63}$"
IDENTITY_PARAMS = ("_user", "_role", "_all_rows", "_today", "_now", "_session", "_caller")
SQL_PARAM = re.compile(r"(?<![:\w]):([A-Za-z_][A-Za-z0-9_]*)")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Text(Strict):
    """A text in both languages the product speaks."""

    ja: str = Field(min_length=1)
    en: str = Field(min_length=1)

    def get(self, lang: str) -> str:
        return self.ja if lang == "ja" else self.en


class DateBounds(Strict):
    """Bounds of a date parameter.

    ``min``/``max`` are ISO dates or ``today``; ``query`` returns one row of
    two columns (first date, last date) taken from the data itself.
    """

    min: str | None = None
    max: str | None = None
    query: str | None = None


Where = dict[str, str | int | list[str | int]]  # field -> the value, or the values, a kept row has


class HttpCall(Strict):
    """A GET (or other call) whose rows list an enum's values (docs/catalog.md, "Enums read from a web API")."""

    source: str | None = None  # default: the tool's source
    method: Literal["GET", "POST"] = "GET"
    path: str
    query: dict[str, str | int] = Field(default_factory=dict)
    rows: str | list[str] = "$"
    where: Where = Field(default_factory=dict)


class EnumSource(Strict):
    values: list[str] | None = None
    query: str | None = None
    http: HttpCall | None = None
    value: str | None = None  # http: the field that is the value said
    id: str | None = None  # http: the field sent in its place
    ttl: int = Field(default=60, ge=0, le=86_400)  # http: seconds the values are kept
    synonyms: dict[str, str] = Field(default_factory=dict)
    # More synonyms read from the data with `query`'s: rows of (what is said, the value), e.g. English names
    synonyms_query: str | None = None
    # The values that name more than one row (two customers both named 佐藤): rows of (the value, the key of one
    # row it names). Such a value is refused with those keys, to be given in `shared_param` instead.
    shared_query: str | None = None
    shared_param: str | None = None
    # The values each value of another parameter takes (a drink comes large as Lサイズ, a bowl as 大盛り): rows of
    # (`fits_param`'s value, a value of this enum it takes). A synonym said of a value it does not take is read as
    # the one it takes that the synonym's words also name (large: 大盛り, large size: Lサイズ).
    fits_query: str | None = None
    fits_param: str | None = None

    @property
    def key(self) -> str:
        """What the values read for this enum are filed under (`GuardContext.enum_values`): the SQL
        query, or the HTTP call; "" for fixed values."""
        if self.query is not None:
            return self.query
        if self.http is not None:
            call = self.http
            return (f"http:{call.source or ''}:{call.method} {call.path}?{sorted(call.query.items())}"
                    f"#{call.rows}|{sorted(call.where.items())}|{self.value}|{self.id}")
        return ""


# --- what the offline planner reads (docs/planner.md) -------------------------------------------
class Lookup(Strict):
    """Find the value from a name: call `tool` with the name as `arg`, read `column` of its rows."""

    tool: str
    arg: str
    column: str


class CodeExtract(Strict):
    """A value written as the parameter's `pattern` (0009, S20250422101931).

    `labels` are words said just before it (顧客コード, customer); `refer` are the nouns by which a
    later request points back at it (そのお客様, that customer); `named` are values said by a name
    (赤: 255:0:0, red: 255:0:0).
    """

    kind: Literal["code"]
    labels: list[str] = Field(default_factory=list)
    refer: list[str] = Field(default_factory=list)
    lookup: Lookup | None = None
    named: dict[str, str] = Field(default_factory=dict)


class DateExtract(Strict):
    """One end of a period said in words (先週, last month), or one day (昨日).

    `words` mark a date other than the tool's default one (shipped_date beside order_date): the period fills
    these parameters only where the request says one of the words (shipped, 出荷), and the default ones then
    stay empty. `event` names what the default date records (受付, received): a value of a status said as done
    with the period (今月受付した修理) is that date's event, not a status asked for besides.
    """

    kind: Literal["date"]
    part: Literal["start", "end", "day"]
    period: Literal["current", "previous"] = "current"
    words: list[str] = Field(default_factory=list)
    event: list[str] = Field(default_factory=list)


class EnumExtract(Strict):
    """One of the enum's values, or a synonym (the enum's own, plus these phrases)."""

    kind: Literal["enum"]
    synonyms: dict[str, str] = Field(default_factory=dict)


class NameExtract(Strict):
    """A person's name: before an honorific (佐藤さん, 山田様), after Mr/Ms, or capitalised (John Smith)."""

    kind: Literal["name"]
    labels: list[str] = Field(default_factory=list)


class AmountExtract(Strict):
    """A sum of money: 1,500円, 450 yen, ¥1500."""

    kind: Literal["amount"]


class ItemsExtract(Strict):
    """Goods and quantities as said: キュウリ10本とナス5個, 12 eggplants."""

    kind: Literal["items"]
    counters: list[str] = Field(default_factory=list)  # added to the usual ones (個, 本, kg ...)


class TimeExtract(Strict):
    """A time of day as said (18時半, 6:30 pm, 午後7時), given as HH:MM."""

    kind: Literal["time"]


class Current(Strict):
    """Where a parameter's present value is read (a light's brightness): a read tool taking the write's other
    arguments, and the column of its result."""

    tool: str
    column: str


class Relative(Strict):
    """A level said against the one it has (もう少し暗く, a bit brighter, the next channel): `step` up or down
    from its last value in the conversation, else from the parameter's `current` read first; `up` and `down`
    are the words."""

    step: int = Field(ge=1)
    up: list[str] = Field(min_length=1)
    down: list[str] = Field(min_length=1)


class CountExtract(Strict):
    """How many: the number after a cue (トップ5, top 3), or before a unit (30%, 4チャンネル); 1 after a
    superlative (いちばん, the worst); a number said by a word (`said`: 半分: 50, 最大: 100, max: 100);
    a level said against the one it has (`relative`)."""

    kind: Literal["count"]
    cues: list[str] = Field(min_length=1)
    one: list[str] = Field(default_factory=list)
    units: list[str] = Field(default_factory=list)
    said: dict[str, int] = Field(default_factory=dict)
    relative: Relative | None = None


Extract = Annotated[
    CodeExtract | DateExtract | EnumExtract | NameExtract | AmountExtract | ItemsExtract | CountExtract | TimeExtract,
    Field(discriminator="kind"),
]
EXTRACT_TYPES = {  # extract kind -> the parameter types it can fill
    "code": ("string", "integer"), "date": ("date",), "enum": ("enum",), "name": ("string",),
    "amount": ("integer",), "items": ("string",), "count": ("integer",), "time": ("string",),
}


class Intents(Strict):
    """When the planner chooses a tool: `keywords` ask for it; `topics` name its subject and count
    only when no tool's keyword is said; `examples` are requests it answers (the nearest breaks ties)."""

    keywords: list[str] = Field(min_length=1)
    topics: list[str] = Field(default_factory=list)
    examples: list[str] = Field(default_factory=list)


class Param(Strict):
    type: Literal["string", "integer", "date", "enum"]
    description: Text
    required: bool = False
    nullable: bool = False
    default: Any = None
    min: int | None = None
    max: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    # `contains`: the value matches anywhere, literally (LIKE wildcards in it are escaped)
    match: Literal["contains"] | None = None
    bounds: DateBounds | None = None
    enum: EnumSource | None = None
    extract: Extract | None = None  # how the offline planner finds the value in a request
    current: Current | None = None  # where its present value is read (もう少し暗く, キッチンと同じ色に)


class Check(Strict):
    """A precondition: the query must return a row, or the call ends with `error`.

    `implied_by_rows` (read tools): any row of the tool's own statement proves the check holds, so it
    runs only when the statement returns none (to tell "no such customer" from "no sales")."""

    sql: str
    code: Literal["not_found"] = "not_found"
    message: Text
    implied_by_rows: bool = False
    offer: str | None = None  # a query whose rows come with the error: what the caller could have instead


class Generated(Strict):
    kind: Literal["unique_code"]
    prefix: str = ""


class ChangeSummary(Strict):
    """Compare two amounts per row: totals, change, percent, top decreases/increases."""

    kind: Literal["change"]
    key: str
    current: str
    previous: str
    top: int = Field(default=3, ge=1, le=20)


Summary = Annotated[ChangeSummary, Field(discriminator="kind")]


CURRENCY_PATTERN = r"^[A-Z]{3}$"  # an ISO 4217 code: JPY, USD, EUR


class ResultShape(Strict):
    # http tools (docs/catalog.md, "Shaping the answer"): where the rows or the one object are in the JSON
    rows: str | list[str] | None = None
    object: str | None = None
    columns: list[str] | dict[str, str] | None = None
    where: Where = Field(default_factory=dict)
    numbers: list[str] = Field(default_factory=list)  # http: columns whose text ("1200000") is read as a number
    max_rows: int = Field(default=200, ge=1, le=10_000)
    totals: dict[str, Literal["sum", "min", "max"]] = Field(default_factory=dict)
    summary: Summary | None = None
    labels: dict[str, Text] = Field(default_factory=dict)  # column -> its name in words, for answers
    # docs/catalog.md, "Money and decimals": columns that are amounts of money, and how many decimal places a
    # column keeps (a NUMERIC(10, 2)'s 2); the currency of the money columns, else the catalog's
    money: list[str] = Field(default_factory=list)
    decimals: dict[str, Annotated[int, Field(ge=0, le=12)]] = Field(default_factory=dict)
    currency: str | None = Field(default=None, pattern=CURRENCY_PATTERN)


# --- answer templates (docs/catalog.md, "Answer templates") -------------------------------------
# `{name}` or `{name:format}`; `[...]` is a segment left out when a placeholder in it has no value.
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)?)(?::([^{}]*))?\}")
SUMMARY_KEYS = ("current_total", "previous_total", "change", "change_pct", "top_decreases", "top_increases")
FORMATS = ("md", "day", "signed", "abs")  # and `?value=text|...` (a choice by value or sign)


def placeholders(template: str) -> list[tuple[str, str]]:
    """The (name, format) of every placeholder of a template, in order."""
    return [(m.group(1), m.group(2) or "") for m in PLACEHOLDER.finditer(template)]


def template_problem(template: str) -> str | None:
    """What is wrong with a template's syntax (braces, segments, formats), or None."""
    rest = PLACEHOLDER.sub("", template)
    if "{" in rest or "}" in rest:
        return "a { or } that is not a placeholder {name} or {name:format}"
    depth = 0
    for ch in rest:
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if depth not in (0, 1):
            return "segments [...] do not nest and every [ is closed by ]"
    if depth:
        return "a [ that is not closed by ]"
    for name, fmt in placeholders(template):
        if fmt and fmt not in FORMATS and not fmt.startswith("?"):
            return f"{{{name}:{fmt}}}: unknown format; formats are {', '.join(FORMATS)} or ?value=text|..."
    return None


class Answer(Strict):
    """Sentences of the offline planner's answer for one tool, per outcome (docs/catalog.md)."""

    ask: Text | None = None  # asked when a request for the tool gives none of the values it needs (何になさいますか？)
    ok: Text | None = None  # rows found
    one: Text | None = None  # exactly one row found (else `ok`)
    empty: Text | None = None  # no row found
    row: Text | None = None  # one row, for {rows}
    item: Text | None = None  # one entry of a summary list ({summary.top_decreases})
    confirm: Text | None = None  # a write's preview, nothing written yet
    done: Text | None = None  # a write that was registered
    each: Text | None = None  # one of several writes one request made, for {each} of `several`
    several: Text | None = None  # several writes of one request, in one sentence (else `done` for each)
    refused: Text | None = None  # the call was refused ({message} says why)
    error: Text | None = None  # the call failed ({message} says why)


# --- web APIs (docs/catalog.md, "Web APIs: kind: http sources and tools") ------------------------
class StatusRule(Strict):
    outcome: Literal["not_found", "error"]
    message: Text


class StatusMap(Strict):
    """How a service's answer says ok / not found / error: its HTTP status and a code in its JSON."""

    field: str | None = None
    ok: list[str | int] = Field(default_factory=list)
    codes: dict[str | int, StatusRule] = Field(default_factory=dict)
    http: dict[int, StatusRule] = Field(default_factory=dict)


class BearerAuth(Strict):
    kind: Literal["bearer"]
    token: str


class HeaderAuth(Strict):
    kind: Literal["header"]
    name: str = Field(min_length=1)
    value: str


class SwitchBotAuth(Strict):
    kind: Literal["switchbot"]
    token: str
    secret: str


class OAuth2ClientCredentialsAuth(Strict):
    """OAuth 2.0 client credentials (RFC 6749 4.4): concierge asks `token_url` for an access token itself."""

    kind: Literal["oauth2_client_credentials"]
    token_url: str
    client_id: str
    client_secret: str
    scope: str | None = None
    client_auth: Literal["basic", "post"] = "basic"  # HTTP Basic (client_secret_basic) or form fields (_post)


class OAuth2AuthorizationCodeAuth(Strict):
    """OAuth 2.0 authorization code with PKCE: a person consents once (`concierge services authorize SOURCE`);
    the refresh token is kept sealed in the state database and access tokens come from it."""

    kind: Literal["oauth2_authorization_code"]
    authorize_url: str
    token_url: str
    client_id: str
    client_secret: str | None = None  # none: a public client (PKCE alone)
    scope: str | None = None
    client_auth: Literal["basic", "post"] = "basic"
    redirect_port: int | None = Field(default=None, ge=1, le=65535)  # the loopback port registered; none: any


Auth = Annotated[BearerAuth | HeaderAuth | SwitchBotAuth | OAuth2ClientCredentialsAuth | OAuth2AuthorizationCodeAuth,
                 Field(discriminator="kind")]
SECRET_FIELDS = ("token", "secret", "value", "client_secret")  # of an auth: written as ${NAME}, never shown


class HttpSource(Strict):
    """A web API. `${NAME}` / `${NAME:-default}` in base_url, headers and auth read the environment."""

    kind: Literal["http"]
    base_url: str
    timeout: float = Field(default=10, gt=0, le=120)
    headers: dict[str, str] = Field(default_factory=dict)
    auth: Auth | None = None
    status: StatusMap | None = None


class SqlSource(Strict):
    kind: Literal["sql"]


Source = Annotated[HttpSource | SqlSource, Field(discriminator="kind")]


class Pages(Strict):
    """A read whose answer comes in pages (`http.pages`): the request is sent with `{offset:number}` 0, size,
    2 × size ... and `{limit:number}` size until a page has fewer than `size` rows; more than `max` pages is an
    error (narrow the request), never a part of the rows taken for all of them."""

    size: int = Field(ge=1, le=10_000)
    max: int = Field(default=10, ge=1, le=1_000)
    offset: str = Field(default="offset", pattern=NAME_PATTERN)
    limit: str = Field(default="limit", pattern=NAME_PATTERN)


class HttpRequest(Strict):
    """An http tool's request; `{param}` values are inserted whole, as typed JSON values."""

    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "GET"
    path: str = Field(min_length=1)
    query: dict[str, str | int | float | bool] = Field(default_factory=dict)
    body: Any = None
    repeat: str | None = None
    pages: Pages | None = None


class Rollup(Strict):
    """A summary table the database keeps beside `table` (docs/catalog.md, "Rollups"): one row per distinct
    `group_by`, with the sums of `sums` and how many rows of `table` it sums; kept current by triggers."""

    table: str = Field(pattern=NAME_PATTERN)
    group_by: list[Annotated[str, Field(pattern=NAME_PATTERN)]] = Field(min_length=1)
    sums: list[Annotated[str, Field(pattern=NAME_PATTERN)]] = Field(min_length=1)


class ToolRollup(Strict):
    """A read tool's statement over one of the catalog's rollups, used instead of `sql` when every parameter
    it leaves out (the grain it cannot answer) is null, every parameter under `only` takes one of the values
    listed (a summary by product, not by store), and the rollup is current."""

    table: str
    sql: str
    only: dict[str, list[str]] = Field(default_factory=dict)


class AiInstruction(Strict):
    success: str | None = None
    empty: str | None = None
    error: str | None = None


class Tool(Strict):
    name: str = ""  # filled from the key by the loader
    catalog: str = ""
    description: Text
    mode: Literal["read", "write"] = "read"
    roles: list[str] = Field(min_length=1)
    params: dict[str, Param] = Field(default_factory=dict)
    ordered: list[tuple[str, str]] = Field(default_factory=list)
    checks: list[Check] = Field(default_factory=list)
    sql: str = ""  # a SQL tool's statement (required unless `source` names an http source)
    then: list[str] = Field(default_factory=list)  # a write's further statements, in its one transaction
    rollup: ToolRollup | None = None
    source: str | None = None  # a name under the catalog's `sources`; None: the business database
    http: HttpRequest | None = None
    status: StatusMap | None = None
    confirm: bool = False
    preview_sql: str | None = None
    generated: dict[str, Generated] = Field(default_factory=dict)
    result: ResultShape = Field(default_factory=ResultShape)
    ai_instruction: AiInstruction | None = None
    answer: Answer | None = None  # the offline planner's sentences for its results
    intents: Intents | None = None  # when the offline planner chooses this tool


class Role(Strict):
    all_rows: bool = True


class Lines(Strict):
    """The write tools that edit the lines of the state (an order's items): the offline planner reads
    「それ2つに」, 「コーラをオレンジジュースに変えて」 and 「一つ減らして」 against the lines the state holds
    (docs/catalog.md, "Rules")."""

    add: str
    change: str | None = None
    remove: str | None = None
    place: str | None = None  # the confirmed write that turns the lines into a record: a yes after a read-back


class Rules(Strict):
    """When to call which tool, in both languages, and the read tool whose result is the conversation's state
    (the current order): both added to the newest user message every turn (docs/catalog.md, "Rules")."""

    when: list[Text] = Field(default_factory=list)
    state: str | None = None
    needs: list[str] = Field(default_factory=list)  # columns of the state still to fill: said as missing while empty
    lines: Lines | None = None


class CatalogFile(Strict):
    catalog: str = Field(pattern=NAME_PATTERN)
    description: Text
    demo: str | None = None  # the name of the demo plug-in whose tables this catalog reads
    demo_today: str | None = None
    demo_time: str | None = None  # HH:MM, the time of day of the demo's clock (`:_now`)
    currency: str | None = Field(default=None, pattern=CURRENCY_PATTERN)  # of every tool's `result.money`
    roles: dict[str, Role]
    sources: dict[str, Source] = Field(default_factory=dict)
    tools: dict[str, Tool]
    rules: Rules | None = None
    rollups: dict[Annotated[str, Field(pattern=NAME_PATTERN)], Rollup] = Field(default_factory=dict)
    # Keys (tools.NAME.description, tools.NAME.params.P.description, tools.NAME.intents ...) whose text
    # `concierge init` drafted and a person has not reviewed yet: `concierge catalog check` lists them.
    review: list[str] = Field(default_factory=list)
