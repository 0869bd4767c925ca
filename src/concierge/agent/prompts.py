"""Everything the agent says to a model, and the few sentences it says to the user itself.

The system prompt holds what stays true for a whole conversation (the role,
the rules, the clock, the week definition, the data's date ranges and valid
values). The dynamic context is rebuilt before every model request and added
to the newest user message: short reminders, the catalogs' tool-calling rules
and the conversation's state (the current order), what is in focus (the latest
calls and the rows they found), and the `ai_instruction` texts of the newest
results.
"""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from typing import Any

from concierge.agent.providers.interface import Message
from concierge.agent.turn import PendingField
from concierge.catalog.model import Tool
from concierge.language.dates import resolve
from concierge.language.detect import Lang
from concierge.pipeline.access import User
from concierge.pipeline.guard import date_range, valid_values
from concierge.pipeline.pipeline import Pipeline
from concierge.sources.result import Rows

MAX_ENUM_VALUES = 60
FOCUS_CALLS = 3
FOCUS_ROWS = 3

_WEEKDAYS = {
    "en": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    "ja": ["月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日", "日曜日"],
}

RULES = """\
Rules:
1. Every number, date, code and name in your answer must come from a tool result of this turn or \
from the user's message. Quote counts, totals, changes and percentages from a result's `totals`, \
`row_count` and `summary`; never add, subtract, average or round figures yourself.
2. Cite the id of each result you use in brackets, for example [r_0123456789].
3. A request that has nothing to do with this business (a greeting, general knowledge, small talk) \
is answered briefly without calling any tool.
4. When a request has several parts, make the calls for all of them (independent calls together in \
one reply) and answer every part. Never stop to ask whether you should continue.
5. When a call is refused or fails, read its message and `valid` values and correct the call when \
the request allows it; otherwise say plainly what is missing. Never guess a value the user did not \
give (such as a customer code): look it up with a tool or ask.
6. A write tool's first call only returns a preview; the user then confirms or cancels it outside \
this chat. Say that something was registered only after a result with status "ok" shows it.
7. Answer in the language of the user's message (Japanese or English), briefly, in plain text."""


def weekday(day: date, lang: Lang = "en") -> str:
    return _WEEKDAYS[lang][day.weekday()]


def system_prompt(pipeline: Pipeline, user: User, tools: list[Tool]) -> str:
    catalogs = {t.catalog for t in tools}
    business = "\n".join(f"- {c.spec.description.en}" for c in pipeline.catalogs if c.name in catalogs)
    role = f"{user.display_name} ({user.name}, role {user.role})" if user.display_name else user.name
    parts = [
        "You are concierge, an assistant for the staff of a business. You answer questions about the "
        "business's data only by calling the declared tools; you never see or write SQL.",
        f"The business:\n{business or '- (no tools are available to this user)'}",
        f"The user: {role}. The tools offered are exactly those this user may call.",
        RULES,
        _clock(pipeline, tools),
    ]
    data = _data_facts(pipeline, tools)
    if data:
        parts.append(data)
    return "\n\n".join(parts)


def _clock(pipeline: Pipeline, tools: list[Tool]) -> str:
    todays = sorted({pipeline.today(t.name) for t in tools}) or [pipeline.today()]
    lines = ["Dates:"]
    for today in todays:
        scope = ""
        if len(todays) > 1:
            names = sorted({t.catalog for t in tools if pipeline.today(t.name) == today})
            scope = f" (for the {', '.join(names)} tools)"
        lines.append(f"- Today is {today.isoformat()}, {weekday(today)}{scope}.")
        for words in (("今週", "this week"), ("先週", "last week"), ("今月", "this month"), ("先月", "last month")):
            period = resolve(words[0], today)
            if period:
                lines.append(f"  {words[0]} / {words[1]}: {period.start.isoformat()} .. {period.end.isoformat()}")
    lines += [
        "- Weeks run Monday to Sunday. 先週 / last week is the Monday-Sunday week before this one; "
        "a weekday after a week word (先週火曜日, Tuesday last week) is that day inside that week.",
        "- Every period is inclusive at both ends. Write dates in tool arguments as YYYY-MM-DD.",
    ]
    return "\n".join(lines)


def _data_facts(pipeline: Pipeline, tools: list[Tool]) -> str:
    ctx = pipeline.guard_context()
    lines: list[str] = []
    seen: set[tuple[str, str]] = set()
    for tool in tools:
        for name, param in tool.params.items():
            if param.type == "date" and param.bounds and param.bounds.query:
                low, high = date_range(param, pipeline.guard_context(tool.name))
                fact = f"- {tool.name}.{name}: the data covers {low or '…'} .. {high or '…'}"
                key = ("date", param.bounds.query)
            elif param.type == "enum" and param.enum and param.enum.key:
                values = valid_values(param, ctx)
                shown = ", ".join(values[:MAX_ENUM_VALUES]) + (" …" if len(values) > MAX_ENUM_VALUES else "")
                fact = f"- {name} (in {tool.name}): one of {shown}"
                key = ("enum", param.enum.key)
            else:
                continue
            if key not in seen:
                seen.add(key)
                lines.append(fact)
    return "Data (read from the database now):\n" + "\n".join(lines) if lines else ""


