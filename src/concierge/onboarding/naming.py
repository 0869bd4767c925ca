"""Words and nouns from identifiers and comments, in English and Japanese, for drafted texts.

A name in romaji (m_tokuisaki, gokei_kingaku) is read through `glossary.reading`: its nouns are the English
concept words (customer, total amount) the drafting rules understand, and its Japanese the words it spells
(得意先, 合計金額)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from concierge.language.readings import romaji
from concierge.onboarding import glossary
from concierge.onboarding.glossary import plural, singular

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_TAG = re.compile(r"^(?:【[^】]*】|\[[^\]]*\]|［[^］]*］)\s*")  # 【必須】, [PK] before what a comment names
_PHRASE_END = re.compile(r"[。、，,.．(（\n:：;；/／\s]")


# --- words from identifiers --------------------------------------------------------------------
def words(identifier: str) -> list[str]:
    """orderedAt, ordered_at, OrderedAt -> [ordered, at]."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", identifier)
    return [w.lower() for w in re.split(r"[^0-9A-Za-z]+", spaced) if w]


def romanised(text: str) -> str:
    """Japanese in Hepburn romaji, a space between words (施術明細 -> shijutsu meisai); other text as it is."""
    return romaji(text)


def concept_words(identifier: str, *, romaji: bool | None = None) -> list[str]:
    """The English concept words of a name: `words` for an English one; a romaji one in English, without the
    affixes of how a table is kept (t_juchu_meisai -> [order, line], tokuisaki_mei -> [customer, name],
    hyojun_tanka -> [standard, unit, price]), so the rules for English names apply to it. `romaji` as in
    `glossary.reading`."""
    return glossary.concepts(words(identifier), romaji=romaji)


def is_romaji(identifier: str) -> bool:
    """Whether a name is romaji (m_tokuisaki, juchu_no; not phone_no): a schema with such names can pass
    `romaji=True` for all of its names, so that a column called `no` or `cd` is read too."""
    return glossary.reading(words(identifier)) is not None


def slug(identifier: str, fallback: str) -> str:
    """A name for a tool or parameter: letters, digits and _, starting with a letter; a name written in Japanese
    in romaji (来店 -> raiten, 顧客ID -> kokyaku_id), so that two are never told apart by a number alone."""
    s = "_".join(words(identifier if identifier.isascii() else romanised(identifier)))[:56]
    return s if s and s[0].isalpha() else (f"{fallback}_{s}" if s else fallback)


def japanese(comment: str | None) -> str | None:
    """A Japanese comment's first Japanese phrase (顧客マスタ。住所を含む -> 顧客マスタ; 【必須】得意先名 -> 得意先名;
    Customer 顧客 -> 顧客), or None."""
    if not comment or not _CJK.search(comment):
        return None
    text = _TAG.sub("", comment.strip())
    return next((p for p in _PHRASE_END.split(text) if _CJK.search(p)), None)


def japanese_forms(phrase: str) -> tuple[str, ...]:
    """The noun a phrase names and the phrase: without the word for how it is stored that ends it, the noun
    first (商品マスタ -> 商品, 商品マスタ); without a word for a part of it, the phrase first (売上明細 ->
    売上明細, 売上)."""
    for suffix in (*glossary.STORAGE, *glossary.PARTS):
        stem = phrase.removesuffix(suffix).rstrip(glossary.BETWEEN)
        if stem != phrase and len(stem) >= 2:
            return (stem, phrase) if suffix in glossary.STORAGE else (phrase, stem)
    return (phrase,)


def english(comment: str | None) -> str | None:
    return comment.strip().rstrip(".") if comment and comment.strip() and not _CJK.search(comment) else None


