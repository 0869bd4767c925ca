"""Which of the product's two languages a text is written in."""

from __future__ import annotations

import re
from typing import Literal

Lang = Literal["ja", "en"]

_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")


def language(text: str) -> Lang:
    """Japanese when the text has any kana or kanji, else English."""
    return "ja" if _JAPANESE.search(text or "") else "en"