def dynamic_context(messages: list[Message], turn_start: int, notes: list[str] | None = None,
                    catalog_rules: str = "") -> str:
    """The short context added to the newest user message before each model request; `catalog_rules`
    are the catalogs' rules and the conversation's state (`concierge.agent.context.context`)."""
    lines = ["[context] Numbers only from tool results; cite result ids; correct refused calls."]
    lines += [catalog_rules] if catalog_rules else []
    lines += notes or []
    focus = _focus(messages)
    if focus:
        lines.append("In focus (latest calls, newest last):")
        lines += focus
    instructions = [
        f"- {m.result.result_id} ({m.result.tool}): {m.result.ai_instruction}"
        for m in messages[turn_start:]
        if m.role == "tool" and m.result and m.result.ai_instruction
    ]
    if instructions:
        lines.append("Instructions from this turn's results:")
        lines += instructions
    return "\n".join(lines)


def _focus(messages: list[Message]) -> list[str]:
    calls = {c.id: c for m in messages if m.role == "assistant" for c in m.tool_calls}
    results = [(m, m.result) for m in messages if m.role == "tool" and isinstance(m.result, Rows)]
    lines = []
    for message, result in results[-FOCUS_CALLS:]:
        call = calls.get(message.tool_call_id or "")
        args = result.args or (call.args if call and isinstance(call.args, dict) else {})
        shown = ", ".join(f"{k}={_short(v)}" for k, v in args.items() if v is not None)
        line = f"- {result.tool}({shown}) -> {result.row_count} row(s) [{result.result_id}]"
        rows = result.rows
        columns = (result.columns or list(rows[0]) if rows else [])[:2]
        if rows and len(rows) <= FOCUS_ROWS and columns:
            line += ": " + "; ".join(" ".join(_short(r.get(c)) for c in columns) for r in rows)
        lines.append(line)
    return lines


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


PHONE = """\
This conversation is a phone call: your answer is read aloud to the caller by a voice. Answer in one \
or two short sentences in the caller's language, as you would say them: no lists, tables, markup or \
result ids, numbers and times as they are said (18時30分, 6:30 pm). Ask one thing at a time."""


# --- what the agent itself says to the user ------------------------------------
def title(tool: Tool | None, name: str, lang: Lang) -> str:
    """What a write does, in words: the first sentence of its description (販売を登録します), else its name."""
    if tool is None:
        return name
    first = re.split(r"(?<=[。．])|(?<=\.)\s", tool.description.get(lang).strip(), maxsplit=1)[0]
    return first.rstrip("。．.") or name


def preview_message(tool: Tool, lang: Lang, said: str | None = None) -> str:
    """The card's question: the catalog's sentence for it when it has one, else what the write does."""
    if said:
        return f"{said}{'' if said.endswith(('？', '?')) else 'よろしいですか？' if lang == 'ja' else ' Go ahead?'}"
    if lang == "ja":
        return f"{title(tool, tool.name, lang)}。次の内容でよろしいですか？（まだ何も書き込んでいません）"
    return f"{title(tool, tool.name, lang)}: nothing is written yet. Go ahead with these values?"


def changed_preview_message(tool: Tool, lang: Lang, said: str | None = None) -> str:
    if lang == "ja":
        return ("確認の後で内容が変わったため、何も書き込んでいません。新しい内容です。"
                f"{preview_message(tool, lang, said)}")
    return ("Nothing was written: the values changed after you saw them. Here they are now. "
            f"{preview_message(tool, lang, said)}")


def preview_answer(message: str, fields: list[PendingField], warning: str | None = None) -> str:
    """The card as text (the history, the CLI, a model reading the conversation)."""
    lines = [message] + [f"- {f.label}: {f.value}" for f in fields]
    return "\n".join([*lines, warning] if warning else lines)


def confirm_text(lang: Lang) -> str:
    return "はい、実行してください。" if lang == "ja" else "Yes, go ahead."


def cancel_text(lang: Lang) -> str:
    return "いいえ、取り消してください。" if lang == "ja" else "No, cancel it."


def cancelled_answer(lang: Lang) -> str:
    return "取り消しました。何も書き込んでいません。" if lang == "ja" else "Cancelled: nothing was written."


def ask_again_answer(question: str, lang: Lang) -> str:
    if lang == "ja":
        return f"{question}「はい」か「いいえ」でお答えください（変えたい所があれば、そのままお伝えください）。"
    return f"{question} Please answer yes or no (or say what to change)."


def expired_answer(ttl: timedelta, lang: Lang) -> str:
    minutes = int(ttl.total_seconds() // 60)
    if lang == "ja":
        return (f"この確認は有効期限（{minutes}分）を過ぎたため、何も書き込んでいません。"
                "もう一度ご依頼いただければ、新しい確認をお出しします。")
    return (f"This confirmation ran out after {minutes} minutes, so nothing was written. Ask again and you get a "
            "new one to confirm.")


def no_pending_answer(lang: Lang) -> str:
    if lang == "ja":
        return ("確認待ちの操作はありません。その確認は、すでに確定・取り消し済みか、"
                "その後の別のご依頼で取り下げられています。何も書き込んでいません。必要でしたら、もう一度ご依頼ください。")
    return ("Nothing is waiting for confirmation: that card was already confirmed or cancelled, or a later request "
            "replaced it. Nothing was written now; ask again if you still want it done.")


def dropped_pending_note(tool: str) -> str:
    return f"The previewed {tool} call was neither confirmed nor cancelled; nothing was written."


def deferred_write_message(tool: str) -> str:
    return (f"Not previewed: another write in the same reply already waits for the user's confirmation. "
            f"Request this {tool} call again after that one is done.")


def step_limit_answer(steps: int, lang: Lang) -> str:
    if lang == "ja":
        return (f"ツール呼び出しの上限({steps}回)に達したため、ここで止めました。"
                "質問を分けてもう一度お試しください。")
    return f"Stopped after {steps} model requests, the limit for one question. Please split the question and ask again."
