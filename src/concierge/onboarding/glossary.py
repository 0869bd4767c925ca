"""The words a draft needs beyond the identifiers: the affixes schemas add to table names, and
Japanese for the common business nouns (for a schema named in English whose comments are not
Japanese: staff still ask 「顧客は何人？」).

`head` strips the affixes (tbl_customer, m_customer, customer_master, dim_product -> the noun);
`japanese` translates the words of an identifier, a known phrase first, else word by word when
every word is known, else the head noun alone (farm_customers -> 顧客). Each entry lists its
usual forms, the first one used in texts, all of them as planner keywords.
"""

from __future__ import annotations

import re

# Table-name affixes that say how a table is kept, not what it holds.
PREFIXES = {"tbl", "tb", "t", "m", "mst", "dim", "fact", "fct", "app", "stg", "raw", "src", "ods", "dw", "vw", "v",
            "ref", "lkp", "lu"}
SUFFIXES = {"master", "mst", "tbl", "table", "tab", "data", "info", "dim", "fact", "vw", "view", "v", "tmp", "tb",
            "mart", "records", "record"}

JA: dict[str, tuple[str, ...]] = {
    # things a business keeps
    "customer": ("顧客", "お客様", "客"), "client": ("顧客", "取引先"), "member": ("会員",),
    "user": ("ユーザー", "利用者"), "account": ("アカウント", "口座"), "contact": ("連絡先",),
    "order": ("注文", "受注"), "item": ("明細", "品目"), "line": ("明細",), "detail": ("明細",),
    "product": ("商品", "製品"), "good": ("商品",), "sku": ("商品",), "service": ("サービス",),
    "store": ("店舗", "店"), "shop": ("店舗", "店"), "branch": ("支店",), "warehouse": ("倉庫",),
    "sale": ("売上", "販売"), "revenue": ("売上",), "purchase": ("仕入", "購入"),
    "supplier": ("仕入先",), "vendor": ("仕入先", "業者"), "supply": ("資材", "備品"),
    "employee": ("従業員", "社員"), "staff": ("スタッフ", "従業員"), "department": ("部署", "部門"),
    "invoice": ("請求書", "請求"), "payment": ("支払い", "入金"), "receipt": ("領収書", "レシート"),
    "transaction": ("取引",), "contract": ("契約",), "shipment": ("出荷",), "delivery": ("配送", "配達"),
    "stock": ("在庫",), "inventory": ("在庫",), "booking": ("予約",), "reservation": ("予約",),
    "category": ("カテゴリ", "分類"), "type": ("種類", "タイプ"), "status": ("状態", "ステータス"),
    "region": ("地域",), "area": ("地域", "エリア"), "city": ("市区町村", "都市"), "country": ("国",),
    "address": ("住所",), "phone": ("電話番号", "電話"), "email": ("メールアドレス", "メール"),
    "tweet": ("ツイート",), "post": ("投稿",), "review": ("レビュー",), "message": ("メッセージ",),
    "event": ("イベント",), "project": ("プロジェクト",), "task": ("タスク",), "brand": ("ブランド",),
    "note": ("メモ",), "comment": ("コメント",), "coupon": ("クーポン",), "campaign": ("キャンペーン",),
    # figures and their labels
    "price": ("価格", "単価"), "amount": ("金額",), "quantity": ("数量",), "qty": ("数量",),
    "total": ("合計",), "subtotal": ("小計",), "tax": ("税額", "税"), "cost": ("原価", "費用"),
    "discount": ("割引",), "fee": ("手数料",), "salary": ("給与",), "balance": ("残高",),
    "date": ("日付",), "day": ("日",), "month": ("月",), "year": ("年",), "time": ("時刻",),
    "name": ("名前", "名称"), "title": ("タイトル",), "code": ("コード",), "description": ("説明",),
}
PHRASES: dict[str, tuple[str, ...]] = {
    "order item": ("注文明細",), "order line": ("注文明細",), "order detail": ("注文明細",),
    "unit price": ("単価",), "tax paid": ("税額",), "order total": ("注文合計", "合計金額"),
    "full name": ("氏名",), "first name": ("名",), "last name": ("姓",), "postal code": ("郵便番号",),
    "zip code": ("郵便番号",), "phone number": ("電話番号",), "sales rep": ("営業担当",),
}


def singular(word: str) -> str:
    if re.search(r"[^aeiou]ies$", word):
        return word[:-3] + "y"
    if re.search(r"(ss|sh|ch|x|z)es$", word):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def plural(word: str) -> str:
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if re.search(r"(s|sh|ch|x|z)$", word):
        return word + "es"
    return word + "s"


def head(ws: list[str]) -> list[str]:
    """The words of a name without the affixes of how it is kept: [tbl, customer] -> [customer]."""
    out = list(ws)
    while len(out) > 1 and out[0] in PREFIXES:
        out = out[1:]
    while len(out) > 1 and out[-1] in SUFFIXES:
        out = out[:-1]
    return out


def _one(word: str) -> tuple[str, ...] | None:
    return JA.get(word) or JA.get(singular(word))


def japanese(ws: list[str]) -> tuple[str, ...]:
    """Japanese forms of the (singular) words of a name, the usual one first; () when none is known."""
    if not ws:
        return ()
    key = " ".join([*ws[:-1], singular(ws[-1])])
    if key in PHRASES:
        return PHRASES[key]
    found = [_one(w) for w in ws]
    for n in range(len(ws) - 1, 0, -1):  # a known phrase at the end: farm order item -> 注文明細
        tail = " ".join([*ws[n:-1], singular(ws[-1])])
        before = [f for f in found[:n] if f]
        if tail in PHRASES and len(before) == n:
            return ("".join(f[0] for f in before) + PHRASES[tail][0],)
    forms = [f for f in found if f]
    if len(forms) == len(ws):  # every word known
        if len(ws) == 1:
            return forms[0]
        first = "".join(f[0] for f in forms[:-1])
        return tuple(first + last for last in forms[-1])
    return found[-1] or ()


def complete(ws: list[str]) -> bool:
    """Whether `japanese` translates every word (not the head noun alone)."""
    key = " ".join([*ws[:-1], singular(ws[-1])]) if ws else ""
    return key in PHRASES or all(_one(w) for w in ws) or any(
        " ".join([*ws[n:-1], singular(ws[-1])]) in PHRASES and all(_one(w) for w in ws[:n]) for n in range(1, len(ws)))
