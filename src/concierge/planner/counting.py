"""Whether a request asks how many: 何件, 何枚, how many, number of …s, いくつ, 件数.

A read tool's answer to it is its row count over every matching row (planner/answer), and a question of how
many were sold is the quantity a line summary adds up (planner/sold.py).
"""

from __future__ import annotations

import re

from concierge.catalog.model import Tool
from concierge.planner import words
from concierge.planner.nouns import noun
from concierge.planner.text import fold

# Counters said after 何 in a question of how many (アルバムは何枚, 得意先は何社): the answer counts with the same.
COUNTERS = words.said("counters", "counting")
_HOW_MANY = "|".join(words.said("counters", "how_many"))
COUNTING = re.compile(r"(?<![a-z])(?:how\s+many|(?:number|count)\s+of\s+(?:the\s+|our\s+)?[a-z]+s)(?![a-z])"
                      rf"|何\s*(?P<counter>{'|'.join(COUNTERS)})|{_HOW_MANY}|の数(?!量)",
                      re.IGNORECASE)


def counts_rows_of(tool: Tool, text: str) -> bool:
    """Whether a request (folded) asks for the tool's own rows: counts them (how many visits, 来店は何件, 来店数)
    or starts with them (loans of books by Japanese authors; show the loans …): the rows it is about, whatever
    else it narrows them by."""
    n = noun(tool)
    many = re.escape(n.many.lower())
    return bool(re.search(rf"how many {many}", text)
                or re.match(rf"\s*(?:(?:show|list|give|find)(?: me)?\s+)?(?:(?:all|the)\s+)?{many}(?![a-z])", text)
                or (n.ja and re.search(rf"{re.escape(fold(n.ja))}(?:は|の)?(?:何|数|件数|回数|一覧)", text)))
