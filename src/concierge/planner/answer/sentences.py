"""Sentences for a tool that declares no answer templates (a drafted catalog), built from the call's arguments,
the result's figures and labels, and the tool's noun, in the user's language.

- a count: "There are 59 customers." / 「顧客は全部で59件です。」 (the counter the question used: 何枚 -> 枚);
- rows: the same sentence, then the table;
- a summary's totals over a period: "In March 2009 there were 8 invoices, and their total comes to 71.28." /
  「2009年3月の請求書は8件、合計は71.28です。」;
- a ranking of one: "The customer with the highest total is Helena Holý (49.62)." /
  「合計がいちばん多い顧客はHelena Holý（49.62）です。」; of a few: "The top 3 customers by total: …";
- groups asked for (by customer): a sentence that says what they are, then the table.

A summary is a tool that groups (`group_by`) and can rank (`rank_by`, `top_n`), as `concierge init` drafts it
(docs/onboarding.md). Figures are quoted from the result (`row_count`, `totals`, the rows), never computed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from concierge.catalog.model import CodeExtract, CountExtract, DateExtract, EnumExtract, Tool
from concierge.planner import statuses
from concierge.planner.answer.scene import ROWS_IN_SENTENCE, Scene, label, periods
from concierge.planner.answer.texts import phrase
from concierge.planner.answer.values import number
from concierge.planner.measure import EACH_OF, HEADS_OF
from concierge.planner.nouns import Noun, noun
from concierge.planner.text import fold
from concierge.sources.result import Money

GROUP, RANK, TOP, GROUP_VALUE = "group_by", "rank_by", "top_n", "group_value"
_COUNT_OF = "count_of_"


def head(scene: Scene, counting: bool, counter: str | None) -> tuple[str, bool]:
    """The sentence that answers, and whether the rows follow as a table."""
    tool = scene.tool
    if tool is not None and scene.measure is not None and scene.measure.startswith(HEADS_OF):
        return _heads(scene, tool, counter), False
    if tool is not None and GROUP in tool.params and scene.rows and GROUP_VALUE in scene.rows[0]:
        return _summary(scene, tool)
    return _count(scene.row_count, scene, counter if counting else None), not counting and scene.row_count > 0


def none(scene: Scene) -> str:
    """No row matched: "There are no albums with artist AC/DC." / 「…のアルバムはありません。」"""
    what = noun(scene.tool)
    conds = _conditions(scene)
    if scene.lang == "ja":
        return f"{_ja_conditions(conds)}{what.ja}はありません（0件）。"
    return _cap(f"there are no {what.many}{_en_conditions(conds)}.")


def _count(n: int, scene: Scene, counter: str | None) -> str:
    what, conds = noun(scene.tool), _conditions(scene)
    if scene.lang == "ja":
        in_all = "全部で" if counter or not conds else ""
        return f"{_ja_conditions(conds)}{what.ja}は{in_all}{number(n)}{counter or '件'}です。"
    verb = "is" if n == 1 else "are"
    return _cap(f"there {verb} {number(n)} {what.said('en', n)}{_en_conditions(conds)}.")


def _heads(scene: Scene, tool: Tool, counter: str | None) -> str:
    """How many people the groups are (planner/headcount.py): 「先月のレッスンの生徒は全部で13人です。」; where the
    summary cut its groups at `top_n`, at least that many. A group with no name (rows whose person has no name, or
    none) is said with how many rows it holds: it is counted, and the answer says what it is."""
    group = scene.measure.removeprefix(HEADS_OF) if scene.measure else ""
    unnamed = next((row for row in scene.rows if row.get(GROUP_VALUE) is None), None)
    count_col = _count_column(tool, scene)
    rows_of_none = unnamed.get(count_col) if unnamed is not None and count_col else None
    top = scene.args.get(TOP)
    cut = isinstance(top, int) and scene.row_count >= top
    n = scene.row_count
    what, by, conds = noun(tool), _group_noun(tool, group, scene.lang), _conditions(scene)
    if scene.lang == "ja":
        said = f"{_ja_conditions(conds)}{what.ja}の{by}は{'' if cut else '全部で'}{number(n)}{counter or '人'}" \
               f"{'以上' if cut else ''}です。"
        return said + (f"{by}の名前がない{what.ja}{number(rows_of_none)}件の分を含みます。" if rows_of_none else "")
    people = by if n == 1 else f"{by}s"
    said = _cap(f"{'at least ' if cut else ''}{number(n)} {people} had {what.many}{_en_conditions(conds)}.")
    return said + (f" That counts the {number(rows_of_none)} {what.said('en', rows_of_none)} with no {by}'s name "
                   "as one." if rows_of_none else "")


def _summary(scene: Scene, tool: Tool) -> tuple[str, bool]:
    args, lang = scene.args, scene.lang
    group = args.get(GROUP)
    top = args.get(TOP)
    ranked = top is not None and top != tool.params[TOP].default if TOP in tool.params else False
    grouped = group is not None and (group != tool.params[GROUP].default or (scene.grouped and len(scene.rows) > 1))
    count_col = _count_column(tool, scene)
    what = noun(tool)
    if ranked and top == 1:
        measure = _ranked_by(tool, args, scene, count_col)
        tied = [r for r in scene.rows if r.get(measure) == scene.rows[0].get(measure)]  # the summary keeps ties
        return _first(tied, scene, tool, str(group), measure, count_col), len(tied) > ROWS_IN_SENTENCE
    if ranked and len(scene.rows) <= ROWS_IN_SENTENCE:  # the names said, their figures in the table
        return _top(scene.rows, scene, tool, str(group), _ranked_by(tool, args, scene, count_col), count_col,
                    int(top or 0) or len(scene.rows)), True
    if ranked or grouped:
        conds = _conditions(scene)
        by = _group_noun(tool, str(group), lang)
        if lang == "ja":
            return f"{_ja_conditions(conds)}{by}別の{what.ja}です。", True
        return _cap(f"{what.many} by {by}{_en_conditions(conds)}:"), True
    return _totals(scene, what, count_col), False


def _totals(scene: Scene, what: Noun, count_col: str | None) -> str:
    """The totals over the period and filters said: how many, and what each figure adds up to."""
    lang, tool = scene.lang, scene.tool
    conds = _conditions(scene)
    measures = [(k, v) for k, v in scene.totals.items() if k != count_col and v is not None
                and (scene.measure in (None, count_col) or k == scene.measure)]  # 売上合計: the money alone
    n = scene.totals.get(count_col) if count_col else None
    if lang == "ja":
        parts = [f"{number(n)}件"] if n is not None else []
        for key, value in measures:
            name = label(tool, key, lang)
            parts.append(f"{name}は{number(value)}" if "計" in name else f"{name}の合計は{number(value)}")
        return f"{_ja_conditions(conds)}{what.ja}は{'、'.join(parts) or '0件'}です。"
    period = scene_period(scene)
    others = [c for c in conds if c[0] is not None]
    lead = f"in {period} " if period and not period.startswith(("last ", "this ")) else f"{period}, " if period else ""
    tense = "were" if period else "are"
    text = f"{lead}there {tense} {number(n)} {what.said('en', n if isinstance(n, int) else None)}" \
        if n is not None else f"{lead}the {what.many}"
    text += _en_conditions(others)
    sums = [f"their {label(tool, k, lang)} {'comes to' if 'total' in label(tool, k, lang) else 'adds up to'} "
            f"{number(v)}" for k, v in measures]
    if sums:
        text += ", and " + " and ".join(sums)
    return _cap(text + ".")


def sums(scene: Scene) -> str | None:
    """What the rows' figures add up to, after their table: "Their amount adds up to 500." /
    「金額の合計は500です。」; None when the result has no totals."""
    lang, tool = scene.lang, scene.tool
    if scene.measure is not None and scene.measure.startswith(EACH_OF):  # カットはいくら: what one costs
        return _column_said(scene, scene.measure.removeprefix(EACH_OF))
    totals = {k: v for k, v in scene.totals.items() if v is not None}
    if scene.measure in totals:  # 発注10167の金額: that figure, not every sum of the rows
        totals = {scene.measure: totals[scene.measure]}
    elif scene.measure is not None and scene.measure not in scene.args and scene.rows \
            and scene.measure in scene.rows[0]:  # 胡蝶蘭の単価: that column, which adds up to nothing asked
        return _column_said(scene, scene.measure)
    found = [(label(tool, k, lang), number(v)) for k, v in totals.items()]
    if not found:
        return None
    if lang == "ja":
        said = "、".join(f"{name}は{v}" if "計" in name else f"{name}の合計は{v}" for name, v in found) + "です。"
    else:
        said = _cap(" and ".join(f"their {name} {'comes to' if 'total' in name else 'adds up to'} {v}"
                                 for name, v in found) + ".")
    held = statuses.held_in_rows(tool, scene.rows, scene.row_count) if tool is not None else None
    if held is None:
        return said
    column, others = held
    return said + (" " if lang == "en" else "") + statuses_said(lang, "status_all", label(tool, column, lang), others)


def statuses_said(lang: str, kind: str, name: str, others: tuple[str, ...], value: str | None = None) -> str:
    """Which statuses a figure counts, in a sentence (status_all, status_by, status_only: planner/statuses.py):
    `name` is the status column's label, `others` the statuses of no money."""
    said = {"label": name, "others": phrase(lang, "or").join(others)}
    return phrase(lang, kind, **said) if value is None else phrase(lang, kind, value=value, **said)


