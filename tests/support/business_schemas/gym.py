"""A fitness club chain's member system: branches, membership plans, members, visits, classes, bookings, payments.

Identifiers are camelCase in quoted PascalCase plural tables, as a JavaScript ORM (Sequelize) creates them:
"Branches", "MembershipPlans", "Members", "Visits", "Classes", "ClassBookings", "Payments"; every table has an
"id" key and "createdAt" / "updatedAt" stamps, and references are "memberId", "branchId", "planId", "classId".
Names are English or romaji (Yuki Tanaka), money is integer yen. Visits run from 2025-01-01 to TODAY, class
sessions from March to the end of June 2025 (bookings of sessions still to come are 'booked'), payments from
the first member's joining day (January 2023) to TODAY. What a careless draft gets wrong is in the data:

- two members named Yuki (Yuki Tanaka, Yuki Sato) who together, not apart, paid more than the top member
  (Kenji Kobayashi); a second Tanaka (Haruto Tanaka): a first name or a last name alone merges two people;
- "MembershipPlans"."monthlyFee" (a price per month), "Classes"."capacity" (places per session) and
  "durationMinutes" (of a class, of a visit) are never summed as takings or counts; what members paid is
  "Payments"."amountPaid" (monthly fees, joining fees, personal training);
- members still active have "cancelledAt" NULL; cancelled ones keep their row, their visits and their payments;
- class 'Yoga' beside 'Hot Yoga' (a substring match is broader than the class asked for);
- the branch 'Central' has a name that is also an ordinary word; Central has the most members (home branch,
  "Members"."branchId") but Riverside has the most visits ("Visits"."branchId", where the member checked in);
- payments of members who later cancelled are takings all the same: some who cancelled in June paid in May;
- a visit under way on TODAY has no "checkOutAt" and no "durationMinutes" yet.

How the questions are read: "members" / 「会員」 are everyone on file, cancelled ones included, unless the
question says active (cancelledAt NULL) or cancelled; a member cancelled in the month of their "cancelledAt";
a visit belongs to the day of its "checkInAt", at the branch of the visit; a booking belongs to the day of its
session ("scheduledFor"), not the day it was made, and a count of bookings counts every status unless the
question names one; "this month" is the whole of June 2025, sessions still to come included; revenue /
売上 is the sum of "amountPaid" by "paidAt"; "the Yoga class" is the class named exactly 'Yoga'. The data has
no date of birth, so an average age cannot be told: its one figure is a sentence no answer states, and the
right outcome is an honest one (any figure stated is wrong).
"""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta

import sqlalchemy as sa

from business_schemas import Question, load, scalar

TODAY = date(2025, 6, 18)  # a Wednesday: last month is May 2025, last week Mon 9 to Sun 15 June
SEED = 20250618
_VISITS_FROM = date(2025, 1, 1)
_SESSIONS = (date(2025, 3, 3), date(2025, 6, 30))

metadata = sa.MetaData()


def _stamps() -> list[sa.Column]:
    return [sa.Column("createdAt", sa.DateTime, nullable=False), sa.Column("updatedAt", sa.DateTime, nullable=False)]


branches = sa.Table("Branches", metadata,
                    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                    sa.Column("name", sa.String(60), nullable=False),
                    sa.Column("city", sa.String(60), nullable=False),
                    sa.Column("phone", sa.String(20)),
                    sa.Column("openedAt", sa.Date, nullable=False),
                    *_stamps())
plans = sa.Table("MembershipPlans", metadata,
                 sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                 sa.Column("name", sa.String(40), nullable=False),
                 sa.Column("monthlyFee", sa.Integer, nullable=False),
                 sa.Column("description", sa.String(200)),
                 *_stamps())
members = sa.Table("Members", metadata,
                   sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                   sa.Column("firstName", sa.String(40), nullable=False),
                   sa.Column("lastName", sa.String(40), nullable=False),
                   sa.Column("email", sa.String(120)),
                   sa.Column("phone", sa.String(20)),
                   sa.Column("branchId", sa.ForeignKey("Branches.id"), nullable=False),
                   sa.Column("planId", sa.ForeignKey("MembershipPlans.id"), nullable=False),
                   sa.Column("joinedAt", sa.DateTime, nullable=False),
                   sa.Column("cancelledAt", sa.DateTime),
                   sa.Column("cancelReason", sa.String(100)),
                   *_stamps())
