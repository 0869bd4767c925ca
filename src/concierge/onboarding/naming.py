"""Words and nouns from identifiers and comments, in English and Japanese, for drafted texts."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from concierge.onboarding import glossary
from concierge.onboarding.glossary import plural, singular

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


# --- words from identifiers --------------------------------------------------------------------
def words(identifier: str) -> list[str]:
    """orderedAt, ordered_at, OrderedAt -> [ordered, at]."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", identifier)
    return [w.lower() for w in re.split(r"[^0-9A-Za-z]+", spaced) if w]


def slug(identifier: str, fallback: str) -> str:
    """A name for a tool or parameter: letters, digits and _, starting with a letter."""
    s = "_".join(words(identifier))[:56]
    return s if s and s[0].isalpha() else (f"{fallback}_{s}" if s else fallback)


def japanese(comment: str | None) -> str | None:
    """A Japanese comment's first phrase (顧客マスタ。住所を含む -> 顧客マスタ), or None."""
    if not comment or not _CJK.search(comment):
        return None
    return re.split(r"[。、,.(（\n]", comment.strip(), maxsplit=1)[0].strip() or None


# How a table is kept, not what it holds: 商品マスタ is 商品 to the staff who ask about it.
_JA_STORAGE = ("マスター", "マスタ", "トランザクション", "トラン", "テーブル", "台帳", "一覧", "データ", "情報",
               "明細", "履歴", "ファイル", "表")


def japanese_forms(phrase: str) -> tuple[str, ...]:
    """The phrase, and without the word for how it is stored where one ends it (商品マスタ -> 商品)."""
    for suffix in _JA_STORAGE:
        stem = phrase.removesuffix(suffix).rstrip("の・ ")
        if stem != phrase and len(stem) >= 2:
            return (phrase, stem)
    return (phrase,)


def english(comment: str | None) -> str | None:
    return comment.strip().rstrip(".") if comment and comment.strip() and not _CJK.search(comment) else None


@dataclass(frozen=True)
class Noun:
    """How a table or column is named in words: `order item`, `order items`, and in Japanese.

    A table's name loses the affixes of how it is kept (tbl_customer, customer_master -> customer);
    `heads` is the head noun alone where the name has more words (farm_customers -> customer,
    customers), so a request that says only "customers" finds it. Japanese comes from the comment
    where it is Japanese, else from the glossary (customer -> 顧客, お客様), else the identifier."""

    one: str
    many: str
    ja: str
    heads: tuple[str, ...] = ()  # (singular, plural) of the head noun, where the name has more words
    ja_forms: tuple[str, ...] = ()  # every Japanese form, `ja` first
    partial: bool = False  # the Japanese is the head noun's alone (farm_customers -> 顧客)

    @classmethod
    def of(cls, identifier: str, comment: str | None, *, countable: bool = True) -> Noun:
        ws = words(identifier) or [identifier]
        if countable:
            ws = glossary.head(ws)
            last = singular(ws[-1])
            one, many = " ".join([*ws[:-1], last]), " ".join([*ws[:-1], plural(last)])
            heads = (last, plural(last)) if len(ws) > 1 else ()
        else:
            one = many = " ".join(ws)
            heads = ()
        own = japanese(comment)
        forms = japanese_forms(own) if own else glossary.japanese(ws)
        ja = forms[0] if forms else identifier
        return cls(one, many, ja, heads, tuple(forms) or (ja,), partial=not own and not glossary.complete(ws))

    def without(self, owned: set[str]) -> Noun:
        """Without the head noun forms another table is named by (big_orders does not take "orders"
        from orders; farm_sales and pos_sales share "sales")."""
        heads = self.heads if self.heads and self.heads[1] not in owned else ()
        ja_forms = tuple(j for j in self.ja_forms if not (self.partial and j in owned))
        return replace(self, heads=heads, ja_forms=ja_forms)

    @property
    def has_japanese(self) -> bool:
        return bool(_CJK.search(self.ja))

    @property
    def plurals(self) -> list[str]:
        """The plural forms a request may say: order items, items."""
        return unique_list([self.many, *self.heads[1:]])

    @property
    def japanese_forms(self) -> list[str]:
        return [j for j in self.ja_forms if _CJK.search(j)]


# --- SQL of one dialect --------------------------------------------------------------------------


def unique_list(items: list[str]) -> list[str]:
    """The items in their order, each once."""
    return list(dict.fromkeys(items))
