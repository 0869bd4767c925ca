"""A distributor's warehouse system: warehouses, SKUs, vendors, purchase orders, stock, customers, sales orders.

Identifiers are the terse lower snake_case abbreviations such systems really use (wh, sku_mst, po_hdr /
po_dtl, so_hdr / so_dtl, inv, cust; wh_cd, sku_nm, cat_cd, ord_qty, rcv_qty, ext_amt, qty_on_hand,
reorder_pt, last_cnt_dt); the values are English (SKU names, customers, vendors, warehouse names) although
the staff who ask are mostly Japanese. Money is yen in Numeric(10,2): prices are whole yen, some PO unit
costs have 50 sen. Data runs from Mon 6 January 2025 to TODAY. What a careless draft gets wrong is in the data:

- quantities and rates that are never summed as flows: inv.qty_on_hand, qty_alloc and reorder_pt (a level
  at one moment, per warehouse), sku_mst.case_qty, wt_kg, unit_cost and list_prc (per unit); the cost a PO
  line was bought at (po_dtl.unit_cost) is not always the master unit_cost, and what a sales line sold at
  (sell_prc) is below list_prc;
- two SKUs whose names share words: 'Green Tea 500ml' (SKU-00403) beside 'Green Tea 2L' (SKU-00404), both
  sold every month (also 'Potato Chips Salt 60g' beside 'Potato Chips Consomme 60g');
- two customers whose names share the first word, 'Sakura Mart' and 'Sakura Drug', who together, not
  apart, bought more than the top customer ('Marufuku Stores'): a grouping by the first word merges them;
- POs not received yet (rcv_dt NULL, stat 'OPEN'), some of them overdue; cancelled POs ('CNCL') have no
  rcv_dt either but will never arrive, so "rcv_dt IS NULL" is not "not received yet";
- stat codes that are English words ('OPEN'), and a warehouse code that is a word: 'PORT' (Kobe Port DC);
- received quantity differs from ordered quantity on some lines of received POs (short and over
  deliveries); a PO still open has rcv_qty 0;
- a sales order's day (so_dt) is not the day it shipped (ship_dt, NULL until shipped): orders of late April
  shipped in May, orders of the last days before TODAY (and two held ones of late May) not shipped yet.

How the questions are read: a count of POs or of orders counts every one whatever its stat unless the
question names one ("open", "not received yet", 未入荷 are stat 'OPEN': a cancelled PO is not awaited);
the ordered amount is SUM(po_dtl.ext_amt) (ord_qty x the PO's unit_cost) of the POs raised (po_dt) in the
period, every stat; the cancelled POs are all in February and March, so no asked month depends on it;
what came in (入荷) belongs to the month of rcv_dt and is SUM(rcv_qty); sales are SUM(so_dtl.line_amt) and
belong to the month of so_dt, as do units sold (売れた = SUM(qty)); shipments (出荷, shipped) belong to the
month of ship_dt, a shipment count (出荷件数) counts sales orders shipped; "sales by warehouse" with no
period is over all the data; 「品目」 in one warehouse is a row of inv; 発注点を割ってる is qty_on_hand <
reorder_pt; "on hand" is one inv row's qty_on_hand. "Top customer by sales" is over all the data.

Japanese staff name things in Japanese while the data is English: 東京倉庫 is TKY1 'Tokyo DC' (pref
'Tokyo'), and 「グリーンティー500ml」 is the katakana of 'Green Tea 500ml'. That is fair to ask: it is how
staff here really write, and the SKU name is a plain transliteration, not a paraphrase. A right answer
finds the one SKU (or warehouse); an answer that cannot match it and says so, or asks which SKU, is
honest; one that drops the name, or sums both green teas, is wrong. The same SKU is asked in English too
(wh_green_tea_en) so the two failures can be told apart.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

import sqlalchemy as sa

from . import Question, load, scalar

TODAY = date(2025, 6, 18)  # a Wednesday: last month is May 2025, the month before it April 2025
SEED = 20250618
_FIRST_DAY = date(2025, 1, 6)

metadata = sa.MetaData()
MONEY = sa.Numeric(10, 2)

wh = sa.Table("wh", metadata,
              sa.Column("wh_id", sa.Integer, primary_key=True, autoincrement=False),
              sa.Column("wh_cd", sa.String(4), nullable=False, unique=True),
              sa.Column("wh_nm", sa.String(40), nullable=False),
              sa.Column("pref", sa.String(20), nullable=False))
sku_mst = sa.Table("sku_mst", metadata,
                   sa.Column("sku_id", sa.Integer, primary_key=True, autoincrement=False),
                   sa.Column("sku_cd", sa.String(10), nullable=False, unique=True),
                   sa.Column("sku_nm", sa.String(60), nullable=False),
                   sa.Column("cat_cd", sa.String(3), nullable=False),
                   sa.Column("unit_cost", MONEY, nullable=False),
                   sa.Column("list_prc", MONEY, nullable=False),
                   sa.Column("wt_kg", sa.Numeric(7, 3), nullable=False),
                   sa.Column("case_qty", sa.Integer, nullable=False))
vendor = sa.Table("vendor", metadata,
                  sa.Column("vnd_id", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("vnd_nm", sa.String(60), nullable=False),
                  sa.Column("country", sa.String(30), nullable=False))
po_hdr = sa.Table("po_hdr", metadata,
                  sa.Column("po_no", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("vnd_id", sa.ForeignKey("vendor.vnd_id"), nullable=False, index=True),
                  sa.Column("wh_id", sa.ForeignKey("wh.wh_id"), nullable=False, index=True),
                  sa.Column("po_dt", sa.Date, nullable=False),
                  sa.Column("eta_dt", sa.Date, nullable=False),
                  sa.Column("rcv_dt", sa.Date),
                  sa.Column("stat", sa.String(4), nullable=False))
po_dtl = sa.Table("po_dtl", metadata,
                  sa.Column("po_no", sa.ForeignKey("po_hdr.po_no"), primary_key=True),
                  sa.Column("line_no", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("sku_id", sa.ForeignKey("sku_mst.sku_id"), nullable=False, index=True),
                  sa.Column("ord_qty", sa.Integer, nullable=False),
                  sa.Column("rcv_qty", sa.Integer, nullable=False),
                  sa.Column("unit_cost", MONEY, nullable=False),
                  sa.Column("ext_amt", MONEY, nullable=False))
inv = sa.Table("inv", metadata,
               sa.Column("wh_id", sa.ForeignKey("wh.wh_id"), primary_key=True),
               sa.Column("sku_id", sa.ForeignKey("sku_mst.sku_id"), primary_key=True),
               sa.Column("qty_on_hand", sa.Integer, nullable=False),
               sa.Column("qty_alloc", sa.Integer, nullable=False),
               sa.Column("reorder_pt", sa.Integer, nullable=False),
               sa.Column("last_cnt_dt", sa.Date, nullable=False))
cust = sa.Table("cust", metadata,
                sa.Column("cust_id", sa.Integer, primary_key=True, autoincrement=False),
                sa.Column("cust_nm", sa.String(60), nullable=False),
                sa.Column("cust_cd", sa.String(6), nullable=False, unique=True))
so_hdr = sa.Table("so_hdr", metadata,
                  sa.Column("so_no", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("cust_id", sa.ForeignKey("cust.cust_id"), nullable=False, index=True),
                  sa.Column("wh_id", sa.ForeignKey("wh.wh_id"), nullable=False, index=True),
                  sa.Column("so_dt", sa.Date, nullable=False),
                  sa.Column("ship_dt", sa.Date))
so_dtl = sa.Table("so_dtl", metadata,
                  sa.Column("so_no", sa.ForeignKey("so_hdr.so_no"), primary_key=True),
                  sa.Column("line_no", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("sku_id", sa.ForeignKey("sku_mst.sku_id"), nullable=False, index=True),
                  sa.Column("qty", sa.Integer, nullable=False),
                  sa.Column("sell_prc", MONEY, nullable=False),
                  sa.Column("line_amt", MONEY, nullable=False))

# --- the data ------------------------------------------------------------------------------------------
_WAREHOUSES = [("TKY1", "Tokyo DC", "Tokyo"), ("OSK1", "Osaka DC", "Osaka"), ("PORT", "Kobe Port DC", "Hyogo"),
               ("FKO1", "Fukuoka DC", "Fukuoka")]
_VENDORS = [("Hokuriku Beverage Co.", "Japan"), ("Shizuoka Tea Farms", "Japan"), ("Pacific Snack Foods", "USA"),
            ("Kyushu Confectionery", "Japan"), ("Echigo Foods", "Japan"), ("Nordic Household AB", "Sweden"),
            ("Kanto Paper Products", "Japan")]
_PO_WEIGHTS = [5, 8, 3, 3, 4, 2, 3]  # Shizuoka Tea Farms raises the most POs
_CANCELLED_FROM = (3, 5, 7)  # one PO of each is cancelled, in February or March
# code, name, category, unit cost, list price, kg, units a case, vendor
_SKUS = [
    ("SKU-00101", "Mineral Water 500ml", "BEV", "38", "78", "0.52", 24, 1),
    ("SKU-00102", "Mineral Water 2L", "BEV", "62", "128", "2.05", 6, 1),
    ("SKU-00118", "Sparkling Water 500ml", "BEV", "55", "118", "0.53", 24, 1),
    ("SKU-00125", "Orange Juice 1L", "BEV", "128", "248", "1.06", 6, 1),
    ("SKU-00133", "Black Coffee Can 185g", "BEV", "42", "98", "0.22", 30, 1),
    ("SKU-00147", "Sports Drink 500ml", "BEV", "58", "128", "0.53", 24, 1),
    ("SKU-00156", "Lemon Soda 350ml", "BEV", "44", "98", "0.37", 24, 1),
    ("SKU-00403", "Green Tea 500ml", "BEV", "46.50", "108", "0.52", 24, 2),
    ("SKU-00404", "Green Tea 2L", "BEV", "92", "198", "2.05", 6, 2),
    ("SKU-00412", "Barley Tea 2L", "BEV", "78", "168", "2.05", 6, 2),
    ("SKU-00415", "Oolong Tea 500ml", "BEV", "48", "108", "0.52", 24, 2),
    ("SKU-00421", "Jasmine Tea 500ml", "BEV", "49.50", "118", "0.52", 24, 2),
    ("SKU-00502", "Potato Chips Salt 60g", "SNK", "68", "148", "0.07", 12, 3),
    ("SKU-00503", "Potato Chips Consomme 60g", "SNK", "68", "148", "0.07", 12, 3),
    ("SKU-00517", "Mixed Nuts 200g", "SNK", "285", "498", "0.21", 10, 3),
    ("SKU-00520", "Dried Mango 100g", "SNK", "198", "398", "0.11", 10, 3),
    ("SKU-00531", "Chocolate Bar 50g", "SNK", "62", "128", "0.05", 20, 3),
    ("SKU-00544", "Rice Crackers Soy 10p", "SNK", "118", "238", "0.12", 12, 4),
    ("SKU-00548", "Seaweed Snack 8p", "SNK", "145", "298", "0.04", 12, 4),
    ("SKU-00553", "Gummy Grape 80g", "SNK", "58", "128", "0.08", 20, 4),
    ("SKU-00610", "Koshihikari Rice 5kg", "DRY", "1850", "2980", "5.10", 4, 5),
    ("SKU-00622", "Udon Noodles 3p", "DRY", "88", "178", "0.62", 12, 5),
    ("SKU-00623", "Soba Noodles 300g", "DRY", "128", "258", "0.31", 20, 5),
    ("SKU-00640", "Miso Paste 750g", "DRY", "215", "398", "0.78", 12, 5),
    ("SKU-00641", "Soy Sauce 1L", "DRY", "168", "328", "1.15", 12, 5),
    ("SKU-00655", "Instant Ramen Shoyu 5p", "DRY", "248", "458", "0.52", 6, 5),
    ("SKU-00702", "Dish Soap 600ml", "HHD", "118", "228", "0.65", 20, 6),
    ("SKU-00705", "Laundry Detergent 1kg", "HHD", "285", "528", "1.05", 10, 6),
    ("SKU-00711", "Kitchen Sponge 3p", "HHD", "78", "168", "0.06", 40, 6),
    ("SKU-00730", "Paper Towel 4R", "HHD", "198", "358", "0.90", 12, 7),
    ("SKU-00731", "Toilet Paper 12R", "HHD", "345", "598", "1.60", 8, 7),
    ("SKU-00736", "Trash Bags 45L 50p", "HHD", "165", "298", "0.70", 20, 7),
]
_POPULAR = {"SKU-00101": 4, "SKU-00403": 4, "SKU-00404": 3, "SKU-00147": 2, "SKU-00502": 2, "SKU-00731": 2}
# name, code, home warehouse (1 TKY1, 2 OSK1, 3 PORT, 4 FKO1), weight of orders, price level against list
_CUSTOMERS = [
    ("Marufuku Stores", "C0001", 1, 6, "0.85"),
    ("Sakura Mart", "C0002", 1, 4, "0.88"),
    ("Hinode Retail", "C0003", 1, 2, "0.90"),
    ("Kintaro Foods", "C0004", 2, 2, "0.88"),
    ("Blue Ocean Hotels", "C0005", 3, 1, "0.95"),
    ("Tsubame Convenience", "C0006", 1, 2, "0.90"),
    ("Midori Co-op", "C0007", 1, 2, "0.85"),
    ("Sakura Drug", "C0008", 2, 4, "0.88"),
    ("Yamato Foodservice", "C0009", 2, 2, "0.90"),
    ("Hakata Grocers", "C0010", 4, 2, "0.90"),
    ("Naniwa Mart", "C0011", 2, 2, "0.88"),
    ("Kobe Harbor Trading", "C0012", 3, 2, "0.85"),
    ("Chiba Fresh Market", "C0013", 1, 1, "0.92"),
    ("Sendai Supply", "C0014", 1, 1, "0.92"),
    ("Ocean Deli", "C0015", 4, 1, "0.95"),
    ("Fuji Lodge", "C0016", 1, 1, "0.95"),
    ("Shonan Pharmacy", "C0017", 1, 1, "0.92"),
    ("Kyoto Kitchen Supply", "C0018", 2, 1, "0.92"),
    ("Taiyo Supermarket", "C0019", 1, 2, "0.88"),
    ("Momiji Inn", "C0020", 3, 1, "0.95"),
]
_HELD = 2  # sales orders of late May held back, not shipped yet


def _yen(value: Decimal, step: str = "1") -> Decimal:
    unit = Decimal(step)
    return ((value / unit).quantize(Decimal("1"), rounding=ROUND_HALF_UP) * unit).quantize(Decimal("0.01"))


def _weekdays(first: date, last: date):
    day = first
    while day <= last:
        if day.weekday() < 5:
            yield day
        day += timedelta(days=1)


def _next_weekday(day: date) -> date:
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


def _purchases(rng: random.Random) -> tuple[list[dict], list[dict]]:
    headers: list[dict] = []
    lines: list[dict] = []
    by_vendor = {v: [i for i, s in enumerate(_SKUS, start=1) if s[7] == v] for v in range(1, len(_VENDORS) + 1)}
    for day in _weekdays(_FIRST_DAY, TODAY - timedelta(days=1)):
        for _ in range(rng.choice([1, 1, 2, 2, 2, 3])):
            vnd = rng.choices(range(1, len(_VENDORS) + 1), weights=_PO_WEIGHTS)[0]
            po_no = 10001 + len(headers)
            eta = _next_weekday(day + timedelta(days=rng.randint(5, 16)))
            arrived = eta + timedelta(days=rng.choice([-1, 0, 0, 0, 1, 1, 2, 3]))
            late = day >= date(2025, 5, 1) and rng.random() < 0.06  # the vendor is late: still open, overdue
            received = arrived < TODAY and not late
            headers.append({"po_no": po_no, "vnd_id": vnd, "wh_id": rng.choices([1, 2, 3, 4], weights=[4, 3, 2, 1])[0],
                            "po_dt": day, "eta_dt": eta, "rcv_dt": _next_weekday(arrived) if received else None,
                            "stat": "RCVD" if received else "OPEN"})
            skus = rng.sample(by_vendor[vnd], min(len(by_vendor[vnd]), rng.randint(1, 4)))
            for line_no, sku_id in enumerate(skus, start=1):
                case = _SKUS[sku_id - 1][6]
                ordered = case * rng.randint(5, 60)
                cost = _yen(Decimal(_SKUS[sku_id - 1][3]) * Decimal(rng.choice(["0.97", "1", "1", "1", "1.03"])),
                            "0.5")
                got = 0
                if received:
                    roll = rng.random()
                    got = (ordered - rng.randint(1, case) if roll < 0.10 else
                           ordered + rng.randint(1, case) if roll < 0.13 else ordered)
                lines.append({"po_no": po_no, "line_no": line_no, "sku_id": sku_id, "ord_qty": ordered,
                              "rcv_qty": got, "unit_cost": cost, "ext_amt": cost * ordered})
    for vnd in _CANCELLED_FROM:
        po = rng.choice([h for h in headers
                         if h["vnd_id"] == vnd and date(2025, 2, 1) <= h["po_dt"] < date(2025, 4, 1)])
        po.update(stat="CNCL", rcv_dt=None)
        for line in lines:
            if line["po_no"] == po["po_no"]:
                line["rcv_qty"] = 0
    return headers, lines


def _sales(rng: random.Random) -> tuple[list[dict], list[dict]]:
    headers: list[dict] = []
    lines: list[dict] = []
    skus = list(range(1, len(_SKUS) + 1))
    sku_weights = [_POPULAR.get(s[0], 1) for s in _SKUS]
    for day in _weekdays(_FIRST_DAY, TODAY):
        for _ in range(rng.randint(6, 10)):
            cust_id = rng.choices(range(1, len(_CUSTOMERS) + 1), weights=[c[3] for c in _CUSTOMERS])[0]
            name, _, home, _, level = _CUSTOMERS[cust_id - 1]
            wh_id = home if rng.random() < 0.85 else rng.choice([w for w in (1, 2, 3, 4) if w != home])
            shipped = _next_weekday(day + timedelta(days=rng.choice([0, 1, 1, 1, 2, 2, 3])))
            so_no = 500001 + len(headers)
            headers.append({"so_no": so_no, "cust_id": cust_id, "wh_id": wh_id, "so_dt": day,
                            "ship_dt": shipped if shipped < TODAY else None})
            chosen: list[int] = []
            size = rng.randint(1, 5)
            while len(chosen) < size:
                sku_id = rng.choices(skus, weights=sku_weights)[0]
                if sku_id not in chosen:
                    chosen.append(sku_id)
            for line_no, sku_id in enumerate(chosen, start=1):
                case = _SKUS[sku_id - 1][6]
                qty = case * rng.randint(1, 8) if rng.random() < 0.8 else rng.randint(1, case * 2)
                promo = rng.random() < 0.1
                price = _yen(Decimal(_SKUS[sku_id - 1][4]) * Decimal("0.75" if promo else level))
                lines.append({"so_no": so_no, "line_no": line_no, "sku_id": sku_id, "qty": qty, "sell_prc": price,
                              "line_amt": price * qty})
    late_may = [h for h in headers if date(2025, 5, 26) <= h["so_dt"] <= date(2025, 5, 29)]
    for h in rng.sample(late_may, _HELD):
        h["ship_dt"] = None
    return headers, lines


def _stock(rng: random.Random, orders: list[dict], order_lines: list[dict]) -> list[dict]:
    waiting = {h["so_no"]: h["wh_id"] for h in orders if h["ship_dt"] is None}
    allocated: dict[tuple[int, int], int] = {}
    for line in order_lines:
        if line["so_no"] in waiting:
            key = (waiting[line["so_no"]], line["sku_id"])
            allocated[key] = allocated.get(key, 0) + line["qty"]
    rows = []
    for wh_id in range(1, len(_WAREHOUSES) + 1):
        for sku_id, sku in enumerate(_SKUS, start=1):
            case = sku[6]
            rows.append({"wh_id": wh_id, "sku_id": sku_id,
                         "qty_on_hand": case * rng.randint(0, 40) + rng.randint(0, case - 1),
                         "qty_alloc": allocated.get((wh_id, sku_id), 0),
                         "reorder_pt": case * rng.randint(5, 15),
                         "last_cnt_dt": rng.choice([date(2025, 3, 31), date(2025, 5, 31),
                                                    TODAY - timedelta(days=rng.randint(1, 20))])})
    return rows


def _data() -> dict[sa.Table, list[dict]]:
    rng = random.Random(SEED)
    po_headers, po_lines = _purchases(rng)
    so_headers, so_lines = _sales(rng)
    return {
        wh: [{"wh_id": i, "wh_cd": c, "wh_nm": n, "pref": p} for i, (c, n, p) in enumerate(_WAREHOUSES, start=1)],
        sku_mst: [{"sku_id": i, "sku_cd": c, "sku_nm": n, "cat_cd": cat, "unit_cost": Decimal(cost),
                   "list_prc": Decimal(price), "wt_kg": Decimal(kg), "case_qty": case}
                  for i, (c, n, cat, cost, price, kg, case, _) in enumerate(_SKUS, start=1)],
        vendor: [{"vnd_id": i, "vnd_nm": n, "country": c} for i, (n, c) in enumerate(_VENDORS, start=1)],
        cust: [{"cust_id": i, "cust_nm": n, "cust_cd": c} for i, (n, c, *_) in enumerate(_CUSTOMERS, start=1)],
        po_hdr: po_headers,
        po_dtl: po_lines,
        so_hdr: so_headers,
        so_dtl: so_lines,
        inv: _stock(rng, so_headers, so_lines),
    }


def create(url: str) -> None:
    """The tables and the seeded data set, the same on SQLite and PostgreSQL."""
    load(url, metadata, _data())


# --- the questions -----------------------------------------------------------------------------------
_MAY = ("2025-05-01", "2025-06-01")
_APRIL = ("2025-04-01", "2025-05-01")
_PO_LINES = "FROM po_dtl d JOIN po_hdr h ON h.po_no = d.po_no"
_SO_LINES = "FROM so_dtl d JOIN so_hdr h ON h.so_no = d.so_no"


def _in(column: str, period: tuple[str, str]) -> str:
    return f"{column} >= '{period[0]}' AND {column} < '{period[1]}'"


def _wh(code: str) -> str:
    return f"(SELECT wh_id FROM wh WHERE wh_cd = '{code}')"


def _sku(where: str) -> str:
    return f"(SELECT sku_id FROM sku_mst WHERE {where})"


def _cust(name: str) -> str:
    return f"(SELECT cust_id FROM cust WHERE cust_nm = '{name}')"


def _ordered(period: tuple[str, str]) -> tuple[list[str], list[str]]:
    """What the POs raised in a period add up to, and what an answer may add: how many POs, lines, units."""
    where = _in("h.po_dt", period)
    return ([f"SELECT SUM(d.ext_amt) {_PO_LINES} WHERE {where}"],
            [f"SELECT COUNT(*) FROM po_hdr h WHERE {where}", f"SELECT COUNT(*) {_PO_LINES} WHERE {where}",
             f"SELECT SUM(d.ord_qty) {_PO_LINES} WHERE {where}"])


def _sold(where: str, asked: str = "SUM(d.line_amt)") -> tuple[list[str], list[str]]:
    """One figure of the sales lines matching `where`, and the others an answer may add beside it."""
    beside = [e for e in ("SUM(d.line_amt)", "SUM(d.qty)", "COUNT(*)", "COUNT(DISTINCT h.so_no)") if e != asked]
    return [f"SELECT {asked} {_SO_LINES} WHERE {where}"], [f"SELECT {e} {_SO_LINES} WHERE {where}" for e in beside]


def _shipments(code: str, period: tuple[str, str]) -> tuple[list[str], list[str]]:
    where = f"h.wh_id = {_wh(code)} AND {_in('h.ship_dt', period)}"
    return [f"SELECT COUNT(*) FROM so_hdr h WHERE {where}"], _sold(where, "COUNT(DISTINCT h.so_no)")[1]


_OPEN = "SELECT COUNT(*) FROM po_hdr WHERE stat = 'OPEN'"
_OPEN_AMOUNT = f"SELECT SUM(d.ext_amt) {_PO_LINES} WHERE h.stat = 'OPEN'"
_RECEIVED_MAY = _in("h.rcv_dt", _MAY)
_PO = 10167  # received 2025-05-20, one line short (700 ordered, 694 came in)
_SKU_412 = _sku("sku_cd = 'SKU-00412'")
_GREEN_TEA = _sku("sku_nm = 'Green Tea 500ml'")
_BY_CUSTOMER = ("SELECT h.cust_id, SUM(d.line_amt) AS amt, COUNT(DISTINCT h.so_no) AS n "
                f"{_SO_LINES} GROUP BY h.cust_id")
_BY_VENDOR = "SELECT vnd_id, COUNT(*) AS n FROM po_hdr GROUP BY vnd_id"
_WH_CODES = [c for c, _, _ in _WAREHOUSES]
_ON_HAND = f"FROM inv WHERE wh_id = {_wh('PORT')} AND sku_id = {_SKU_412}"


def _q(id_: str, say: str, kind, figures: tuple[list[str], list[str]], follow_up: str | None = None) -> Question:
    return Question(id_, say, figures[0], kind, follow_up=follow_up, may_state=figures[1])


QUESTIONS = [
    Question("wh_skus", "how many SKUs do we have", ["SELECT COUNT(*) FROM sku_mst"], "count"),
    Question("wh_vendors_ja", "仕入先は何社ありますか", ["SELECT COUNT(*) FROM vendor"], "count"),
    Question("wh_open_pos", "open POs?", [_OPEN], "count_in_category", may_state=[_OPEN_AMOUNT]),
    Question("wh_not_received", "how many POs havent been received yet", [_OPEN], "count_in_category",
             may_state=[_OPEN_AMOUNT]),
    Question("wh_not_received_ja", "未入荷の発注は何件？", [_OPEN], "count_in_category", may_state=[_OPEN_AMOUNT]),
    Question("wh_open_osk", "list open POs for OSK1",
             [f"SELECT COUNT(*) FROM po_hdr WHERE stat = 'OPEN' AND wh_id = {_wh('OSK1')}"], "list_filtered",
             may_state=[f"SELECT SUM(d.ext_amt) {_PO_LINES} WHERE h.stat = 'OPEN' AND h.wh_id = {_wh('OSK1')}"]),
    _q("wh_ordered_last_month", "total ordered amount last month", "total_in_period", _ordered(_MAY)),
    _q("wh_ordered_april", "and the month before?", "follow_up", _ordered(_APRIL), follow_up="wh_ordered_last_month"),
    Question("wh_received_ja", "先月の入荷数量は", [f"SELECT SUM(d.rcv_qty) {_PO_LINES} WHERE {_RECEIVED_MAY}"],
             "sum_lines",
             may_state=[f"SELECT COUNT(*) FROM po_hdr h WHERE {_RECEIVED_MAY}",
                        f"SELECT COUNT(*) {_PO_LINES} WHERE {_RECEIVED_MAY}",
                        f"SELECT SUM(d.ord_qty) {_PO_LINES} WHERE {_RECEIVED_MAY}"]),
    Question("wh_po_amount_ja", f"発注{_PO}の金額いくら", [f"SELECT SUM(ext_amt) FROM po_dtl WHERE po_no = {_PO}"],
             "per_entity_key",
             may_state=[f"SELECT {e} FROM po_dtl WHERE po_no = {_PO}" for e in ("COUNT(*)", "SUM(ord_qty)")]),
    Question("wh_po_received", "how many units actually came in on that one",
             [f"SELECT SUM(rcv_qty) FROM po_dtl WHERE po_no = {_PO}"], "follow_up", follow_up="wh_po_amount_ja",
             may_state=[f"SELECT {e} FROM po_dtl WHERE po_no = {_PO}"
                        for e in ("COUNT(*)", "SUM(ord_qty)", "SUM(ext_amt)")]),
    Question("wh_top_vendor", "vendor with the most POs",
             [f"SELECT v.vnd_nm FROM vendor v JOIN ({_BY_VENDOR}) x ON x.vnd_id = v.vnd_id "
              "ORDER BY x.n DESC, v.vnd_id LIMIT 1",
              f"SELECT MAX(n) FROM ({_BY_VENDOR}) x"], "top_entity"),
    Question("wh_japan_vendors_ja", "日本の仕入先を一覧で", ["SELECT COUNT(*) FROM vendor WHERE country = 'Japan'"],
             "list_filtered"),
    _q("wh_shipped_412", "units shipped of SKU-00412 last month", "sum_lines",
       _sold(f"d.sku_id = {_SKU_412} AND {_in('h.ship_dt', _MAY)}", "SUM(d.qty)")),
    _q("wh_shipped_412_april", "and the month before?", "follow_up",
       _sold(f"d.sku_id = {_SKU_412} AND {_in('h.ship_dt', _APRIL)}", "SUM(d.qty)"), follow_up="wh_shipped_412"),
    _q("wh_green_tea_ja", "グリーンティー500mlは先月いくつ売れた？", "sum_lines",
       _sold(f"d.sku_id = {_GREEN_TEA} AND {_in('h.so_dt', _MAY)}", "SUM(d.qty)")),
    _q("wh_green_tea_april_ja", "その前の月は？", "follow_up",
       _sold(f"d.sku_id = {_GREEN_TEA} AND {_in('h.so_dt', _APRIL)}", "SUM(d.qty)"), follow_up="wh_green_tea_ja"),
    _q("wh_green_tea_en", "how many Green Tea 500ml did we sell last month", "sum_lines",
       _sold(f"d.sku_id = {_GREEN_TEA} AND {_in('h.so_dt', _MAY)}", "SUM(d.qty)")),
    Question("wh_top_customer", "who's our top customer by sales",
             [f"SELECT c.cust_nm FROM cust c JOIN ({_BY_CUSTOMER}) x ON x.cust_id = c.cust_id "
              "ORDER BY x.amt DESC, c.cust_id LIMIT 1",
              f"SELECT MAX(amt) FROM ({_BY_CUSTOMER}) x"], "top_entity",
             may_state=[f"SELECT n FROM ({_BY_CUSTOMER}) x ORDER BY amt DESC LIMIT 1"]),
    Question("wh_top_customer_ja", "売上トップの得意先は？",
             [f"SELECT c.cust_nm FROM cust c JOIN ({_BY_CUSTOMER}) x ON x.cust_id = c.cust_id "
              "ORDER BY x.amt DESC, c.cust_id LIMIT 1",
              f"SELECT MAX(amt) FROM ({_BY_CUSTOMER}) x"], "top_entity",
             may_state=[f"SELECT n FROM ({_BY_CUSTOMER}) x ORDER BY amt DESC LIMIT 1"]),
    Question("wh_sakura_mart_orders", "how many orders has Sakura Mart placed",
             [f"SELECT COUNT(*) FROM so_hdr WHERE cust_id = {_cust('Sakura Mart')}"], "count_by_entity_name",
             may_state=_sold(f"h.cust_id = {_cust('Sakura Mart')}")[0]),
    _q("wh_sakura_drug_ja", "Sakura Drugの先月の売上", "total_in_period",
       _sold(f"h.cust_id = {_cust('Sakura Drug')} AND {_in('h.so_dt', _MAY)}")),
    _q("wh_tky1_sales", "sales TKY1 last month", "total_in_period",
       _sold(f"h.wh_id = {_wh('TKY1')} AND {_in('h.so_dt', _MAY)}")),
    Question("wh_sales_by_wh", "sales by warehouse",
             [f"SELECT SUM(d.line_amt) {_SO_LINES} WHERE h.wh_id = {_wh(c)}" for c in _WH_CODES], "sum_lines",
             may_state=[f"SELECT SUM(d.line_amt) {_SO_LINES}",
                        *(f"SELECT COUNT(*) FROM so_hdr WHERE wh_id = {_wh(c)}" for c in _WH_CODES)]),
    Question("wh_sales_by_wh_ja", "先月の倉庫別売上",
             [f"SELECT SUM(d.line_amt) {_SO_LINES} WHERE h.wh_id = {_wh(c)} AND {_in('h.so_dt', _MAY)}"
              for c in _WH_CODES], "sum_lines",
             may_state=[f"SELECT SUM(d.line_amt) {_SO_LINES} WHERE {_in('h.so_dt', _MAY)}",
                        *(f"SELECT COUNT(*) FROM so_hdr h WHERE h.wh_id = {_wh(c)} AND {_in('h.so_dt', _MAY)}"
                          for c in _WH_CODES)]),
    _q("wh_tokyo_shipments_ja", "東京倉庫の先月の出荷件数", "total_in_period", _shipments("TKY1", _MAY)),
    _q("wh_tokyo_shipments_april_ja", "その前の月は？", "follow_up", _shipments("TKY1", _APRIL),
       follow_up="wh_tokyo_shipments_ja"),
    Question("wh_unshipped_ja", "まだ出荷してない受注何件", ["SELECT COUNT(*) FROM so_hdr WHERE ship_dt IS NULL"],
             "count_in_category", may_state=_sold("h.ship_dt IS NULL")[0]),
    Question("wh_port_on_hand", "whats on hand for SKU-00412 at PORT", [f"SELECT qty_on_hand {_ON_HAND}"],
             "per_entity_key", may_state=[f"SELECT qty_alloc {_ON_HAND}", f"SELECT reorder_pt {_ON_HAND}"]),
    Question("wh_tky1_low_stock_ja", "TKY1で発注点を割ってる品目いくつ",
             [f"SELECT COUNT(*) FROM inv WHERE wh_id = {_wh('TKY1')} AND qty_on_hand < reorder_pt"],
             "count_in_category"),
]


def traps(url: str) -> None:
    """Per-unit figures beside flows; two Green Teas; two Sakuras who together (not apart) outbuy the top customer;
    POs not received yet beside cancelled ones, 'OPEN' and 'PORT' as words; short and over receipts; orders
    shipped in another month than they were placed, and orders not shipped yet."""
    # never summed as flows: a level or a rate summed is no figure of the business
    shipped_may = scalar(url, f"SELECT SUM(d.qty) {_SO_LINES} WHERE {_in('h.ship_dt', _MAY)}")
    assert scalar(url, "SELECT SUM(qty_on_hand) FROM inv") != shipped_may
    assert scalar(url, "SELECT SUM(reorder_pt) FROM inv") != shipped_may
    assert scalar(url, "SELECT COUNT(*) FROM sku_mst WHERE case_qty > 1") == len(_SKUS)
    assert scalar(url, "SELECT COUNT(*) FROM sku_mst WHERE wt_kg <> 1") == len(_SKUS)
    assert scalar(url, "SELECT COUNT(*) FROM po_dtl d JOIN sku_mst s ON s.sku_id = d.sku_id "
                       "WHERE d.unit_cost <> s.unit_cost") > 0
    assert scalar(url, "SELECT COUNT(*) FROM so_dtl d JOIN sku_mst s ON s.sku_id = d.sku_id "
                       "WHERE d.sell_prc >= s.list_prc") == 0
    assert scalar(url, "SELECT COUNT(*) FROM so_dtl WHERE qty > 1") > 0  # a price is not a line amount
    # two Green Teas, both sold in May and April
    assert scalar(url, "SELECT COUNT(*) FROM sku_mst WHERE sku_nm LIKE 'Green Tea%'") == 2
    for period in (_MAY, _APRIL):
        assert scalar(url, f"SELECT COUNT(DISTINCT d.sku_id) {_SO_LINES} JOIN sku_mst s ON s.sku_id = d.sku_id "
                           f"WHERE s.sku_nm LIKE 'Green Tea%' AND {_in('h.so_dt', period)}") == 2
    # two Sakuras
    spent = f"SELECT SUM(d.line_amt) {_SO_LINES} WHERE h.cust_id = {{}}"
    mart, drug = scalar(url, spent.format(_cust("Sakura Mart"))), scalar(url, spent.format(_cust("Sakura Drug")))
    top = scalar(url, f"SELECT MAX(amt) FROM ({_BY_CUSTOMER}) x")
    assert scalar(url, "SELECT COUNT(*) FROM cust WHERE cust_nm LIKE 'Sakura %'") == 2
    assert max(mart, drug) < top < mart + drug
    # not received yet: OPEN with no rcv_dt, some overdue; cancelled ones have no rcv_dt either
    assert scalar(url, "SELECT COUNT(*) FROM po_hdr WHERE stat = 'OPEN' AND rcv_dt IS NOT NULL") == 0
    assert scalar(url, f"SELECT COUNT(*) FROM po_hdr WHERE stat = 'OPEN' AND eta_dt < '{TODAY}'") > 0
    assert 0 < scalar(url, _OPEN) < scalar(url, "SELECT COUNT(*) FROM po_hdr WHERE rcv_dt IS NULL")
    assert scalar(url, "SELECT COUNT(*) FROM po_hdr WHERE stat = 'CNCL' AND (po_dt < '2025-02-01' "
                       "OR po_dt >= '2025-04-01')") == 0
    assert scalar(url, "SELECT COUNT(*) FROM po_hdr WHERE stat = 'CNCL' AND vnd_id = "
                       f"(SELECT vnd_id FROM ({_BY_VENDOR}) x ORDER BY n DESC, vnd_id LIMIT 1)") == 0
    # a warehouse code that is a word
    assert scalar(url, "SELECT wh_nm FROM wh WHERE wh_cd = 'PORT'") == "Kobe Port DC"
    # received is not ordered, both ways, and an open PO has received nothing
    received = f"SELECT COUNT(*) {_PO_LINES} WHERE h.stat = 'RCVD' AND d.rcv_qty {{}} d.ord_qty"
    assert scalar(url, received.format("<")) > 0 and scalar(url, received.format(">")) > 0
    assert scalar(url, f"SELECT COUNT(*) FROM po_dtl WHERE po_no = {_PO} AND rcv_qty < ord_qty") > 0
    assert scalar(url, f"SELECT SUM(d.rcv_qty) {_PO_LINES} WHERE h.stat <> 'RCVD'") == 0
    # placed in April, shipped in May; not shipped yet, two of them from May
    assert scalar(url, f"SELECT COUNT(*) FROM so_hdr WHERE so_dt < '2025-05-01' AND {_in('ship_dt', _MAY)}") > 0
    assert scalar(url, f"SELECT COUNT(*) FROM so_hdr WHERE ship_dt IS NULL AND {_in('so_dt', _MAY)}") == _HELD
