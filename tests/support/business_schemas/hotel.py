"""A small hotel's property system: guests, room types, rooms, stays, and the extras charged to a stay.

Identifiers are English snake_case as a small PMS vendor names them (guests, room_types, rooms, stays,
extras; guest_id, check_in, check_out, amount_paid, charged_at); countries are English names; money is
Numeric(10,2). Stays run from October 2024 to TODAY; every stay has checked in (reservations still to
come live elsewhere), and a guest still in the house has no check_out yet (NULL) while `nights` holds the
nights booked. What a careless draft gets wrong is in the data:

- two guests named Anna (Anna Kowalski, Anna Berg) who together, not apart, paid more than the top guest
  (Thomas Becker), and two named Ken (Ken Tanaka, Ken Wright): a grouping by first name merges them;
- unit rates beside amounts: room_types.base_rate and rooms.nightly_rate (per night, never summed as takings)
  beside stays.amount_paid; extras.unit_price beside extras.amount; amount_paid is not nightly_rate x nights
  (member discounts, summer prices);
- nights, adults, max_occupancy and floor are counts and places, never money;
- room_types has no column called name: the type words are in `description` ('Standard', 'Double', 'Twin',
  'Suite') and `code`; rooms of a type are reached only through room_types; the Standard type has the most
  rooms, but Double rooms have the most stays;
- guests still in-house: check_out IS NULL (amount_paid 0.00 until they settle at check-out);
- room_number is text ('205') and is not room_id;
- 'phone' is a booking channel of stays and also a column of guests (a guest's phone number);
- stays in 2024 and 2025, one across the new year: a year's figure is not the all-time one.

How the questions are read: a stay belongs to the day, month and year of its check_in; a count of stays
counts every stay, in-house ones included; "haven't checked out yet" means the guests in the house on
TODAY (a check_out still empty), each counted once (each has one stay open); 「支払額」/"paid" is
stays.amount_paid (the room bill), extras are a separate money table reported by item; an extra belongs
to the day of its charged_at; "July" is July 2025, the last July before TODAY.
"""

from __future__ import annotations

import random
import unicodedata
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal

import sqlalchemy as sa

from . import Question, load, scalar

TODAY = date(2025, 9, 17)  # a Wednesday: last month is August 2025, last week Mon 8 to Sun 14 September
SEED = 20250917
_FIRST_DAY = date(2024, 10, 1)

metadata = sa.MetaData()
MONEY = sa.Numeric(10, 2)

