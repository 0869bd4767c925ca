"""The scripts a request is written in, as character classes for the patterns that still read characters.

They are Unicode properties of the `regex` package, never hand-written ranges: a range such as 一-龯 misses
﨑 (U+FA11), 𠮷 (U+20BB7) and the other name characters outside the first block, and a name is then read
without them (𠮷田 as 田). Compile patterns that use them with `regex`, not `re`.
"""

from __future__ import annotations

__all__ = ["HAN", "HIRAGANA", "KATAKANA"]

HAN = r"\p{Han}々〆"  # kanji, with the marks that repeat or stand for one
KATAKANA = r"\p{Katakana}ー"
HIRAGANA = r"\p{Hiragana}"