visits = sa.Table("Visits", metadata,
                  sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("memberId", sa.ForeignKey("Members.id"), nullable=False),
                  sa.Column("branchId", sa.ForeignKey("Branches.id"), nullable=False),
                  sa.Column("checkInAt", sa.DateTime, nullable=False),
                  sa.Column("checkOutAt", sa.DateTime),
                  sa.Column("durationMinutes", sa.Integer),
                  *_stamps())
classes = sa.Table("Classes", metadata,
                   sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                   sa.Column("name", sa.String(60), nullable=False),
                   sa.Column("branchId", sa.ForeignKey("Branches.id"), nullable=False),
                   sa.Column("instructorName", sa.String(80), nullable=False),
                   sa.Column("capacity", sa.Integer, nullable=False),
                   sa.Column("durationMinutes", sa.Integer, nullable=False),
                   sa.Column("dayOfWeek", sa.Integer, nullable=False),
                   sa.Column("startTime", sa.String(5), nullable=False),
                   *_stamps())
bookings = sa.Table("ClassBookings", metadata,
                    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                    sa.Column("classId", sa.ForeignKey("Classes.id"), nullable=False),
                    sa.Column("memberId", sa.ForeignKey("Members.id"), nullable=False),
                    sa.Column("scheduledFor", sa.DateTime, nullable=False),
                    sa.Column("status", sa.String(20), nullable=False),
                    *_stamps())
payments = sa.Table("Payments", metadata,
                    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                    sa.Column("memberId", sa.ForeignKey("Members.id"), nullable=False),
                    sa.Column("amountPaid", sa.Integer, nullable=False),
                    sa.Column("paidAt", sa.DateTime, nullable=False),
                    sa.Column("paymentMethod", sa.String(20), nullable=False),
                    sa.Column("paymentType", sa.String(30), nullable=False),
                    *_stamps())

# --- the data ------------------------------------------------------------------------------------------
_BRANCHES = [("Central", "Tokyo", date(2019, 4, 1)), ("Riverside", "Tokyo", date(2020, 10, 1)),
             ("Northgate", "Saitama", date(2021, 6, 1)), ("Harbor", "Yokohama", date(2022, 3, 1)),
             ("Eastside", "Chiba", date(2022, 11, 1))]
_HOME_WEIGHTS = [31, 22, 17, 15, 15]  # Central has the most members
_VISIT_RATE = [0.8, 1.7, 1.0, 1.0, 1.0]  # Riverside members (office workers) come the most often
_PLANS = [("Basic", 6980, "Gym floor, weekdays and weekends"), ("Standard", 9800, "Gym floor and classes"),
          ("Premium", 14800, "All branches, classes, towels"), ("Off-Peak", 5480, "Weekdays before 17:00"),
          ("Student", 4980, "Students under 25")]