def _column_said(scene: Scene, column: str) -> str | None:
    """The one value a column asked has in every row (「単価は22,000です。」), or, for a figure, the least and the most
    where the rows differ in it (「価格は3,000〜4,500です。」); None where some rows are not shown (what they hold is
    not known here), a row has none, or words differ (their table shows them)."""
    found = [row.get(column) for row in scene.rows]
    if not found or len(found) < scene.row_count or any(v is None for v in found):
        return None
    name = label(scene.tool, column, scene.lang)
    if len({repr(v) for v in found}) == 1:
        return f"{name}は{number(found[0])}です。" if scene.lang == "ja" else _cap(f"the {name} is {number(found[0])}.")
    if not all(_figure(v) is not None for v in found):
        return None
    least, most = min(found, key=_figure), max(found, key=_figure)
    if scene.lang == "ja":
        return f"{name}は{number(least)}〜{number(most)}です（行ごとに違います）。"
    return _cap(f"the {name} ranges from {number(least)} to {number(most)}, row by row.")


def _figure(value: Any) -> Any:
    """A number a value is, to compare (an amount of money by its amount); None for words, dates and the like."""
    if isinstance(value, Money):
        return value.amount
    return value if isinstance(value, int | float | Decimal) and not isinstance(value, bool) else None


