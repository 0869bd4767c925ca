"""A Sakila-like film rental chain: films, actors, categories, two stores, their staff, customers, rentals, payments.

The identifiers are Sakila's: singular table names, `last_update` on every row (a system stamp, never
the date a question means), people's names and film titles in capitals, stores without a name. What a
careless draft gets wrong is in the data: two actors named PENELOPE and two customers named MARY, each
pair together ahead of the real leader and each alone behind it; two staff named Mike; ratings 'PG' and
'PG-13' (a prefix match is broader than the question); rentals not yet returned (`return_date` NULL);
a film's length, rental rate and replacement cost, which no question ever sums.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from decimal import Decimal

import sqlalchemy as sa

from . import Question, load, scalar

TODAY = date(2025, 7, 9)  # a Wednesday: last month is June 2025, last week Mon 30 June to Sun 6 July

_STAMP = datetime(2025, 2, 15, 4, 34, 33)
_OPENED = datetime(2025, 2, 1)
_DAYS_OPEN = (TODAY - _OPENED.date()).days - 1  # rentals up to the day before TODAY

metadata = sa.MetaData()


def _stamp() -> sa.Column:
    return sa.Column("last_update", sa.DateTime, nullable=False)


language = sa.Table("language", metadata,
                    sa.Column("language_id", sa.Integer, primary_key=True),
                    sa.Column("name", sa.String(20), nullable=False), _stamp())
category = sa.Table("category", metadata,
                    sa.Column("category_id", sa.Integer, primary_key=True),
                    sa.Column("name", sa.String(25), nullable=False), _stamp())
actor = sa.Table("actor", metadata,
                 sa.Column("actor_id", sa.Integer, primary_key=True),
                 sa.Column("first_name", sa.String(45), nullable=False),
                 sa.Column("last_name", sa.String(45), nullable=False), _stamp())
film = sa.Table("film", metadata,
                sa.Column("film_id", sa.Integer, primary_key=True),
                sa.Column("title", sa.String(255), nullable=False),
                sa.Column("description", sa.Text),
                sa.Column("release_year", sa.Integer),
                sa.Column("language_id", sa.ForeignKey("language.language_id"), nullable=False),
                sa.Column("rental_duration", sa.SmallInteger, nullable=False),
                sa.Column("rental_rate", sa.Numeric(4, 2), nullable=False),
                sa.Column("length", sa.SmallInteger),
                sa.Column("replacement_cost", sa.Numeric(5, 2), nullable=False),
                sa.Column("rating", sa.String(5)), _stamp())
film_actor = sa.Table("film_actor", metadata,
                      sa.Column("actor_id", sa.ForeignKey("actor.actor_id"), primary_key=True),
                      sa.Column("film_id", sa.ForeignKey("film.film_id"), primary_key=True), _stamp())
film_category = sa.Table("film_category", metadata,
                         sa.Column("film_id", sa.ForeignKey("film.film_id"), primary_key=True),
                         sa.Column("category_id", sa.ForeignKey("category.category_id"), primary_key=True), _stamp())
store = sa.Table("store", metadata,
                 sa.Column("store_id", sa.Integer, primary_key=True),
                 sa.Column("manager_staff_id", sa.Integer, nullable=False),
                 sa.Column("address", sa.String(50), nullable=False),
                 sa.Column("city", sa.String(50), nullable=False), _stamp())
staff = sa.Table("staff", metadata,
                 sa.Column("staff_id", sa.Integer, primary_key=True),
                 sa.Column("first_name", sa.String(45), nullable=False),
                 sa.Column("last_name", sa.String(45), nullable=False),
                 sa.Column("email", sa.String(50)),
                 sa.Column("store_id", sa.ForeignKey("store.store_id"), nullable=False),
                 sa.Column("active", sa.Boolean, nullable=False),
                 sa.Column("username", sa.String(16), nullable=False), _stamp())
customer = sa.Table("customer", metadata,
                    sa.Column("customer_id", sa.Integer, primary_key=True),
                    sa.Column("store_id", sa.ForeignKey("store.store_id"), nullable=False),
                    sa.Column("first_name", sa.String(45), nullable=False),
                    sa.Column("last_name", sa.String(45), nullable=False),
                    sa.Column("email", sa.String(50)),
                    sa.Column("active", sa.Boolean, nullable=False),
                    sa.Column("create_date", sa.Date, nullable=False), _stamp())
inventory = sa.Table("inventory", metadata,
                     sa.Column("inventory_id", sa.Integer, primary_key=True),
                     sa.Column("film_id", sa.ForeignKey("film.film_id"), nullable=False),
                     sa.Column("store_id", sa.ForeignKey("store.store_id"), nullable=False), _stamp())
rental = sa.Table("rental", metadata,
                  sa.Column("rental_id", sa.Integer, primary_key=True),
                  sa.Column("rental_date", sa.DateTime, nullable=False),
                  sa.Column("inventory_id", sa.ForeignKey("inventory.inventory_id"), nullable=False),
                  sa.Column("customer_id", sa.ForeignKey("customer.customer_id"), nullable=False),
                  sa.Column("return_date", sa.DateTime),
                  sa.Column("staff_id", sa.ForeignKey("staff.staff_id"), nullable=False), _stamp())
payment = sa.Table("payment", metadata,
                   sa.Column("payment_id", sa.Integer, primary_key=True),
                   sa.Column("customer_id", sa.ForeignKey("customer.customer_id"), nullable=False),
                   sa.Column("staff_id", sa.ForeignKey("staff.staff_id"), nullable=False),
                   sa.Column("rental_id", sa.ForeignKey("rental.rental_id")),
                   sa.Column("amount", sa.Numeric(5, 2), nullable=False),
                   sa.Column("payment_date", sa.DateTime, nullable=False), _stamp())

# --- the data ------------------------------------------------------------------------------------------
_LANGUAGES = ["English", "Italian", "Japanese", "Mandarin", "French", "German"]
_CATEGORIES = {"Action": 8, "Animation": 7, "Comedy": 8, "Drama": 9, "Family": 7, "Horror": 7, "Music": 3,
               "Sports": 11}  # films in each: Sports the most, Music a short list
_RATINGS = {"G": 11, "PG": 13, "PG-13": 15, "R": 12, "NC-17": 9}
_MOODS = ["Thoughtful", "Epic", "Fateful", "Astounding", "Boring", "Insightful", "Touching", "Emotional"]
# A title is a first word and a second one, as Sakila's are.
_TITLE_FIRST = ["ACADEMY", "ACE", "ADAPTATION", "AFFAIR", "AFRICAN", "AGENT", "AIRPLANE", "AIRPORT", "ALABAMA",
                "ALADDIN", "ALAMO", "ALASKA", "ALI", "ALIEN", "ALLEY", "AMADEUS", "AMELIE", "AMERICAN", "AMISTAD",
                "ANACONDA", "ANGELS", "ANNIE", "ANONYMOUS", "ANTHEM", "ANTITRUST", "ANYTHING", "APACHE", "APOCALYPSE",
                "APOLLO", "ARABIA", "ARACHNOPHOBIA", "ARGONAUTS", "ARIZONA", "ARK", "ARMAGEDDON", "ARMY", "ARSENIC",
                "ARTIST", "ATLANTIS", "ATTACKS", "ATTRACTION", "AUTUMN", "BABY", "BACKLASH", "BADMAN", "BAKED",
                "BALLOON", "BALLROOM", "BANG", "BANGER", "BARBARELLA", "BAREFOOT", "BASIC", "BEACH", "BEAR", "BEAST",
                "BEAUTY", "BED", "BEDAZZLED", "BEHAVIOR"]
_TITLE_SECOND = ["DINOSAUR", "GOLDFINGER", "HOLES", "PREJUDICE", "EGG", "TRUMAN", "SIERRA", "POLLOCK", "DEVIL",
                 "CALENDAR", "VIDEOTAPE", "PHANTOM", "FURY", "NORTHWEST", "HOURS", "MOCKINGBIRD"]
_ACTORS = [("PENELOPE", "GUINESS"), ("NICK", "WAHLBERG"), ("ED", "CHASE"), ("JENNIFER", "DAVIS"),
           ("JOHNNY", "LOLLOBRIGIDA"), ("BETTE", "NICHOLSON"), ("GRACE", "MOSTEL"), ("MATTHEW", "JOHANSSON"),
           ("JOE", "SWANK"), ("CHRISTIAN", "GABLE"), ("ZERO", "CAGE"), ("KARL", "BERRY"), ("UMA", "WOOD"),
           ("VIVIEN", "BERGEN"), ("CUBA", "OLIVIER"), ("FRED", "COSTNER"), ("HELEN", "VOIGHT"), ("DAN", "TORN"),
           ("BOB", "FAWCETT"), ("LUCILLE", "TRACY"), ("KIRSTEN", "PALTROW"), ("ELVIS", "MARX"),
           ("SANDRA", "KILMER"), ("CAMERON", "STREEP"), ("KEVIN", "BLOOM"), ("RIP", "CRAWFORD"),
           ("JULIA", "MCQUEEN"), ("WOODY", "HOFFMAN"), ("PENELOPE", "MONROE"), ("GINA", "DEGENERES")]
_GUINESS, _MONROE, _DEGENERES = 1, 29, 30
_STARRING = {_GUINESS: 4, _MONROE: 4, _DEGENERES: 7}  # films each; everyone else is in at most 6
_STAFF = [("Mike", "Hillyer", 1), ("Dana", "Reyes", 1), ("Jon", "Stephens", 2), ("Mike", "Ramos", 2)]
_CUSTOMERS = [("MARY", "SMITH"), ("PATRICIA", "JOHNSON"), ("LINDA", "WILLIAMS"), ("BARBARA", "JONES"),
              ("ELIZABETH", "BROWN"), ("MARIA", "MILLER"), ("SUSAN", "WILSON"), ("MARGARET", "MOORE"),
              ("DOROTHY", "TAYLOR"), ("LISA", "ANDERSON"), ("KAREN", "JACKSON"), ("NANCY", "THOMAS"),
              ("BETTY", "WHITE"), ("HELEN", "HARRIS"), ("SANDRA", "MARTIN"), ("DONNA", "THOMPSON"),
              ("CAROL", "GARCIA"), ("RUTH", "MARTINEZ"), ("SHARON", "ROBINSON"), ("MICHELLE", "CLARK"),
              ("LAURA", "RODRIGUEZ"), ("SARAH", "LEWIS"), ("KIMBERLY", "LEE"), ("DEBORAH", "WALKER"),
              ("JESSICA", "HALL"), ("SHIRLEY", "ALLEN"), ("CYNTHIA", "YOUNG"), ("ANGELA", "HERNANDEZ"),
              ("MELISSA", "KING"), ("BRENDA", "WRIGHT"), ("AMY", "LOPEZ"), ("ANNA", "HILL"), ("REBECCA", "SCOTT"),
              ("VIRGINIA", "GREEN"), ("KATHLEEN", "ADAMS"), ("CLARA", "SHAW"), ("ELEANOR", "HUNT"),
              ("KARL", "SEAL"), ("MARY", "KEITH"), ("TAMMY", "SANDERS")]
_INACTIVE = {6, 15, 23, 31, 40}
# Rentals and the price band of the films rented, for the customers the traps are made of: ELEANOR HUNT
# rents the most (cheap films), KARL SEAL pays the most, the two MARYs together beat both.
_HABITS = {37: (16, "0.99"), 38: (13, "4.99"), 1: (11, "4.99"), 39: (9, "4.99")}


def _films(rng: random.Random) -> list[dict]:
    ratings = [r for r, n in _RATINGS.items() for _ in range(n)]
    rng.shuffle(ratings)
    rows = []
    for i, rating in enumerate(ratings):
        title = f"{_TITLE_FIRST[i]} {_TITLE_SECOND[(i * 7) % len(_TITLE_SECOND)]}"
        rows.append({"film_id": i + 1, "title": title,
                     "description": f"A {rng.choice(_MOODS)} story of {title.title()}",
                     "release_year": rng.choice([2005, 2006, 2006, 2007]),
                     "language_id": 3 if i % 17 == 5 else 1, "rental_duration": rng.randint(3, 7),
                     "rental_rate": Decimal(rng.choice(["0.99", "2.99", "4.99"])), "length": rng.randint(46, 185),
                     "replacement_cost": Decimal(rng.choice(["9.99", "14.99", "19.99", "22.99", "29.99"])),
                     "rating": rating, "last_update": _STAMP})
    return rows


def _film_categories(rng: random.Random) -> list[dict]:
    ids = [i + 1 for i, n in enumerate(_CATEGORIES.values()) for _ in range(n)]
    rng.shuffle(ids)
    return [{"film_id": f + 1, "category_id": c, "last_update": _STAMP} for f, c in enumerate(ids)]


def _casts(rng: random.Random, films: int) -> list[dict]:
    cast: dict[int, set[int]] = {f: set() for f in range(1, films + 1)}
    for who, n in _STARRING.items():
        for f in rng.sample([f for f in cast if len(cast[f]) < 2], n):
            cast[f].add(who)
    others = {a: 0 for a in range(1, len(_ACTORS) + 1) if a not in _STARRING}
    for members in cast.values():
        free = [a for a, n in others.items() if n < 6]
        for a in rng.sample(free, max(0, rng.randint(2, 3) - len(members))):
            members.add(a)
            others[a] += 1
    return [{"actor_id": a, "film_id": f, "last_update": _STAMP}
            for f, members in cast.items() for a in sorted(members)]


def _inventory(rng: random.Random, films: int) -> list[dict]:
    copies = [(f, s) for f in range(1, films + 1) for s in (1, 2)]
    copies += [(rng.randint(1, films), rng.choice((1, 2))) for _ in range(30)]
    return [{"inventory_id": i + 1, "film_id": f, "store_id": s, "last_update": _STAMP}
            for i, (f, s) in enumerate(copies)]


def _customers(rng: random.Random) -> list[dict]:
    return [{"customer_id": i, "store_id": 1 + i % 2, "first_name": first, "last_name": last,
             "email": f"{first}.{last}@sakilacustomer.org", "active": i not in _INACTIVE,
             "create_date": date(2025, 1, 2) + timedelta(days=rng.randrange(28)), "last_update": _STAMP}
            for i, (first, last) in enumerate(_CUSTOMERS, start=1)]


def _rentals_and_payments(rng: random.Random, films: list[dict], copies: list[dict], customers: list[dict]
                          ) -> tuple[list[dict], list[dict]]:
    rentals: list[dict] = []
    payments: list[dict] = []
    for person in customers:
        cid, home = person["customer_id"], person["store_id"]
        n, band = _HABITS.get(cid, (rng.randint(2, 8), None))
        shelf = [c for c in copies if c["store_id"] == home
                 and (band is None or films[c["film_id"] - 1]["rental_rate"] == Decimal(band))]
        clerks = [i for i, (_, _, s) in enumerate(_STAFF, start=1) if s == home]
        for _ in range(n):
            copy = rng.choice(shelf)
            title = films[copy["film_id"] - 1]
            taken = _OPENED + timedelta(days=rng.randrange(_DAYS_OPEN + 1), hours=rng.randint(10, 21),
                                        minutes=rng.randrange(60))
            due_back = taken + timedelta(days=rng.randint(1, title["rental_duration"] + 3), hours=rng.randint(-8, 8))
            back = due_back if due_back.date() < TODAY and rng.random() >= 0.02 else None  # else still out, or lost
            late = (back - taken).days - title["rental_duration"] if back else 0
            rid, clerk = len(rentals) + 1, rng.choice(clerks)
            rentals.append({"rental_id": rid, "rental_date": taken, "inventory_id": copy["inventory_id"],
                            "customer_id": cid, "return_date": back, "staff_id": clerk, "last_update": _STAMP})
            payments.append({"payment_id": rid, "customer_id": cid, "staff_id": clerk, "rental_id": rid,
                             "amount": title["rental_rate"] + min(max(late, 0), 3),
                             "payment_date": taken + timedelta(minutes=rng.randint(0, 5)), "last_update": _STAMP})
    rentals.sort(key=lambda r: r["rental_date"])
    order = {r["rental_id"]: i for i, r in enumerate(rentals, start=1)}
    for r in rentals:
        r["rental_id"] = order[r["rental_id"]]
    for p in payments:
        p["payment_id"] = p["rental_id"] = order[p["rental_id"]]
    payments.sort(key=lambda p: p["payment_id"])
    return rentals, payments


def _data() -> dict[sa.Table, list[dict]]:
    rng = random.Random(20250709)
    films = _films(rng)
    copies = _inventory(rng, len(films))
    customers = _customers(rng)
    rentals, payments = _rentals_and_payments(rng, films, copies, customers)
    return {
        language: [{"language_id": i, "name": n, "last_update": _STAMP} for i, n in enumerate(_LANGUAGES, start=1)],
        category: [{"category_id": i, "name": n, "last_update": _STAMP} for i, n in enumerate(_CATEGORIES, start=1)],
        actor: [{"actor_id": i, "first_name": f, "last_name": last, "last_update": _STAMP}
                for i, (f, last) in enumerate(_ACTORS, start=1)],
        film: films,
        film_actor: _casts(rng, len(films)),
        film_category: _film_categories(rng),
        store: [{"store_id": 1, "manager_staff_id": 1, "address": "47 MySakila Drive", "city": "Lethbridge",
                 "last_update": _STAMP},
                {"store_id": 2, "manager_staff_id": 3, "address": "28 MySQL Boulevard", "city": "Woodridge",
                 "last_update": _STAMP}],
        staff: [{"staff_id": i, "first_name": f, "last_name": last, "email": f"{f}.{last}@sakilastaff.com",
                 "store_id": s, "active": True, "username": f, "last_update": _STAMP}
                for i, (f, last, s) in enumerate(_STAFF, start=1)],
        customer: customers,
        inventory: copies,
        rental: rentals,
        payment: payments,
    }


def create(url: str) -> None:
    """The tables and the seeded data, the same on SQLite and PostgreSQL."""
    load(url, metadata, _data())


# --- the questions -----------------------------------------------------------------------------------
def _payments_between(start: str, end: str) -> str:
    return f"SELECT SUM(amount) FROM payment WHERE payment_date >= '{start}' AND payment_date < '{end}'"


def _payments_counted(start: str, end: str) -> str:
    return f"SELECT COUNT(*) FROM payment WHERE payment_date >= '{start}' AND payment_date < '{end}'"


def _films_of_actor(first: str, last: str, offset: int) -> str:
    return ("SELECT f.title FROM film f JOIN film_actor fa ON fa.film_id = f.film_id "
            "JOIN actor a ON a.actor_id = fa.actor_id "
            f"WHERE a.first_name = '{first}' AND a.last_name = '{last}' ORDER BY f.title LIMIT 1 OFFSET {offset}")


def _films_in(category_name: str, offset: int) -> str:
    return ("SELECT f.title FROM film f JOIN film_category fc ON fc.film_id = f.film_id "
            "JOIN category c ON c.category_id = fc.category_id "
            f"WHERE c.name = '{category_name}' ORDER BY f.title LIMIT 1 OFFSET {offset}")


def _in_category(category_name: str) -> str:
    return ("SELECT COUNT(*) FROM film_category fc JOIN category c ON c.category_id = fc.category_id "
            f"WHERE c.name = '{category_name}'")


_PAID_BY_CUSTOMER = "SELECT customer_id, SUM(amount) AS paid, COUNT(*) AS n FROM payment GROUP BY customer_id"
_RENTED_BY_CUSTOMER = "SELECT customer_id, COUNT(*) AS n FROM rental GROUP BY customer_id"
_RENTED_BY_FILM = ("SELECT i.film_id, COUNT(*) AS n FROM rental r JOIN inventory i ON i.inventory_id = r.inventory_id "
                   "GROUP BY i.film_id")
_FILMS_BY_ACTOR = "SELECT actor_id, COUNT(*) AS n FROM film_actor GROUP BY actor_id"
_FILMS_BY_CATEGORY = "SELECT category_id, COUNT(*) AS n FROM film_category GROUP BY category_id"

QUESTIONS = [
    Question("fr_films", "How many films do we have?", ["SELECT COUNT(*) FROM film"], "count"),
    Question("fr_films_ja", "映画は何本ありますか？", ["SELECT COUNT(*) FROM film"], "count"),
    Question("fr_customers_ja", "顧客は全部で何人？", ["SELECT COUNT(*) FROM customer"], "count"),
    Question("fr_rated_r", "How many films are rated R?", ["SELECT COUNT(*) FROM film WHERE rating = 'R'"],
             "count_in_category"),
    Question("fr_rated_pg", "And PG?", ["SELECT COUNT(*) FROM film WHERE rating = 'PG'"], "follow_up",
             follow_up="fr_rated_r"),
    Question("fr_pg13_ja", "PG-13の映画は何本？", ["SELECT COUNT(*) FROM film WHERE rating = 'PG-13'"],
             "count_in_category"),
    Question("fr_category_most", "Which category has the most films?",
             [f"SELECT c.name FROM category c JOIN ({_FILMS_BY_CATEGORY}) x ON x.category_id = c.category_id "
              "ORDER BY x.n DESC LIMIT 1",
              f"SELECT MAX(n) FROM ({_FILMS_BY_CATEGORY}) x"], "top_entity"),
    Question("fr_comedy", "How many films are in the Comedy category?", [_in_category("Comedy")],
             "count_in_category"),
    Question("fr_horror_ja", "Horrorの映画は何本ある？", [_in_category("Horror")], "count_in_category"),
    Question("fr_music_list", "List the films in the Music category.", [_films_in("Music", k) for k in range(3)],
             "list_filtered", may_state=[_in_category("Music")]),
    Question("fr_penelope_list", "Which films is Penelope Guiness in?",
             [_films_of_actor("PENELOPE", "GUINESS", k) for k in range(4)], "list_filtered",
             may_state=["SELECT COUNT(*) FROM film_actor WHERE actor_id = 1"]),
    Question("fr_penelope_count_ja", "Penelope Guinessが出ている映画は何本？",
             ["SELECT COUNT(*) FROM film_actor fa JOIN actor a ON a.actor_id = fa.actor_id "
              "WHERE a.first_name = 'PENELOPE' AND a.last_name = 'GUINESS'"], "count_by_entity_name"),
    Question("fr_actor_most_ja", "出演作がいちばん多い俳優は誰？",
             [f"SELECT a.last_name FROM actor a JOIN ({_FILMS_BY_ACTOR}) x ON x.actor_id = a.actor_id "
              "ORDER BY x.n DESC LIMIT 1",
              f"SELECT MAX(n) FROM ({_FILMS_BY_ACTOR}) x"], "top_entity"),
    Question("fr_top_payer", "Which customer paid the most?",
             [f"SELECT c.last_name FROM customer c JOIN ({_PAID_BY_CUSTOMER}) x ON x.customer_id = c.customer_id "
              "ORDER BY x.paid DESC LIMIT 1",
              f"SELECT MAX(paid) FROM ({_PAID_BY_CUSTOMER}) x"], "top_entity",
             may_state=[f"SELECT n FROM ({_PAID_BY_CUSTOMER}) x ORDER BY paid DESC LIMIT 1"]),
    Question("fr_top_renter_ja", "いちばん多くレンタルしている顧客は？",
             [f"SELECT c.last_name FROM customer c JOIN ({_RENTED_BY_CUSTOMER}) x ON x.customer_id = c.customer_id "
              "ORDER BY x.n DESC LIMIT 1",
              f"SELECT MAX(n) FROM ({_RENTED_BY_CUSTOMER}) x"], "top_entity"),
    Question("fr_most_rented", "What is the most rented film?",
             [f"SELECT f.title FROM film f JOIN ({_RENTED_BY_FILM}) x ON x.film_id = f.film_id "
              "ORDER BY x.n DESC LIMIT 1",
              f"SELECT MAX(n) FROM ({_RENTED_BY_FILM}) x"], "top_entity"),
    Question("fr_may", "What were total payments in May 2025?", [_payments_between("2025-05-01", "2025-06-01")],
             "total_in_period", may_state=[_payments_counted("2025-05-01", "2025-06-01")]),
    Question("fr_april", "And in April?", [_payments_between("2025-04-01", "2025-05-01")], "follow_up",
             follow_up="fr_may", may_state=[_payments_counted("2025-04-01", "2025-05-01")]),
    Question("fr_last_month_ja", "先月の売上はいくら？", [_payments_between("2025-06-01", "2025-07-01")],
             "total_in_period", may_state=[_payments_counted("2025-06-01", "2025-07-01")]),
    Question("fr_last_week_ja", "先週のレンタルは何件？",
             ["SELECT COUNT(*) FROM rental WHERE rental_date >= '2025-06-30' AND rental_date < '2025-07-07'"],
             "total_in_period"),
    Question("fr_unreturned", "How many rentals haven't been returned?",
             ["SELECT COUNT(*) FROM rental WHERE return_date IS NULL"], "count_in_category"),
    Question("fr_unreturned_ja", "未返却のレンタルは何件ありますか？",
             ["SELECT COUNT(*) FROM rental WHERE return_date IS NULL"], "count_in_category"),
    Question("fr_active", "How many active customers are there?", ["SELECT COUNT(*) FROM customer WHERE active"],
             "count_in_category"),
    Question("fr_inactive_ja", "アクティブでない顧客は何人？", ["SELECT COUNT(*) FROM customer WHERE NOT active"],
             "count_in_category"),
    Question("fr_customer_rentals_ja", "顧客番号12のレンタルは何件？",
             ["SELECT COUNT(*) FROM rental WHERE customer_id = 12"], "per_entity_key"),
    Question("fr_customer_paid_ja", "その顧客の支払い合計は？",
             ["SELECT SUM(amount) FROM payment WHERE customer_id = 12"], "follow_up",
             follow_up="fr_customer_rentals_ja",
             may_state=["SELECT COUNT(*) FROM payment WHERE customer_id = 12",
                        "SELECT customer_id FROM customer WHERE customer_id = 12"]),  # the customer it carries on
    Question("fr_store_customers", "How many customers does store 2 have?",
             ["SELECT COUNT(*) FROM customer WHERE store_id = 2"], "per_entity_key"),
    Question("fr_mike_rentals", "How many rentals did Mike Hillyer process?",
             ["SELECT COUNT(*) FROM rental r JOIN staff s ON s.staff_id = r.staff_id "
              "WHERE s.first_name = 'Mike' AND s.last_name = 'Hillyer'"], "count_by_entity_name"),
]


def traps(url: str) -> None:
    """Two MARYs who together (not apart) outpay the top payer; two PENELOPEs who together have more films than
    the top actor; PG beside PG-13; rentals not returned; two staff named Mike."""
    mary = ("SELECT SUM(p.amount) FROM payment p JOIN customer c ON c.customer_id = p.customer_id "
            "WHERE c.first_name = 'MARY' GROUP BY c.customer_id ORDER BY c.customer_id LIMIT 1 OFFSET {}")
    smith, keith = scalar(url, mary.format(0)), scalar(url, mary.format(1))
    top = scalar(url, "SELECT MAX(s) FROM (SELECT SUM(amount) AS s FROM payment GROUP BY customer_id) x")
    assert max(smith, keith) < top < smith + keith
    penelopes = ("SELECT COUNT(*) FROM film_actor fa JOIN actor a ON a.actor_id = fa.actor_id "
                 "WHERE a.first_name = 'PENELOPE'")
    most = scalar(url, "SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM film_actor GROUP BY actor_id) x")
    assert scalar(url, "SELECT COUNT(*) FROM actor WHERE first_name = 'PENELOPE'") == 2
    assert scalar(url, penelopes) > most
    assert scalar(url, "SELECT COUNT(*) FROM film WHERE rating LIKE 'PG%'") > scalar(
        url, "SELECT COUNT(*) FROM film WHERE rating = 'PG'")
    assert scalar(url, "SELECT COUNT(*) FROM rental WHERE return_date IS NULL") > 0
    assert scalar(url, "SELECT COUNT(*) FROM staff WHERE first_name = 'Mike'") == 2