@dataclass(frozen=True)
class Noun:
    """How a table or column is named in words: `order item`, `order items`, and in Japanese.

    A table's name loses the affixes of how it is kept (tbl_customer, customer_master -> customer);
    `heads` is the head noun alone where the name has more words (farm_customers -> customer,
    customers), so a request that says only "customers" finds it. A romaji name is named by its English
    concept (m_tokuisaki -> customer, customers). Japanese comes from the comment where it is Japanese
    (得意先マスタ -> 得意先), else from the glossary (customer -> 顧客, お客様; m_tokuisaki -> 得意先; albums ->
    アルバム, its katakana guessed: `glossary.guessed`), else the identifier. A table is also named by the other
    words the glossary has for it (tracks: songs; invoices: 売上), where no other table is (`without`)."""

    one: str
    many: str
    ja: str
    heads: tuple[str, ...] = ()  # (singular, plural) of the head noun, where the name has more words
    ja_forms: tuple[str, ...] = ()  # every Japanese form, `ja` first
    partial: bool = False  # the Japanese is the head noun's alone (farm_customers -> 顧客)
    also: tuple[str, ...] = ()  # other English words for the rows, plural (tracks: songs)
    ja_also: tuple[str, ...] = ()  # other Japanese words, not yet among `ja_forms` (invoices: 売上): `without`

    @classmethod
    def of(cls, identifier: str, comment: str | None, *, countable: bool = True, romaji: bool | None = None) -> Noun:
        """`romaji`: whether the name is romaji (m_tokuisaki -> customer, 得意先); None tells from the name
        (`glossary.reading`)."""
        ws = words(identifier) or [identifier]
        named_ja = None if identifier.isascii() else next(iter(japanese_forms(identifier)), identifier)
        concept = glossary.english_of(named_ja) if named_ja else None
        if concept is not None:  # a table named 顧客 is the customers, said as the glossary says them
            ws, comment = concept.split(), comment or identifier
        short: tuple[str, ...] = ()
        if concept is None and glossary.reading(ws, romaji=romaji) is None:
            head_words = glossary.head(ws) if countable else ws
            if len(head_words) == 1 and head_words[0] in glossary.EXPANDED:  # POs: what staff call them too
                short = (plural(head_words[0]),)
            ws = glossary.expanded(ws)  # po_hdr: the purchase orders
        if countable:
            ws = glossary.head(ws)
        read = glossary.reading(ws, romaji=romaji)
        en = read.english if read else ws
        also = glossary.also(en) if countable else glossary.Also()
        if countable:
            last = singular(en[-1])
            one, many = " ".join([*en[:-1], last]), " ".join([*en[:-1], plural(last) if last.isascii() else last])
            heads = (last, plural(last)) if len(en) > 1 else ()
        else:
            one = many = " ".join(en)
            heads = ()
        own = japanese(comment)
        forms = japanese_forms(own) if own else (read.japanese if read else glossary.japanese(ws, romaji=romaji))
        if concept is not None:
            forms = tuple(unique_list([*forms, *(f for f in glossary.JA.get(concept, ()) if len(f) > 1)]))
        ja = forms[0] if forms else identifier
        known = read.complete if read else glossary.complete(ws, romaji=romaji)
        return cls(one, many, ja, heads, tuple(forms) or (ja,), partial=not own and not known,
                   also=tuple(" ".join([*w.split()[:-1], plural(w.split()[-1])]) for w in also.en) + short,
                   ja_also=tuple(j for j in also.ja if j not in forms))

    def without(self, owned: set[str]) -> Noun:
        """The noun a table's tools are named by among a schema's tables, whose nouns are `owned` (each table's
        `many` and `japanese_forms`): without the head noun forms another table is named by (big_orders does not
        take "orders" from orders; farm_sales and pos_sales share "sales"), with the other words for it that
        no other table is named by (tracks are songs unless a table of songs is there; invoices are 売上 unless
        a sales table is)."""
        heads = self.heads if self.heads and self.heads[1] not in owned else ()
        ja_forms = tuple(j for j in self.ja_forms if not (self.partial and j in owned))
        also = tuple(w for w in self.also if w not in owned)
        ja_also = tuple(j for j in self.ja_also if j not in owned and j not in ja_forms)
        return replace(self, heads=heads, ja_forms=ja_forms + ja_also, also=also, ja_also=())

    @property
    def has_japanese(self) -> bool:
        return bool(_CJK.search(self.ja))

    @property
    def plurals(self) -> list[str]:
        """The plural forms a request may say: order items, items; tracks, songs."""
        return unique_list([self.many, *self.heads[1:], *self.also])

    @property
    def japanese_forms(self) -> list[str]:
        return [j for j in self.ja_forms if _CJK.search(j)]

    @property
    def counters(self) -> tuple[str, ...]:
        """The counters a request counts its rows with: 件, and those of its concept (得意先は何社, アルバムは何枚,
        映画は何本; `glossary.counters`)."""
        return glossary.counters(self.one.split(), ja=self.ja_forms)


# --- SQL of one dialect --------------------------------------------------------------------------


def unique_list(items: list[str]) -> list[str]:
    """The items in their order, each once."""
    return list(dict.fromkeys(items))