def _first(tied: list[dict[str, Any]], scene: Scene, tool: Tool, group: str, measure: str,
           count_col: str | None) -> str:
    """The group at the top: its name and the figure it is first by; several tied there are all named (or, past
    a sentence's worth, counted: their table follows)."""
    lang = scene.lang
    by, figure = _group_noun(tool, group, lang), number(tied[0].get(measure))
    names = _names([_group_value(r, by, lang) for r in tied], lang) if len(tied) <= ROWS_IN_SENTENCE else None
    counted = measure == count_col
    conds = _conditions(scene)
    if lang == "ja":
        what = noun(tool).ja if counted else label(tool, measure, lang)
        unit = "件" if counted else ""
        lead = f"{_ja_conditions(conds)}{what}がいちばん多い{by}は"
        if names is None:
            return f"{lead}{figure}{unit}で、同数が{len(tied)}あります。"
        return f"{lead}{names}（{'同数の' if len(tied) > 1 else ''}{figure}{unit}）です。"
    what = f"the most {noun(tool).many}" if counted else f"the highest {label(tool, measure, lang)}"
    if len(tied) == 1:
        return _cap(f"the {by} with {what}{_en_conditions(conds)} is {names} ({figure}).")
    said = names or f"{len(tied)} {_plural(by)}"
    return _cap(f"the {_plural(by)} with {what}{_en_conditions(conds)} are {said}, tied at {figure}.")


def _names(values: list[str], lang: str) -> str:
    if lang == "ja":
        return "と".join(values) if len(values) == 2 else "、".join(values)
    return values[0] if len(values) == 1 else f"{', '.join(values[:-1])} and {values[-1]}"


def _top(rows: list[dict[str, Any]], scene: Scene, tool: Tool, group: str, measure: str,
         count_col: str | None, top: int) -> str:
    """The first `top` places: rows past `top` are tied at the last place, and said to be."""
    lang = scene.lang
    by = _group_noun(tool, group, lang)
    listed = ("、" if lang == "ja" else ", ").join(_group_value(r, by, lang) for r in rows)
    conds = _conditions(scene)
    what = (noun(tool).ja if lang == "ja" else noun(tool).many) if measure == count_col else label(tool, measure, lang)
    if lang == "ja":
        ties = f"（{top}位が同数のため{len(rows)}件）" if len(rows) > top else ""
        return f"{_ja_conditions(conds)}{what}の上位{min(top, len(rows))}件の{by}{ties}は、{listed}です。"
    ties = f", with a tie for {_ordinal(top)} place ({len(rows)} in all)" if len(rows) > top else ""
    return _cap(f"the top {min(top, len(rows))} {_plural(by)} by {what}{_en_conditions(conds)}{ties}: {listed}.")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _group_value(row: dict[str, Any], by: str, lang: str) -> str:
    """The group a row is of, said; rows kept with none (a sale with no customer) are said to have none, never
    named "None" as if one of them."""
    value = row.get(GROUP_VALUE)
    if value is None or value == "":
        return f"（{by}なし）" if lang == "ja" else f"(no {by})"
    return str(value)


def _plural(word: str) -> str:
    if word.endswith("y") and not word.endswith(("ay", "ey", "oy", "uy")):
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


def _ranked_by(tool: Tool, args: dict[str, Any], scene: Scene, count_col: str | None) -> str:
    """The column the groups are ranked by: the one asked (rank_by), else the first sum, else the count."""
    asked = args.get(RANK)
    if isinstance(asked, str) and asked.startswith(_COUNT_OF) and count_col:
        return count_col
    if isinstance(asked, str) and asked in scene.rows[0]:
        return asked
    return next((k for k in scene.totals if k != count_col), count_col or GROUP_VALUE)