guests = sa.Table("guests", metadata,
                  sa.Column("guest_id", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("first_name", sa.String(40), nullable=False),
                  sa.Column("last_name", sa.String(40), nullable=False),
                  sa.Column("email", sa.String(80)),
                  sa.Column("phone", sa.String(30)),
                  sa.Column("country", sa.String(40), nullable=False),
                  sa.Column("vip", sa.Boolean, nullable=False),
                  sa.Column("created_at", sa.DateTime, nullable=False))
room_types = sa.Table("room_types", metadata,
                      sa.Column("room_type_id", sa.Integer, primary_key=True, autoincrement=False),
                      sa.Column("code", sa.String(5), nullable=False),
                      sa.Column("description", sa.String(40), nullable=False),
                      sa.Column("base_rate", MONEY, nullable=False))
rooms = sa.Table("rooms", metadata,
                 sa.Column("room_id", sa.Integer, primary_key=True, autoincrement=False),
                 sa.Column("room_number", sa.String(5), nullable=False),
                 sa.Column("floor", sa.Integer, nullable=False),
                 sa.Column("room_type_id", sa.ForeignKey("room_types.room_type_id"), nullable=False),
                 sa.Column("nightly_rate", MONEY, nullable=False),
                 sa.Column("max_occupancy", sa.Integer, nullable=False))
stays = sa.Table("stays", metadata,
                 sa.Column("stay_id", sa.Integer, primary_key=True, autoincrement=False),
                 sa.Column("guest_id", sa.ForeignKey("guests.guest_id"), nullable=False, index=True),
                 sa.Column("room_id", sa.ForeignKey("rooms.room_id"), nullable=False, index=True),
                 sa.Column("check_in", sa.Date, nullable=False),
                 sa.Column("check_out", sa.Date),
                 sa.Column("nights", sa.Integer, nullable=False),
                 sa.Column("adults", sa.Integer, nullable=False),
                 sa.Column("amount_paid", MONEY, nullable=False),
                 sa.Column("channel", sa.String(20), nullable=False))
extras = sa.Table("extras", metadata,
                  sa.Column("extra_id", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("stay_id", sa.ForeignKey("stays.stay_id"), nullable=False, index=True),
                  sa.Column("item", sa.String(20), nullable=False),
                  sa.Column("quantity", sa.Integer, nullable=False),
                  sa.Column("unit_price", MONEY, nullable=False),
                  sa.Column("amount", MONEY, nullable=False),
                  sa.Column("charged_at", sa.DateTime, nullable=False))

# --- the data ------------------------------------------------------------------------------------------
_TYPES = [("STD", "Standard", "89.00", 2), ("DBL", "Double", "119.00", 2), ("TWN", "Twin", "109.00", 2),
          ("STE", "Suite", "240.00", 4)]
# room number -> type code; Standard has the most rooms, Double rooms are booked the most
_ROOMS = [("101", "STD"), ("102", "STD"), ("103", "STD"), ("104", "TWN"), ("105", "TWN"), ("106", "STD"),
          ("201", "DBL"), ("202", "DBL"), ("203", "STD"), ("204", "DBL"), ("205", "DBL"), ("206", "TWN"),
          ("207", "STD"),
          ("301", "DBL"), ("302", "DBL"), ("303", "STD"), ("304", "DBL"), ("305", "TWN"), ("306", "STE"),
          ("401", "STE"), ("402", "STE"), ("403", "STD"), ("404", "STD")]
_GAP = {"STD": (2, 9), "DBL": (0, 4), "TWN": (1, 8), "STE": (2, 10)}  # empty days between two stays
_CHANNELS = ["direct", "booking.com", "expedia", "phone", "walk-in"]
_CHANNEL_WEIGHTS = [28, 36, 16, 13, 7]
_EXTRAS = [  # item, chance per stay, unit prices
    ("breakfast", 0.45, ["14.50"]), ("minibar", 0.3, ["4.50", "6.00", "8.50"]), ("spa", 0.12, ["65.00", "85.00"]),
    ("parking", 0.2, ["12.00"]), ("laundry", 0.08, ["18.00"])]

_PEOPLE = {  # country -> first names, last names
    "Germany": (["Lukas", "Julia", "Felix", "Laura", "Jonas", "Lena", "Paul", "Marie"],
                ["Müller", "Schmidt", "Fischer", "Weber", "Wagner", "Hoffmann", "Schulz"]),
    "United Kingdom": (["Oliver", "Emily", "Harry", "Charlotte", "George", "Amelia", "James"],
                       ["Smith", "Jones", "Taylor", "Brown", "Davies", "Evans", "Wilson"]),
    "United States": (["Michael", "Jessica", "David", "Ashley", "Chris", "Sarah", "Daniel"],
                      ["Johnson", "Miller", "Davis", "Garcia", "Martinez", "Clark", "Lewis"]),
    "France": (["Louis", "Camille", "Hugo", "Léa", "Jules", "Chloé"],
               ["Martin", "Bernard", "Dubois", "Moreau", "Laurent", "Lefèvre"]),
    "Italy": (["Marco", "Giulia", "Luca", "Chiara", "Matteo", "Francesca"],
              ["Bianchi", "Romano", "Colombo", "Ricci", "Marino", "Greco"]),
    "Spain": (["Javier", "Lucía", "Pablo", "Carmen", "Diego", "Elena"],
              ["García", "Fernández", "López", "Sánchez", "Pérez", "Gómez"]),
    "Netherlands": (["Daan", "Sanne", "Bram", "Femke", "Sem"], ["de Jong", "Jansen", "de Vries", "Bakker", "Visser"]),
    "Japan": (["Hiroshi", "Yuki", "Takumi", "Sakura", "Daisuke", "Aiko"],
              ["Suzuki", "Sato", "Watanabe", "Ito", "Yamamoto", "Nakamura"]),
    "Australia": (["Jack", "Olivia", "Noah", "Mia", "Liam"], ["Walker", "Hall", "Young", "King", "Wright"]),
    "Canada": (["Ethan", "Emma", "Logan", "Ava"], ["Tremblay", "Roy", "Gagnon", "Campbell"]),
    "Poland": (["Jakub", "Zofia", "Piotr", "Maja"], ["Nowak", "Wiśniewski", "Wójcik", "Kamiński"]),
    "Sweden": (["Erik", "Elsa", "Oskar", "Ebba"], ["Johansson", "Andersson", "Karlsson", "Nilsson"]),
}
_COUNTRY_WEIGHTS = {"Germany": 16, "United Kingdom": 14, "United States": 11, "France": 9, "Italy": 8, "Spain": 6,
                    "Netherlands": 7, "Japan": 5, "Australia": 4, "Canada": 3, "Poland": 3, "Sweden": 3}
_DIAL = {"Germany": "+49", "United Kingdom": "+44", "United States": "+1", "France": "+33", "Italy": "+39",
         "Spain": "+34", "Netherlands": "+31", "Japan": "+81", "Australia": "+61", "Canada": "+1", "Poland": "+48",
         "Sweden": "+46"}
# guest_id -> (first, last, country, weight): the guests the traps are made of; everyone else weighs 1
_NAMED = {3: ("Sofia", "Rossi", "Italy", 4), 9: ("Anna", "Kowalski", "Poland", 6),
          14: ("Thomas", "Becker", "Germany", 11), 18: ("Ken", "Tanaka", "Japan", 3),
          27: ("Anna", "Berg", "Sweden", 6), 41: ("Ken", "Wright", "Australia", 2)}
_GUESTS = 320
_CENT = Decimal("0.01")


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower().replace(" ", "")


def _guests(rng: random.Random) -> list[dict]:
    rows, taken, emails = [], {(f, last) for f, last, _, _ in _NAMED.values()}, set()
    countries = list(_COUNTRY_WEIGHTS)
    for guest_id in range(1, _GUESTS + 1):
        if guest_id in _NAMED:
            first, last, country, _ = _NAMED[guest_id]
        else:
            while True:
                country = rng.choices(countries, weights=list(_COUNTRY_WEIGHTS.values()))[0]
                first, last = rng.choice(_PEOPLE[country][0]), rng.choice(_PEOPLE[country][1])
                if (first, last) not in taken:
                    break
            taken.add((first, last))
        email = f"{_ascii(first)}.{_ascii(last)}@example.com"
        while email in emails:
            email = email.replace("@", f"{rng.randrange(10)}@")
        emails.add(email)
        phone = (None if rng.random() < 0.15
                 else f"{_DIAL[country]} {rng.randrange(100, 999)} {rng.randrange(10**6, 10**7)}")
        rows.append({"guest_id": guest_id, "first_name": first, "last_name": last,
                     "email": None if rng.random() < 0.08 else email, "phone": phone, "country": country,
                     "vip": guest_id == 14 or rng.random() < 0.04, "created_at": None})
    return rows


def _money(value: Decimal) -> Decimal:
    return value.quantize(_CENT, rounding=ROUND_HALF_UP)


def _stays(rng: random.Random, guest_rows: list[dict], room_rows: list[dict], code_of: dict[int, str]
           ) -> list[dict]:
    """Each room's stays one after another from _FIRST_DAY; the stay under way on TODAY is in-house."""
    weights = [_NAMED.get(g["guest_id"], (0, 0, 0, 1))[3] for g in guest_rows]
    ids = [g["guest_id"] for g in guest_rows]
    planned = []
    for room in room_rows:
        code = code_of[room["room_type_id"]]
        day = _FIRST_DAY + timedelta(days=rng.randrange(4))
        while day <= TODAY:
            nights = rng.choices([1, 2, 3, 4, 5, 7], weights=[22, 30, 22, 12, 8, 6])[0]
            planned.append((day, room, nights))
            day += timedelta(days=nights + rng.randint(*_GAP[code]))
    planned.sort(key=lambda p: (p[0], p[1]["room_id"]))
    rows, in_house = [], set()
    for day, room, nights in planned:
        open_ = day + timedelta(days=nights) > TODAY
        while True:
            guest_id = rng.choices(ids, weights=weights)[0]
            if not open_ or (guest_id not in in_house and guest_id not in _NAMED):
                break
        if open_:
            in_house.add(guest_id)
        channel = rng.choices(_CHANNELS, weights=_CHANNEL_WEIGHTS)[0]
        rate = room["nightly_rate"]
        if day.month in (7, 8):
            rate *= Decimal("1.15")  # summer prices
        if channel == "direct" and rng.random() < 0.4:
            rate *= Decimal("0.90")  # member rate
        rows.append({"stay_id": len(rows) + 1, "guest_id": guest_id, "room_id": room["room_id"], "check_in": day,
                     "check_out": None if open_ else day + timedelta(days=nights), "nights": nights,
                     "adults": rng.randint(1, room["max_occupancy"]),
                     "amount_paid": Decimal("0.00") if open_ else _money(rate * nights), "channel": channel})
    return rows


def _extras(rng: random.Random, stay_rows: list[dict]) -> list[dict]:
    rows = []
    for stay in stay_rows:
        last = stay["check_out"] or TODAY
        for item, chance, prices in _EXTRAS:
            if rng.random() >= chance:
                continue
            nights = max(1, min(stay["nights"], (last - stay["check_in"]).days))
            quantity = {"breakfast": stay["adults"] * nights, "minibar": rng.randint(1, 4),
                        "spa": rng.randint(1, 2), "parking": nights, "laundry": 1}[item]
            unit = Decimal(rng.choice(prices))
            day = stay["check_in"] + timedelta(days=rng.randrange(max(1, (last - stay["check_in"]).days)))
            at = datetime.combine(day, time(rng.randint(8, 22), rng.randrange(60)))
            rows.append({"extra_id": len(rows) + 1, "stay_id": stay["stay_id"], "item": item, "quantity": quantity,
                         "unit_price": unit, "amount": _money(unit * quantity), "charged_at": at})
    rows.sort(key=lambda r: (r["charged_at"], r["stay_id"]))
    for i, row in enumerate(rows, start=1):
        row["extra_id"] = i
    return rows


def _data() -> dict[sa.Table, list[dict]]:
    rng = random.Random(SEED)
    type_rows = [{"room_type_id": i, "code": c, "description": d, "base_rate": Decimal(r)}
                 for i, (c, d, r, _) in enumerate(_TYPES, start=1)]
    type_of = {c: i for i, (c, _, _, _) in enumerate(_TYPES, start=1)}
    room_rows = []
    for room_id, (number, code) in enumerate(_ROOMS, start=1):
        floor = int(number[0])
        base = Decimal(_TYPES[type_of[code] - 1][2])
        room_rows.append({"room_id": room_id, "room_number": number, "floor": floor, "room_type_id": type_of[code],
                          "nightly_rate": base + 5 * (floor - 1), "max_occupancy": _TYPES[type_of[code] - 1][3]})
    guest_rows = _guests(rng)
    stay_rows = _stays(rng, guest_rows, room_rows, {i: c for c, i in type_of.items()})
    first_stay: dict[int, date] = {}
    for stay in stay_rows:
        first_stay.setdefault(stay["guest_id"], stay["check_in"])
    for guest in guest_rows:  # on file from the first booking: some days before the first stay
        first = first_stay.get(guest["guest_id"], TODAY - timedelta(days=rng.randrange(1, 40)))
        booked = first - timedelta(days=rng.randrange(1, 60))
        guest["created_at"] = datetime.combine(booked, time(rng.randint(7, 23), rng.randrange(60)))
    return {room_types: type_rows, rooms: room_rows, guests: guest_rows, stays: stay_rows,
            extras: _extras(rng, stay_rows)}


def create(url: str) -> None:
    """The tables and the seeded data set, the same on SQLite and PostgreSQL."""
    load(url, metadata, _data())


# --- the questions -----------------------------------------------------------------------------------
_AUGUST = ("2025-08-01", "2025-09-01")
_JULY = ("2025-07-01", "2025-08-01")
_YEAR_2025 = ("2025-01-01", "2026-01-01")
_LAST_WEEK = ("2025-09-08", "2025-09-15")
_IN_HOUSE = f"check_out IS NULL AND check_in <= '{TODAY.isoformat()}'"


def _checked_in(period: tuple[str, str], column: str = "COUNT(*)", where: str = "") -> str:
    return (f"SELECT {column} FROM stays WHERE check_in >= '{period[0]}' AND check_in < '{period[1]}'"
            + (f" AND {where}" if where else ""))


def _charged(column: str, period: tuple[str, str] | None = None, item: str | None = None) -> str:
    where = [f"item = '{item}'"] if item else []
    if period:
        where.append(f"charged_at >= '{period[0]}' AND charged_at < '{period[1]}'")
    return f"SELECT {column} FROM extras" + (f" WHERE {' AND '.join(where)}" if where else "")


def _paid_beside(period: tuple[str, str]) -> list[str]:
    """What an answer on a period's room payments may add: how many stays, and the extras charged in it."""
    return [_checked_in(period), _charged("SUM(amount)", period)]


def _of_type(description: str) -> str:
    return ("FROM stays s JOIN rooms r ON r.room_id = s.room_id JOIN room_types t ON t.room_type_id = r.room_type_id "
            f"WHERE t.description = '{description}'")


def _of_guest(first: str, last: str) -> str:
    return (f"FROM stays s JOIN guests g ON g.guest_id = s.guest_id "
            f"WHERE g.first_name = '{first}' AND g.last_name = '{last}'")


_STAYS_BY_TYPE = ("SELECT t.description, COUNT(*) AS n FROM stays s JOIN rooms r ON r.room_id = s.room_id "
                  "JOIN room_types t ON t.room_type_id = r.room_type_id GROUP BY t.room_type_id, t.description")
_PAID_BY_GUEST = "SELECT guest_id, SUM(amount_paid) AS paid, COUNT(*) AS n FROM stays GROUP BY guest_id"
_BY_CHANNEL = "SELECT channel, COUNT(*) AS n FROM stays GROUP BY channel"
_ITEMS = ["breakfast", "minibar", "spa", "parking", "laundry"]

QUESTIONS = [
    Question("h_guests", "How many guests do we have on file?", ["SELECT COUNT(*) FROM guests"], "count"),
    Question("h_rooms_ja", "部屋は全部でいくつありますか", ["SELECT COUNT(*) FROM rooms"], "count"),
    Question("h_stays_ja", "宿泊は全部で何件？", ["SELECT COUNT(*) FROM stays"], "count"),
    Question("h_suite_stays", "How many stays were in the suite rooms?", [f"SELECT COUNT(*) {_of_type('Suite')}"],
             "count_in_category", may_state=[f"SELECT SUM(s.amount_paid) {_of_type('Suite')}"]),
    Question("h_suite_rooms_ja", "スイートの部屋はいくつ？",
             ["SELECT COUNT(*) FROM rooms r JOIN room_types t ON t.room_type_id = r.room_type_id "
              "WHERE t.description = 'Suite'"], "count_in_category"),
    Question("h_top_type", "Which room type had the most stays?",
             [f"SELECT description FROM ({_STAYS_BY_TYPE}) x ORDER BY n DESC LIMIT 1",
              f"SELECT MAX(n) FROM ({_STAYS_BY_TYPE}) x"], "top_entity"),
    Question("h_in_house", "How many guests haven't checked out yet?",
             [f"SELECT COUNT(DISTINCT guest_id) FROM stays WHERE {_IN_HOUSE}"], "count_in_category",
             may_state=[f"SELECT SUM(adults) FROM stays WHERE {_IN_HOUSE}"]),  # the people in those rooms
    Question("h_in_house_ja", "まだチェックアウトしていないお客様は何人？",
             [f"SELECT COUNT(DISTINCT guest_id) FROM stays WHERE {_IN_HOUSE}"], "count_in_category",
             may_state=[f"SELECT SUM(adults) FROM stays WHERE {_IN_HOUSE}"]),
    Question("h_paid_2025_ja", "2025年の支払額の合計は？", [_checked_in(_YEAR_2025, "SUM(amount_paid)")],
             "total_in_period", may_state=_paid_beside(_YEAR_2025)),
    Question("h_paid_last_month", "how much did guests pay for their stays last month",
             [_checked_in(_AUGUST, "SUM(amount_paid)")], "total_in_period", may_state=_paid_beside(_AUGUST)),
    Question("h_paid_july", "and july?", [_checked_in(_JULY, "SUM(amount_paid)")], "follow_up",
             follow_up="h_paid_last_month", may_state=_paid_beside(_JULY)),
    Question("h_checkins_last_week_ja", "先週のチェックインは何件？", [_checked_in(_LAST_WEEK)], "total_in_period"),
    Question("h_ken_tanaka_ja", "Ken Tanakaさんの宿泊は何件？", [f"SELECT COUNT(*) {_of_guest('Ken', 'Tanaka')}"],
             "count_by_entity_name", may_state=[f"SELECT SUM(s.amount_paid) {_of_guest('Ken', 'Tanaka')}"]),
    Question("h_anna_berg", "How many times has Anna Berg stayed with us?",
             [f"SELECT COUNT(*) {_of_guest('Anna', 'Berg')}"], "count_by_entity_name",
             may_state=[f"SELECT SUM(s.amount_paid) {_of_guest('Anna', 'Berg')}"]),
    Question("h_anna_berg_direct", "how many of those were booked direct",
             [f"SELECT COUNT(*) {_of_guest('Anna', 'Berg')} AND s.channel = 'direct'"], "follow_up",
             follow_up="h_anna_berg", may_state=[f"SELECT COUNT(*) {_of_guest('Anna', 'Berg')}"]),
    Question("h_top_guest", "Who is our top guest by amount paid?",
             ["SELECT g.last_name FROM guests g JOIN (" + _PAID_BY_GUEST + ") x ON x.guest_id = g.guest_id "
              "ORDER BY x.paid DESC LIMIT 1",
              f"SELECT MAX(paid) FROM ({_PAID_BY_GUEST}) x"], "top_entity",
             may_state=[f"SELECT n FROM ({_PAID_BY_GUEST}) x ORDER BY paid DESC LIMIT 1"]),
    Question("h_top_channel_ja", "いちばん多い予約経路は？",
             [f"SELECT channel FROM ({_BY_CHANNEL}) x ORDER BY n DESC LIMIT 1",
              f"SELECT MAX(n) FROM ({_BY_CHANNEL}) x"], "top_entity"),
    Question("h_guest_3", "show me the stays of guest 3", ["SELECT COUNT(*) FROM stays WHERE guest_id = 3"],
             "per_entity_key", may_state=["SELECT SUM(amount_paid) FROM stays WHERE guest_id = 3"]),
    Question("h_guest_3_paid_ja", "そのお客様の支払額の合計は？",
             ["SELECT SUM(amount_paid) FROM stays WHERE guest_id = 3"], "follow_up", follow_up="h_guest_3",
             may_state=["SELECT COUNT(*) FROM stays WHERE guest_id = 3",
                        "SELECT SUM(e.amount) FROM extras e JOIN stays s ON s.stay_id = e.stay_id WHERE s.guest_id = 3",
                        "SELECT guest_id FROM guests WHERE guest_id = 3"]),  # the guest the question carries on
    Question("h_room_205_ja", "205号室の宿泊は何件？",
             ["SELECT COUNT(*) FROM stays s JOIN rooms r ON r.room_id = s.room_id WHERE r.room_number = '205'"],
             "per_entity_key",
             may_state=["SELECT SUM(s.amount_paid) FROM stays s JOIN rooms r ON r.room_id = s.room_id "
                        "WHERE r.room_number = '205'"]),
    Question("h_phone", "how many stays were booked by phone", ["SELECT COUNT(*) FROM stays WHERE channel = 'phone'"],
             "count_in_category", may_state=["SELECT SUM(amount_paid) FROM stays WHERE channel = 'phone'"]),
    Question("h_by_channel", "stays by channel",
             [f"SELECT COUNT(*) FROM stays WHERE channel = '{c}'" for c in _CHANNELS], "count_in_category",
             may_state=["SELECT COUNT(*) FROM stays"]),
    Question("h_extras_by_type", "extras total by type", [_charged("SUM(amount)", item=i) for i in _ITEMS],
             "sum_lines",
             may_state=[_charged("SUM(amount)"), _charged("COUNT(*)"), *(_charged(c, item=i) for i in _ITEMS
                                                    for c in ("COUNT(*)", "SUM(quantity)"))]),
    Question("h_minibar_last_month_ja", "先月のミニバーの売上は？", [_charged("SUM(amount)", _AUGUST, "minibar")],
             "sum_lines", may_state=[_charged(c, _AUGUST, "minibar") for c in ("COUNT(*)", "SUM(quantity)")]),
    Question("h_spa_last_month_ja", "スパは？", [_charged("SUM(amount)", _AUGUST, "spa")], "follow_up",
             follow_up="h_minibar_last_month_ja",
             may_state=[_charged(c, _AUGUST, "spa") for c in ("COUNT(*)", "SUM(quantity)")]),
    Question("h_breakfasts_ja", "朝食は何食出ましたか", [_charged("SUM(quantity)", item="breakfast")], "sum_lines",
             may_state=[_charged(c, item="breakfast") for c in ("COUNT(*)", "SUM(amount)")]),
    Question("h_floor_3_ja", "3階の部屋を見せて",  # the room numbers, in the order of the list
             [f"SELECT room_number FROM rooms WHERE floor = 3 ORDER BY room_number LIMIT 1 OFFSET {k}"
              for k in range(6)], "list_filtered", may_state=["SELECT COUNT(*) FROM rooms WHERE floor = 3"]),
    Question("h_germany_ja", "ドイツのお客様は何人？", ["SELECT COUNT(*) FROM guests WHERE country = 'Germany'"],
             "count_in_category"),
]


def traps(url: str) -> None:
    """Each trap of the module docstring, in the data."""
    anna = ("SELECT SUM(s.amount_paid) FROM stays s JOIN guests g ON g.guest_id = s.guest_id "
            "WHERE g.first_name = 'Anna' GROUP BY g.guest_id ORDER BY g.guest_id LIMIT 1 OFFSET {}")
    kowalski, berg = scalar(url, anna.format(0)), scalar(url, anna.format(1))
    top = scalar(url, f"SELECT MAX(paid) FROM ({_PAID_BY_GUEST}) x")
    assert max(kowalski, berg) < top < kowalski + berg
    assert scalar(url, "SELECT g.last_name FROM guests g JOIN (" + _PAID_BY_GUEST + ") x ON x.guest_id = g.guest_id "
                       "ORDER BY x.paid DESC LIMIT 1") == "Becker"
    assert scalar(url, "SELECT COUNT(*) FROM guests WHERE first_name = 'Anna'") == 2
    assert scalar(url, "SELECT COUNT(*) FROM guests WHERE first_name = 'Ken'") == 2
    assert scalar(url, "SELECT COUNT(*) FROM stays s JOIN guests g ON g.guest_id = s.guest_id "
                       "WHERE g.first_name = 'Ken' AND g.last_name = 'Wright'") > 0
    # unit rates beside amounts: summing a rate is not the takings; the paid amount is not rate x nights
    assert scalar(url, "SELECT COUNT(*) FROM rooms r JOIN room_types t ON t.room_type_id = r.room_type_id "
                       "WHERE r.nightly_rate <> t.base_rate") > 0
    assert scalar(url, "SELECT COUNT(*) FROM stays s JOIN rooms r ON r.room_id = s.room_id "
                       "WHERE s.check_out IS NOT NULL AND s.amount_paid <> r.nightly_rate * s.nights") > 0
    assert scalar(url, "SELECT COUNT(*) FROM extras WHERE quantity > 1 AND amount <> unit_price") > 0
    # nights and adults are counts that differ from the stays they belong to
    assert scalar(url, "SELECT COUNT(*) FROM stays WHERE nights > 1") > 0
    assert scalar(url, "SELECT COUNT(*) FROM stays WHERE adults > 1") > 0
    # room types: no name column; rooms of a type only through room_types; most rooms is not most stays
    engine = sa.create_engine(url)
    try:
        inspector = sa.inspect(engine)
        assert "name" not in {c["name"] for c in inspector.get_columns("room_types")}
        assert "description" not in {c["name"] for c in inspector.get_columns("rooms")}
        assert "phone" in {c["name"] for c in inspector.get_columns("guests")}
    finally:
        engine.dispose()
    most_rooms = scalar(url, "SELECT t.description FROM rooms r JOIN room_types t ON t.room_type_id = r.room_type_id "
                             "GROUP BY t.room_type_id, t.description ORDER BY COUNT(*) DESC LIMIT 1")
    most_stays = scalar(url, f"SELECT description FROM ({_STAYS_BY_TYPE}) x ORDER BY n DESC LIMIT 1")
    assert (most_rooms, most_stays) == ("Standard", "Double")
    # guests in the house on TODAY, each with one open stay; the figure is not every stay
    in_house = scalar(url, f"SELECT COUNT(*) FROM stays WHERE {_IN_HOUSE}")
    assert 0 < in_house == scalar(url, f"SELECT COUNT(DISTINCT guest_id) FROM stays WHERE {_IN_HOUSE}")
    assert scalar(url, "SELECT COUNT(*) FROM stays WHERE check_out IS NULL") == in_house
    assert scalar(url, f"SELECT COUNT(*) FROM stays WHERE {_IN_HOUSE} AND amount_paid = 0") == in_house
    assert scalar(url, f"SELECT COUNT(*) FROM stays WHERE check_out IS NULL AND check_in < '{TODAY}' "
                       f"AND nights > 1") > 0  # in before today, still here
    assert scalar(url, "SELECT COUNT(*) FROM rooms WHERE floor = 3") == 6
    # room_number is text and is not room_id
    assert scalar(url, "SELECT room_id FROM rooms WHERE room_number = '205'") != 205
    # 'phone' is a channel (and guests.phone a column, above)
    assert scalar(url, "SELECT COUNT(*) FROM stays WHERE channel = 'phone'") > 0
    # 2024 and 2025 stays, one across the new year
    assert scalar(url, "SELECT COUNT(*) FROM stays WHERE check_in < '2025-01-01'") > 0
    assert scalar(url, "SELECT COUNT(*) FROM stays WHERE check_in < '2025-01-01' AND check_out > '2025-01-01'") > 0