_PLAN_WEIGHTS = [30, 32, 14, 14, 10]
_JOINING_FEE = 3300
_TRAINING_FEE = 5500
_CLASSES = {  # branch -> (class, instructor, capacity, minutes, weekday, start)
    "Central": [("Yoga", "Aiko Mori", 20, 60, 0, "07:00"), ("Hot Yoga", "Aiko Mori", 14, 60, 2, "19:00"),
                ("Pilates", "Rina Hayashi", 16, 50, 1, "12:00"), ("Spin", "Daniel Ford", 24, 45, 3, "18:30"),
                ("HIIT", "Sho Ikeda", 18, 30, 4, "07:30")],
    "Riverside": [("Yoga", "Mai Ueno", 22, 60, 1, "19:30"), ("Spin", "Daniel Ford", 24, 45, 0, "19:00"),
                  ("Boxing", "Ryo Kimura", 12, 60, 3, "20:00"), ("Zumba", "Lucia Perez", 25, 50, 5, "10:00")],
    "Northgate": [("Hot Yoga", "Emi Sakai", 14, 75, 5, "09:00"), ("Pilates", "Rina Hayashi", 16, 50, 2, "10:30"),
                  ("HIIT", "Sho Ikeda", 18, 30, 6, "11:00")],
    "Harbor": [("Yoga", "Mai Ueno", 20, 60, 6, "09:30"), ("Zumba", "Lucia Perez", 25, 50, 2, "19:00"),
               ("Boxing", "Ryo Kimura", 12, 60, 4, "19:30")],
    "Eastside": [("Spin", "Ken Ogawa", 20, 45, 1, "07:00"), ("Yoga", "Emi Sakai", 18, 60, 3, "10:00"),
                 ("Hot Yoga", "Emi Sakai", 14, 60, 5, "17:00")],
}
_FIRST = ["Haruto", "Sota", "Ren", "Yuto", "Riku", "Daiki", "Takumi", "Kaito", "Shota", "Ryota", "Hina", "Yui",
          "Aoi", "Mio", "Sakura", "Rin", "Mei", "Nanami", "Akari", "Emma", "Koharu", "Misaki", "Ayaka", "Noah",
          "Liam", "Olivia", "Sophie", "Tom", "Hannah", "Kevin"]
_LAST = ["Sato", "Suzuki", "Takahashi", "Watanabe", "Ito", "Yamamoto", "Nakamura", "Yoshida", "Yamada", "Sasaki",
         "Yamaguchi", "Matsumoto", "Inoue", "Kato", "Shimizu", "Kondo", "Fujita", "Okada", "Goto", "Hasegawa",
         "Murakami", "Ishii", "Maeda", "Fujii", "Ogawa", "Miller", "Brown", "Wilson", "Clark", "Evans"]
# member id -> (first, last, branch, plan, joined, training sessions bought, visits a week); everyone else random
_NAMED = {
    7: ("Kenji", "Kobayashi", "Central", "Premium", datetime(2023, 1, 15, 18, 20), 18, 3.0),
    12: ("Yuki", "Tanaka", "Riverside", "Standard", datetime(2023, 2, 20, 19, 5), 4, 2.5),
    31: ("Yuki", "Sato", "Central", "Premium", datetime(2024, 1, 8, 7, 40), 6, 1.5),
    55: ("Haruto", "Tanaka", "Harbor", "Basic", datetime(2024, 5, 2, 12, 10), 0, 2.0),
}
_MEMBERS = 240
_METHODS = ["card", "bank_transfer", "paypay", "cash"]
_METHOD_WEIGHTS = [55, 25, 12, 8]
_REASONS = ["moved", "cost", "no time", "injury", "other", None]


def _month_days(start: date, until: date) -> list[date]:
    """The day of each month from `start` (same day of month, 28 at most) up to and with `until`."""
    days, year, month = [], start.year, start.month
    while True:
        day = date(year, month, min(start.day, 28))
        if day > until:
            return days
        days.append(day)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)