def _count_column(tool: Tool, scene: Scene) -> str | None:
    """The column that counts the rows of each group: the one `rank_by` ranks by its count."""
    rank = tool.params.get(RANK)
    values = rank.enum.values if rank is not None and rank.enum is not None else None
    counted = next((v.removeprefix(_COUNT_OF) for v in values or [] if v.startswith(_COUNT_OF)), None)
    if counted is not None and (counted in scene.totals or (scene.rows and counted in scene.rows[0])):
        return counted
    return None


def _group_noun(tool: Tool, group: str, lang: str) -> str:
    """What a group is called: customer, billing state; 顧客 (from the grouping's own phrases, 顧客別)."""
    if lang == "ja":
        x = tool.params[GROUP].extract
        synonyms = getattr(x, "synonyms", {}) or {}
        said = next((p.removesuffix("別") for p, v in synonyms.items() if v == group and p.endswith("別")), None)
        if said:
            return said
    return group.replace("_", " ")


Condition = tuple[str | None, str]  # (label, value); a period has no label


def _conditions(scene: Scene) -> list[Condition]:
    """What the call was narrowed down by: each filter said (its label and value), then the period."""
    tool, args = scene.tool, scene.args
    out: list[Condition] = []
    if tool is None:
        return out
    for name, value in args.items():
        p = tool.params.get(name)
        if p is None or p.default == value or isinstance(p.extract, DateExtract) or p.type == "date" \
                or name in (GROUP, RANK, TOP):
            continue
        said = _said_condition(p, value, scene.lang)
        shown = str(value) if isinstance(p.extract, CodeExtract) else number(value)  # 受注番号1024, not 1,024
        out.append(("", said) if said else (_filter_label(tool, name, scene.lang), shown))
    period = scene_period(scene)
    if period:
        out.append((None, period))
    return out


def _said_condition(p: Any, value: Any, lang: str) -> str | None:
    """A yes/no condition as its words say it (未返却, not shipped, online order), not as "shipped no": the first
    of its synonyms in the language that names the value; None for any other filter."""
    if p.enum is None or sorted(p.enum.values or []) != ["no", "yes"] or not isinstance(p.extract, EnumExtract):
        return None
    return next((said for said, v in p.extract.synonyms.items()
                 if v == value and said.isascii() == (lang != "ja")), None)


def scene_period(scene: Scene) -> str | None:
    return periods(scene.tool, scene.args, scene.today, scene.lang).get("current")


def _filter_label(tool: Tool, name: str, lang: str) -> str:
    """A filter in words: the label of the column it filters (Title -> title), else its description's words."""
    key = fold(name).replace("_", "")
    column = next((c for c in tool.result.labels if fold(c).replace("_", "") == key), None)
    text = label(tool, column or name, lang)
    for lead in ("part of the ", "part of ", "first day of the ", "last day of the "):
        text = text.removeprefix(lead)
    for tail in ("の一部", "'s name", " period", "の開始日", "の終了日（この日を含む）", "の終了日"):
        text = text.removesuffix(tail)
    return text


def filter_labels(tool: Tool, lang: str) -> list[str]:
    """What a tool's rows can be narrowed down by, in words, once each (a period's two ends are one)."""
    return list(dict.fromkeys(_filter_label(tool, n, lang) for n, p in tool.params.items()
                              if p.extract is not None and not (p.enum is not None and p.enum.values is not None)
                              and not isinstance(p.extract, CountExtract)))


def group_labels(tool: Tool, lang: str) -> list[str]:
    """What a summary can add its rows up by, in words (customer, 顧客); [] for a tool that does not group."""
    p = tool.params.get(GROUP)
    values = p.enum.values if p is not None and p.enum is not None else None
    return [_group_noun(tool, v, lang) for v in values or []]


def _en_conditions(conds: list[Condition]) -> str:
    said = [v for k, v in conds if k == ""]
    filters = [f"{k} {v}" for k, v in conds if k]
    period = next((v for k, v in conds if k is None), None)
    text = "".join(f" that are {v}" if v.startswith(("not ", "un", "in")) or v.endswith("ed") else f" ({v})"
                   for v in said)
    text += f" with {' and '.join(filters)}" if filters else ""
    return text + (f" in {period}" if period and not period.startswith(("last ", "this ")) else
                   f" {period}" if period else "")


def _ja_conditions(conds: list[Condition]) -> str:
    period = "".join(f"{v}の" for k, v in conds if k is None)
    said = "".join(v if v.endswith("ない") else f"{v}の" for k, v in conds if k == "")
    return period + said + "".join(f"{k}が{v}の" for k, v in conds if k)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]
