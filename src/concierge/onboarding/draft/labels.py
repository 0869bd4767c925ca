"""What drafted columns, keys and counts are called in words, for answers and descriptions: a column's
label from its comment, the glossary or its concept words (gokei_kingaku -> 合計金額, total amount), never
its raw name; the words said before a key (customer 5, 受注番号1024); what a foreign key points at."""

from __future__ import annotations

import re

from concierge.onboarding.columns import Display
from concierge.onboarding.draft.conditions import event_japanese
from concierge.onboarding.glossary import COUNTED
from concierge.onboarding.glossary import japanese as glossary_japanese
from concierge.onboarding.introspect import Column, Table
from concierge.onboarding.naming import Noun, concept_words, english, japanese, slug, unique_list, words

_KEY_WORDS = ("id", "code", "no", "key", "fk", "cd", "num", "number")
_JA_SUFFIX = {"name": "名", "at": "日時", "on": "日", "date": "日"}  # region_name -> 地域名, ordered_at -> 注文日時


def column_label(name: str, comment: str | None, owner: Noun) -> dict[str, str]:
    """A column in words, for answers: {ja, en} from its comment (a Japanese one; a short English one),
    else the glossary, else its name in words (ordered_at -> ordered at). An `id` alone is the owning
    table's (顧客ID, customer id); a name ending in id is what it points at (customer_id -> 顧客ID). A romaji
    name reads as its Japanese and its English concepts (gokei_kingaku -> 合計金額, total amount)."""
    ws = words(name) or [name]
    concepts = concept_words(name) or ws
    if ws[-1] == "id":
        stem = concepts[:-1] if concepts[-1:] == ["id"] else ws[:-1]  # vnd_id: the vendor's
        ja_stem = (glossary_japanese(stem) or (" ".join(stem),))[0] if stem else owner.ja
        en_stem = " ".join(stem) if stem else owner.one
        ja, en = f"{ja_stem}ID", f"{en_stem} id"
    else:
        cnoun = Noun.of(name, comment, countable=False)
        romaji = cnoun.ja if concepts != ws and cnoun.has_japanese else None
        ja = romaji or _ja_suffixed(ws) or _ja_counted(ws) or (cnoun.ja if cnoun.has_japanese else " ".join(concepts))
        en = " ".join(concepts)
    own_ja, own_en = japanese(comment) or (name if not name.isascii() else None), english(comment)
    if own_ja:
        ja = own_ja
    if own_en and len(own_en.split()) <= 4:
        en = own_en
    return {"ja": ja, "en": en}


def in_words(column: Column) -> str:
    """A column in English words for a description: its concept words (gokei_kingaku -> total amount)."""
    return " ".join(concept_words(column.name)) or column.name


def _ja_suffixed(ws: list[str]) -> str | None:
    """Japanese for `<noun> name` / `<verb>ed at|on`, where the events of dates (received_on -> 受付日) or the
    glossary know the word."""
    if len(ws) < 2 or ws[-1] not in _JA_SUFFIX:
        return None
    event = event_japanese(ws[:-1]) if ws[-1] != "name" else None
    if event:
        return event + _JA_SUFFIX[ws[-1]]
    stem = [re.sub(r"(?<=[a-z]{3})ed$", "", w) if ws[-1] != "name" else w for w in ws[:-1]]
    forms = glossary_japanese(stem)
    return forms[0] + _JA_SUFFIX[ws[-1]] if forms else None


def _ja_counted(ws: list[str]) -> str | None:
    """Japanese for `<…> days` / `nights` / `hours`: how many of the unit (日数, 貸出日数), where the rest is known."""
    if not ws or ws[-1] not in COUNTED:
        return None
    stem = glossary_japanese(ws[:-1]) if len(ws) > 1 else ("",)
    return stem[0] + COUNTED[ws[-1]] if stem else None


def count_label(noun: Noun) -> dict[str, str]:
    """How a summary's count is labelled: 受注の件数, or 件数 where the table has no Japanese noun."""
    return {"ja": f"{noun.ja}の件数" if noun.has_japanese else "件数", "en": f"number of {noun.many}"}


def joined_name(fk: str, display: Display) -> str:
    """The result name of the name joined in next to a foreign key: customer_full_name, tokuisaki_mei (not
    tokuisaki_tokuisaki_mei: the name already says whose it is)."""
    stem, name = slug(key_stem(fk), "ref"), slug(display.name, "name")
    return name if name.startswith(f"{stem}_") else f"{stem}_{name}"


def ref_noun(fk: Column, ref: Table) -> Noun:
    """What a foreign key points at, in words: the referenced table's noun, or the key's own where it names
    the row otherwise (SupportRepId -> support rep, pointing at employees)."""
    table = Noun.of(ref.name, ref.comment)
    stem = key_stem(fk.name)
    if stem == "_".join(words(fk.name)):  # nothing says it is a key of something else (sku, customer)
        return table
    own = Noun.of(stem, None)
    return table if own.one == table.one else own


def code_labels(noun: Noun, key: Column) -> tuple[list[str], list[str]]:
    """The words said just before a key (customer 5, customer id 5, 顧客番号5, 受注番号1024), and the nouns a
    later request points back at it with (that customer, その顧客)."""
    own = column_label(key.name, key.comment, noun)
    labels = [f"{noun.one} id", f"{noun.one} code", f"{noun.one} number", f"{noun.one} no", noun.one, own["en"]]
    refer = [noun.one]
    if noun.has_japanese:
        labels += [f"{noun.ja}コード", f"{noun.ja}番号", f"{noun.ja}ID", f"{noun.ja}No", noun.ja]
        refer.append(noun.ja)
    if not own["ja"].isascii():
        labels.append(own["ja"])
    return unique_list(labels), unique_list(refer)


_JA_KEY_END = re.compile(r"(?:ID|Id|id|ＩＤ|コード|番号|CD|cd|No|NO|№)$")


def key_stem(column: str) -> str:
    """customer_id -> customer; storeId -> store; sku -> sku; メニューID -> メニュー."""
    if not column.isascii():
        return _JA_KEY_END.sub("", column) or column
    ws = words(column)
    return "_".join(ws[:-1]) if len(ws) > 1 and ws[-1] in _KEY_WORDS else "_".join(ws) or column