def _members(rng: random.Random) -> list[dict]:
    rows, taken = [], {(f, last) for f, last, *_ in _NAMED.values()}
    names = [b[0] for b in _BRANCHES]
    plan_names = [p[0] for p in _PLANS]
    for member_id in range(1, _MEMBERS + 1):
        if member_id in _NAMED:
            first, last, branch, plan, joined, _, _ = _NAMED[member_id]
            branch_id, plan_id = names.index(branch) + 1, plan_names.index(plan) + 1
            cancelled = None
        else:
            while True:
                first, last = rng.choice(_FIRST), rng.choice(_LAST)
                # 'Kobayashi' and the Yukis' full names are theirs alone; no other Tanaka
                if (first, last) not in taken and last not in ("Kobayashi", "Tanaka") and first != "Yuki":
                    break
            taken.add((first, last))
            branch_id = rng.choices(range(1, 6), weights=_HOME_WEIGHTS)[0]
            plan_id = rng.choices(range(1, 6), weights=_PLAN_WEIGHTS)[0]
            start = date(2023, 6, 1)
            day = start + timedelta(days=rng.randrange((TODAY - start).days - 7))
            joined = datetime.combine(day, time(rng.randint(7, 21), rng.randrange(60)))
            cancelled = None
            if rng.random() < 0.3:
                earliest = day + timedelta(days=45)
                if earliest < TODAY:
                    left = earliest + timedelta(days=rng.randrange((TODAY - earliest).days))
                    cancelled = datetime.combine(left, time(rng.randint(9, 20), rng.randrange(60)))
        email = f"{first.lower()}.{last.lower()}{member_id}@mail.example"
        phone = f"090-{rng.randrange(1000, 9999)}-{rng.randrange(1000, 9999)}"
        rows.append({"id": member_id, "firstName": first, "lastName": last,
                     "email": None if rng.random() < 0.05 else email,
                     "phone": None if rng.random() < 0.2 else phone,
                     "branchId": branch_id, "planId": plan_id, "joinedAt": joined, "cancelledAt": cancelled,
                     "cancelReason": rng.choice(_REASONS) if cancelled else None,
                     "createdAt": joined, "updatedAt": cancelled or joined})
    # a few cancellations in May and June for sure, of members who paid in May (their payments still count)
    for member_id, left in ((20, datetime(2025, 5, 9, 15, 0)), (44, datetime(2025, 5, 27, 11, 30)),
                            (61, datetime(2025, 6, 4, 10, 15)), (88, datetime(2025, 6, 12, 19, 45))):
        row = rows[member_id - 1]
        row["joinedAt"] = row["createdAt"] = min(row["joinedAt"], datetime(2024, 9, 14, 18, 0))
        row["cancelledAt"] = row["updatedAt"] = left
        row["cancelReason"] = "moved"
    return rows


def _payments(rng: random.Random, member_rows: list[dict]) -> list[dict]:
    fee = {i: p[1] for i, p in enumerate(_PLANS, start=1)}
    rows = []
    for m in member_rows:
        method = rng.choices(_METHODS, weights=_METHOD_WEIGHTS)[0]
        end = (m["cancelledAt"].date() if m["cancelledAt"] else TODAY)
        joined = m["joinedAt"]
        rows.append((m["id"], _JOINING_FEE, joined, method, "joining_fee"))
        for day in _month_days(joined.date(), end):
            at = joined if day == joined.date() else datetime.combine(day, time(rng.randint(0, 9), rng.randrange(60)))
            rows.append((m["id"], fee[m["planId"]], at, method, "monthly_fee"))
        named = _NAMED.get(m["id"])
        sessions = named[5] if named else (rng.randint(1, 4) if rng.random() < 0.15 else 0)
        span = (end - joined.date()).days
        for _ in range(sessions):
            day = joined.date() + timedelta(days=rng.randrange(max(1, span)))
            at = datetime.combine(day, time(rng.randint(10, 20), rng.randrange(60)))
            rows.append((m["id"], _TRAINING_FEE, at, rng.choice(["card", "cash", method]), "personal_training"))
    rows.sort(key=lambda r: (r[2], r[0]))
    return [{"id": i, "memberId": mid, "amountPaid": amount, "paidAt": at, "paymentMethod": method,
             "paymentType": kind, "createdAt": at, "updatedAt": at}
            for i, (mid, amount, at, method, kind) in enumerate(rows, start=1)]


def _visits(rng: random.Random, member_rows: list[dict]) -> list[dict]:
    rows = []
    for m in member_rows:
        named = _NAMED.get(m["id"])
        rate = named[6] if named else rng.uniform(0.3, 3.5) * _VISIT_RATE[m["branchId"] - 1]
        day = max(m["joinedAt"].date(), _VISITS_FROM)
        last = m["cancelledAt"].date() - timedelta(days=1) if m["cancelledAt"] else TODAY
        while day <= last:
            if rng.random() < rate / 7:
                branch_id = m["branchId"] if rng.random() < 0.85 else rng.randint(1, 5)
                if day == TODAY:
                    at = datetime.combine(day, time(rng.randint(6, 10), rng.randrange(60)))
                    open_ = at.hour >= 9  # still in the gym
                else:
                    at = datetime.combine(day, time(rng.randint(6, 21), rng.randrange(60)))
                    open_ = False
                minutes = None if open_ else rng.randint(25, 140)
                rows.append((m["id"], branch_id, at, minutes))
            day += timedelta(days=1)
    rows.sort(key=lambda r: (r[2], r[0]))
    return [{"id": i, "memberId": mid, "branchId": b, "checkInAt": at,
             "checkOutAt": None if minutes is None else at + timedelta(minutes=minutes), "durationMinutes": minutes,
             "createdAt": at, "updatedAt": at if minutes is None else at + timedelta(minutes=minutes)}
            for i, (mid, b, at, minutes) in enumerate(rows, start=1)]


def _classes() -> list[dict]:
    rows = []
    for b, (branch, _, _) in enumerate(_BRANCHES, start=1):
        for name, instructor, capacity, minutes, weekday, start in _CLASSES[branch]:
            at = datetime(2025, 2, 20, 10, 0)
            rows.append({"id": len(rows) + 1, "name": name, "branchId": b, "instructorName": instructor,
                         "capacity": capacity, "durationMinutes": minutes, "dayOfWeek": weekday, "startTime": start,
                         "createdAt": at, "updatedAt": at})
    return rows


def _bookings(rng: random.Random, class_rows: list[dict], member_rows: list[dict]) -> list[dict]:
    rows = []
    for c in class_rows:
        day = _SESSIONS[0] + timedelta(days=(c["dayOfWeek"] - _SESSIONS[0].weekday()) % 7)
        hour, minute = map(int, c["startTime"].split(":"))
        while day <= _SESSIONS[1]:
            at = datetime.combine(day, time(hour, minute))
            active = [m for m in member_rows if m["joinedAt"] < at - timedelta(days=2)
                      and (m["cancelledAt"] is None or m["cancelledAt"] > at)]
            local = [m for m in active if m["branchId"] == c["branchId"]]
            n = rng.randint(c["capacity"] // 3, c["capacity"])
            chosen = rng.sample(local, min(len(local), n * 4 // 5))
            others = [m for m in active if m not in chosen]
            chosen += rng.sample(others, n - len(chosen))
            for m in chosen:
                if day < TODAY:
                    status = rng.choices(["attended", "no_show", "cancelled"], weights=[78, 9, 13])[0]
                else:
                    status = rng.choices(["booked", "cancelled"], weights=[94, 6])[0]
                made = max(at - timedelta(days=rng.randint(1, 10), hours=rng.randint(0, 12)),
                           m["joinedAt"] + timedelta(hours=1))
                rows.append((c["id"], m["id"], at, status, made))
            day += timedelta(days=7)
    rows.sort(key=lambda r: (r[4], r[1]))
    return [{"id": i, "classId": cid, "memberId": mid, "scheduledFor": at, "status": status, "createdAt": made,
             "updatedAt": made if status in ("booked",) else max(made, at)}
            for i, (cid, mid, at, status, made) in enumerate(rows, start=1)]


def _data() -> dict[sa.Table, list[dict]]:
    rng = random.Random(SEED)
    stamp = datetime(2022, 12, 1, 9, 0)
    branch_rows = [{"id": i, "name": n, "city": city, "phone": f"03-{5500 + i}-{1000 + 7 * i}", "openedAt": opened,
                    "createdAt": stamp, "updatedAt": stamp} for i, (n, city, opened) in enumerate(_BRANCHES, start=1)]
    plan_rows = [{"id": i, "name": n, "monthlyFee": f, "description": d, "createdAt": stamp, "updatedAt": stamp}
                 for i, (n, f, d) in enumerate(_PLANS, start=1)]
    member_rows = _members(rng)
    payment_rows = _payments(rng, member_rows)
    visit_rows = _visits(rng, member_rows)
    class_rows = _classes()
    booking_rows = _bookings(rng, class_rows, member_rows)
    return {branches: branch_rows, plans: plan_rows, members: member_rows, visits: visit_rows,
            classes: class_rows, bookings: booking_rows, payments: payment_rows}


def create(url: str) -> None:
    """The tables and the seeded data, the same on both engines."""
    load(url, metadata, _data())


# --- the questions -----------------------------------------------------------------------------------
_MAY = ("2025-05-01", "2025-06-01")
_JUNE = ("2025-06-01", "2025-07-01")
_LAST_WEEK = ("2025-06-09", "2025-06-16")
_ACTIVE = 'SELECT COUNT(*) FROM "Members" WHERE "cancelledAt" IS NULL'
_CANCELLED = 'SELECT COUNT(*) FROM "Members" WHERE "cancelledAt" IS NOT NULL'
_ALL_MEMBERS = 'SELECT COUNT(*) FROM "Members"'


def _visited(period: tuple[str, str] | None = None, branch: str | None = None, member: tuple[str, str] | None = None
             ) -> str:
    sql = ('SELECT COUNT(*) FROM "Visits" v JOIN "Branches" b ON b."id" = v."branchId" '
           'JOIN "Members" m ON m."id" = v."memberId" WHERE 1 = 1')
    if period:
        sql += f""" AND v."checkInAt" >= '{period[0]}' AND v."checkInAt" < '{period[1]}'"""
    if branch:
        sql += f""" AND b."name" = '{branch}'"""
    if member:
        sql += f""" AND m."firstName" = '{member[0]}' AND m."lastName" = '{member[1]}'"""
    return sql


def _paid(what: str, period: tuple[str, str] | None = None, method: str | None = None) -> str:
    sql = f'SELECT {what} FROM "Payments" WHERE 1 = 1'
    if period:
        sql += f""" AND "paidAt" >= '{period[0]}' AND "paidAt" < '{period[1]}'"""
    if method:
        sql += f""" AND "paymentMethod" = '{method}'"""
    return sql


def _booked(period: tuple[str, str], class_name: str | None = None, status: str | None = None) -> str:
    sql = ('SELECT COUNT(*) FROM "ClassBookings" cb JOIN "Classes" c ON c."id" = cb."classId" '
           f"""WHERE cb."scheduledFor" >= '{period[0]}' AND cb."scheduledFor" < '{period[1]}'""")
    if class_name:
        sql += f""" AND c."name" = '{class_name}'"""
    if status:
        sql += f""" AND cb."status" = '{status}'"""
    return sql


def _cancelled_in(period: tuple[str, str]) -> str:
    return (f"""SELECT COUNT(*) FROM "Members" WHERE "cancelledAt" >= '{period[0]}' """
            f"""AND "cancelledAt" < '{period[1]}'""")


_PAID_BY_MEMBER = 'SELECT "memberId", SUM("amountPaid") AS paid, COUNT(*) AS n FROM "Payments" GROUP BY "memberId"'
_VISITS_BY_BRANCH = ('SELECT b."name" AS name, COUNT(*) AS n FROM "Visits" v '
                     'JOIN "Branches" b ON b."id" = v."branchId" GROUP BY b."id", b."name"')
_STATUSES = ["booked", "attended", "no_show", "cancelled"]
_CENTRAL_CLASS = ('SELECT c."name" FROM "Classes" c JOIN "Branches" b ON b."id" = c."branchId" '
                  "WHERE b.\"name\" = 'Central' ORDER BY c.\"id\" LIMIT 1 OFFSET {}")

QUESTIONS = [
    Question("g_members_ja", "会員って全部で何人登録されてる？", [_ALL_MEMBERS], "count",
             may_state=[_ACTIVE, _CANCELLED]),
    Question("g_branches", "how many branches do we have", ['SELECT COUNT(*) FROM "Branches"'], "count"),
    Question("g_active", "How many active members right now?", [_ACTIVE], "count_in_category",
             may_state=[_ALL_MEMBERS, _CANCELLED]),
    Question("g_cancelled_last_month_ja", "先月退会した会員は何人？", [_cancelled_in(_MAY)], "count_in_category"),
    Question("g_visits_last_week_ja", "先週の来館数は？", [_visited(_LAST_WEEK)], "total_in_period"),
    Question("g_visits_last_month_ja", "先月は？", [_visited(_MAY)], "follow_up", follow_up="g_visits_last_week_ja"),
    Question("g_visits_central", "and at Central?", [_visited(_MAY, "Central")], "follow_up",
             follow_up="g_visits_last_month_ja"),
    Question("g_visits_riverside_ja", "先月のRiverside店の来館は何件？", [_visited(_MAY, "Riverside")],
             "count_in_category"),
    Question("g_busiest_branch", "which branch gets the most visits",
             [f"SELECT name FROM ({_VISITS_BY_BRANCH}) x ORDER BY n DESC LIMIT 1",
              f"SELECT MAX(n) FROM ({_VISITS_BY_BRANCH}) x"], "top_entity"),
    Question("g_top_member_ja", "一番多く支払ってる会員は誰？",
             ['SELECT m."lastName" FROM "Members" m JOIN (' + _PAID_BY_MEMBER + ') x ON x."memberId" = m."id" '
              "ORDER BY x.paid DESC LIMIT 1",
              f"SELECT MAX(paid) FROM ({_PAID_BY_MEMBER}) x"], "top_entity",
             may_state=[f"SELECT n FROM ({_PAID_BY_MEMBER}) x ORDER BY paid DESC LIMIT 1"]),
    Question("g_revenue_last_month_ja", "先月の売上いくら？", [_paid('SUM("amountPaid")', _MAY)], "total_in_period",
             may_state=[_paid("COUNT(*)", _MAY)]),
    Question("g_by_method", "revenue by payment method", [_paid('SUM("amountPaid")', method=m) for m in _METHODS],
             "sum_lines",
             may_state=[_paid('SUM("amountPaid")'), _paid("COUNT(*)"),
                        *(_paid("COUNT(*)", method=m) for m in _METHODS)]),
    Question("g_yoga_this_month", "bookings for the Yoga class this month?", [_booked(_JUNE, "Yoga")],
             "count_in_category", may_state=[_booked(_JUNE, "Yoga", s) for s in _STATUSES]),
    Question("g_hot_yoga_ja", "Hot Yogaのほうは？", [_booked(_JUNE, "Hot Yoga")], "follow_up",
             follow_up="g_yoga_this_month", may_state=[_booked(_JUNE, "Hot Yoga", s) for s in _STATUSES]),
    Question("g_no_show_ja", "先月のノーショーは何件", [_booked(_MAY, status="no_show")], "count_in_category",
             may_state=[_booked(_MAY)]),
    Question("g_yuki_tanaka_ja", "Yuki Tanakaさんの来館回数は？", [_visited(member=("Yuki", "Tanaka"))],
             "count_by_entity_name"),
    Question("g_yuki_tanaka_may_ja", "そのうち先月は？", [_visited(_MAY, member=("Yuki", "Tanaka"))], "follow_up",
             follow_up="g_yuki_tanaka_ja", may_state=[_visited(member=("Yuki", "Tanaka"))]),
    Question("g_member_42", "show me member 42's payments", ['SELECT COUNT(*) FROM "Payments" WHERE "memberId" = 42'],
             "per_entity_key", may_state=['SELECT SUM("amountPaid") FROM "Payments" WHERE "memberId" = 42']),
    Question("g_central_classes_ja", "Centralのクラス一覧見せて", [_CENTRAL_CLASS.format(k) for k in range(5)],
             "list_filtered",
             may_state=['SELECT COUNT(*) FROM "Classes" c JOIN "Branches" b ON b."id" = c."branchId" '
                        "WHERE b.\"name\" = 'Central'"]),
    Question("g_average_age_ja", "会員の平均年齢は？", ["SELECT 'no date of birth is on file'"], "count"),
]


def traps(url: str) -> None:
    """Each trap of the module docstring, in the data."""
    yuki = ('SELECT SUM(p."amountPaid") FROM "Payments" p JOIN "Members" m ON m."id" = p."memberId" '
            "WHERE m.\"firstName\" = 'Yuki' GROUP BY m.\"id\" ORDER BY m.\"id\" LIMIT 1 OFFSET {}")
    tanaka, sato = scalar(url, yuki.format(0)), scalar(url, yuki.format(1))
    top = scalar(url, f"SELECT MAX(paid) FROM ({_PAID_BY_MEMBER}) x")
    assert max(tanaka, sato) < top < tanaka + sato
    assert scalar(url, 'SELECT m."lastName" FROM "Members" m JOIN (' + _PAID_BY_MEMBER + ') x '
                       'ON x."memberId" = m."id" ORDER BY x.paid DESC LIMIT 1') == "Kobayashi"
    assert scalar(url, """SELECT COUNT(*) FROM "Members" WHERE "lastName" = 'Kobayashi'""") == 1
    assert scalar(url, """SELECT COUNT(*) FROM "Members" WHERE "firstName" = 'Yuki'""") == 2
    assert scalar(url, """SELECT COUNT(*) FROM "Members" WHERE "lastName" = 'Tanaka'""") == 2
    assert scalar(url, _visited(member=("Haruto", "Tanaka"))) > 0
    assert scalar(url, _visited(member=("Yuki", "Sato"))) > 0
    # prices, places and minutes are not takings: the takings are not the fees of the members on file
    assert scalar(url, _paid('SUM("amountPaid")', _MAY)) != scalar(
        url, 'SELECT SUM(p."monthlyFee") FROM "Members" m JOIN "MembershipPlans" p ON p."id" = m."planId" '
             'WHERE m."cancelledAt" IS NULL')
    assert scalar(url, """SELECT COUNT(*) FROM "Payments" WHERE "paymentType" <> 'monthly_fee' """
                       f"""AND "paidAt" >= '{_MAY[0]}' AND "paidAt" < '{_MAY[1]}'""") > 0
    assert scalar(url, 'SELECT MIN("capacity") FROM "Classes"') > 1
    assert scalar(url, 'SELECT COUNT(DISTINCT "durationMinutes") FROM "Visits"') > 1
    # active (cancelledAt NULL) beside cancelled members, both with visits
    assert 0 < scalar(url, _CANCELLED) < scalar(url, _ACTIVE)
    assert scalar(url, 'SELECT COUNT(*) FROM "Visits" v JOIN "Members" m ON m."id" = v."memberId" '
                       'WHERE m."cancelledAt" IS NOT NULL') > 0
    assert scalar(url, _cancelled_in(_MAY)) > 0
    # 'Yoga' inside 'Hot Yoga'
    assert scalar(url, """SELECT COUNT(DISTINCT "name") FROM "Classes" WHERE "name" LIKE '%Yoga%'""") == 2
    assert scalar(url, _booked(_JUNE, "Hot Yoga")) > 0
    # 'Central' is a word and a branch; the most members are not the most visits
    assert scalar(url, """SELECT COUNT(*) FROM "Branches" WHERE "name" = 'Central'""") == 1
    assert scalar(url, 'SELECT b."name" FROM "Members" m JOIN "Branches" b ON b."id" = m."branchId" '
                       'GROUP BY b."id", b."name" ORDER BY COUNT(*) DESC LIMIT 1') == "Central"
    assert scalar(url, f"SELECT name FROM ({_VISITS_BY_BRANCH}) x ORDER BY n DESC LIMIT 1") == "Riverside"
    # payments of members who later cancelled: some who left in June paid in May
    assert scalar(url, 'SELECT COUNT(*) FROM "Payments" p JOIN "Members" m ON m."id" = p."memberId" '
                       f"""WHERE m."cancelledAt" >= '{_JUNE[0]}' AND p."paidAt" >= '{_MAY[0]}' """
                       f"""AND p."paidAt" < '{_MAY[1]}'""") > 0
    # a visit under way on TODAY: no check-out, no minutes yet
    assert scalar(url, 'SELECT COUNT(*) FROM "Visits" WHERE "checkOutAt" IS NULL AND "durationMinutes" IS NULL') > 0
