"""A Chinook-like record shop: artists, albums, tracks, customers, invoices and their lines.

What it holds that a careless draft gets wrong: an artist with a slash in its name (AC/DC); a genre
"Rock" beside "Rock And Roll"; an album called "Pop" and a genre Pop; two customers called Frank
whose spending differs (together they outspend the top customer, each alone does not); prices of 0.99
and 1.99, so a float sum shows noise; state and billing_state NULL for most rows; track lengths and
sizes that must never be summed; invoices from 2009 to mid-December 2013.
"""

from __future__ import annotations

import random
import unicodedata
from datetime import date, datetime, timedelta
from decimal import Decimal

import sqlalchemy as sa

from business_schemas import Question, scalar

TODAY = date(2013, 12, 18)  # a Wednesday: last month is November 2013, last week 2013-12-09 .. 2013-12-15
SEED = 1979

metadata = sa.MetaData()
MONEY = sa.Numeric(10, 2)

artists = sa.Table("artists", metadata,
                   sa.Column("artist_id", sa.Integer, primary_key=True, autoincrement=False),
                   sa.Column("name", sa.String(120)))
albums = sa.Table("albums", metadata,
                  sa.Column("album_id", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("title", sa.String(160), nullable=False),
                  sa.Column("artist_id", sa.Integer, sa.ForeignKey("artists.artist_id"), nullable=False, index=True))
genres = sa.Table("genres", metadata,
                  sa.Column("genre_id", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("name", sa.String(120)))
media_types = sa.Table("media_types", metadata,
                       sa.Column("media_type_id", sa.Integer, primary_key=True, autoincrement=False),
                       sa.Column("name", sa.String(120)))
tracks = sa.Table("tracks", metadata,
                  sa.Column("track_id", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("name", sa.String(200), nullable=False),
                  sa.Column("album_id", sa.Integer, sa.ForeignKey("albums.album_id"), index=True),
                  sa.Column("media_type_id", sa.Integer, sa.ForeignKey("media_types.media_type_id"), nullable=False),
                  sa.Column("genre_id", sa.Integer, sa.ForeignKey("genres.genre_id"), index=True),
                  sa.Column("composer", sa.String(220)),
                  sa.Column("milliseconds", sa.Integer, nullable=False),
                  sa.Column("bytes", sa.Integer),
                  sa.Column("unit_price", MONEY, nullable=False))
employees = sa.Table("employees", metadata,
                     sa.Column("employee_id", sa.Integer, primary_key=True, autoincrement=False),
                     sa.Column("last_name", sa.String(20), nullable=False),
                     sa.Column("first_name", sa.String(20), nullable=False),
                     sa.Column("title", sa.String(30)),
                     sa.Column("reports_to", sa.Integer, sa.ForeignKey("employees.employee_id")),
                     sa.Column("hire_date", sa.DateTime))
customers = sa.Table("customers", metadata,
                     sa.Column("customer_id", sa.Integer, primary_key=True, autoincrement=False),
                     sa.Column("first_name", sa.String(40), nullable=False),
                     sa.Column("last_name", sa.String(20), nullable=False),
                     sa.Column("company", sa.String(80)),
                     sa.Column("city", sa.String(40)),
                     sa.Column("state", sa.String(40)),
                     sa.Column("country", sa.String(40)),
                     sa.Column("email", sa.String(60), nullable=False),
                     sa.Column("support_rep_id", sa.Integer, sa.ForeignKey("employees.employee_id"), index=True))
invoices = sa.Table("invoices", metadata,
                    sa.Column("invoice_id", sa.Integer, primary_key=True, autoincrement=False),
                    sa.Column("customer_id", sa.Integer, sa.ForeignKey("customers.customer_id"), nullable=False,
                              index=True),
                    sa.Column("invoice_date", sa.DateTime, nullable=False),
                    sa.Column("billing_city", sa.String(40)),
                    sa.Column("billing_state", sa.String(40)),
                    sa.Column("billing_country", sa.String(40)),
                    sa.Column("total", MONEY, nullable=False))
invoice_lines = sa.Table("invoice_lines", metadata,
                         sa.Column("invoice_line_id", sa.Integer, primary_key=True, autoincrement=False),
                         sa.Column("invoice_id", sa.Integer, sa.ForeignKey("invoices.invoice_id"), nullable=False,
                                   index=True),
                         sa.Column("track_id", sa.Integer, sa.ForeignKey("tracks.track_id"), nullable=False,
                                   index=True),
                         sa.Column("unit_price", MONEY, nullable=False),
                         sa.Column("quantity", sa.Integer, nullable=False))

GENRES = ["Rock", "Jazz", "Metal", "Alternative & Punk", "Rock And Roll", "Blues", "Latin", "Reggae", "Pop",
          "Soundtrack", "Bossa Nova", "Classical", "TV Shows"]
MEDIA = ["MPEG audio file", "Protected AAC audio file", "Protected MPEG-4 video file", "Purchased AAC audio file",
         "AAC audio file"]
AUDIO_WEIGHTS = [80, 12, 0, 3, 5]
VIDEO = "Protected MPEG-4 video file"

# artist, genre, albums; a genre "TV Shows" album is video, sold at 1.99
CATALOG = [
    ("AC/DC", "Rock", ["For Those About To Rock We Salute You", "Let There Be Rock", "Back In Black"]),
    ("Accept", "Metal", ["Balls to the Wall", "Restless and Wild"]),
    ("Aerosmith", "Rock", ["Big Ones", "Get A Grip"]),
    ("Alanis Morissette", "Rock", ["Jagged Little Pill"]),
    ("Audioslave", "Alternative & Punk", ["Audioslave", "Out Of Exile", "Revelations"]),
    ("Led Zeppelin", "Rock", ["Led Zeppelin I", "Led Zeppelin II", "Houses Of The Holy", "Physical Graffiti",
                              "Presence"]),
    ("Metallica", "Metal", ["Master Of Puppets", "Kill 'Em All", "Ride The Lightning", "...And Justice For All"]),
    ("Iron Maiden", "Metal", ["Powerslave", "Piece Of Mind", "The Number of The Beast", "Fear Of The Dark"]),
    ("U2", "Rock", ["Achtung Baby", "The Joshua Tree", "War", "Pop"]),
    ("Queen", "Rock", ["Greatest Hits I", "Greatest Hits II", "News Of The World"]),
    ("Miles Davis", "Jazz", ["Kind of Blue", "Bitches Brew", "Miles Ahead"]),
    ("Antônio Carlos Jobim", "Bossa Nova", ["Warner 25 Anos", "Chill: Brazil (Disc 2)"]),
    ("Os Paralamas Do Sucesso", "Latin", ["Arquivo II", "Arquivo Os Paralamas Do Sucesso"]),
    ("Caetano Veloso", "Latin", ["Prenda Minha", "Sozinho Remix Ao Vivo"]),
    ("Gilberto Gil", "Latin", ["As Canções de Eu Tu Eles", "Quanta Gente Veio Ver (Live)"]),
    ("Foo Fighters", "Rock", ["The Colour And The Shape", "One By One", "In Your Honor [Disc 1]"]),
    ("Pearl Jam", "Rock", ["Ten", "Vs.", "Riot Act"]),
    ("Red Hot Chili Peppers", "Alternative & Punk", ["Blood Sugar Sex Magik", "By The Way", "Californication"]),
    ("The Rolling Stones", "Rock", ["Hot Rocks, 1964-1971 (Disc 1)", "No Security", "Voodoo Lounge"]),
    ("Van Halen", "Rock", ["Van Halen", "Van Halen III"]),
    ("Deep Purple", "Rock", ["Machine Head", "MK III The Final Concerts [Disc 1]", "Stormbringer"]),
    ("Eric Clapton", "Blues", ["Unplugged", "The Cream Of Clapton"]),
    ("Chico Buarque", "Latin", ["Minha Historia"]),
    ("Elvis Presley", "Rock And Roll", ["Elvis Is Back", "From Elvis in Memphis"]),
    ("Bob Marley", "Reggae", ["Legend", "Exodus"]),
    ("Berliner Philharmoniker & Herbert Von Karajan", "Classical", ["Mozart: Symphonies Nos. 40 & 41"]),
    ("Lost", "TV Shows", ["Lost, Season 1", "Lost, Season 2"]),
    ("Battlestar Galactica", "TV Shows", ["Battlestar Galactica, Season 3"]),
    ("Lenny Kravitz", "Rock", ["Greatest Hits"]),
    ("Alice In Chains", "Rock", ["Facelift"]),
    ("Jota Quest", "Pop", ["Jota Quest-1995"]),
    ("Amy Winehouse", "Pop", ["Back to Black", "Frank"]),
]

EMPLOYEES = [  # id, last, first, title, reports_to
    (1, "Adams", "Andrew", "General Manager", None),
    (2, "Edwards", "Nancy", "Sales Manager", 1),
    (3, "Peacock", "Jane", "Sales Support Agent", 2),
    (4, "Park", "Margaret", "Sales Support Agent", 2),
    (5, "Johnson", "Steve", "Sales Support Agent", 2),
    (6, "Mitchell", "Michael", "IT Manager", 1),
    (7, "King", "Robert", "IT Staff", 6),
    (8, "Callahan", "Laura", "IT Staff", 6),
]

CUSTOMERS = [  # first, last, company, city, state (US and Canada only), country, support rep
    ("Luís", "Gonçalves", "Embraer - Empresa Brasileira de Aeronáutica S.A.", "São José dos Campos", None,
     "Brazil", 3),
    ("Leonie", "Köhler", None, "Stuttgart", None, "Germany", 5),
    ("François", "Tremblay", None, "Montréal", "QC", "Canada", 3),
    ("Bjørn", "Hansen", None, "Oslo", None, "Norway", 4),
    ("František", "Wichterlová", "JetBrains s.r.o.", "Prague", None, "Czech Republic", 4),
    ("Helena", "Holý", None, "Prague", None, "Czech Republic", 5),
    ("Astrid", "Gruber", None, "Vienne", None, "Austria", 5),
    ("Daan", "Peeters", None, "Brussels", None, "Belgium", 4),
    ("Kara", "Nielsen", None, "Copenhagen", None, "Denmark", 4),
    ("Eduardo", "Martins", "Woodstock Discos", "São Paulo", None, "Brazil", 4),
    ("Alexandre", "Rocha", "Banco do Brasil S.A.", "São Paulo", None, "Brazil", 5),
    ("Roberto", "Almeida", "Riotur", "Rio de Janeiro", None, "Brazil", 3),
    ("Fernanda", "Ramos", None, "Brasília", None, "Brazil", 4),
    ("Mark", "Philips", "Telus", "Edmonton", "AB", "Canada", 5),
    ("Jennifer", "Peterson", "Rogers Canada", "Vancouver", "BC", "Canada", 3),
    ("Frank", "Harris", "Google Inc.", "Mountain View", "CA", "USA", 4),
    ("Jack", "Smith", "Microsoft Corporation", "Redmond", "WA", "USA", 5),
    ("Michelle", "Brooks", None, "New York", "NY", "USA", 3),
    ("Tim", "Goyer", "Apple Inc.", "Cupertino", "CA", "USA", 3),
    ("Dan", "Miller", None, "Mountain View", "CA", "USA", 4),
    ("Kathy", "Chase", None, "Reno", "NV", "USA", 5),
    ("Heather", "Leacock", None, "Orlando", "FL", "USA", 4),
    ("John", "Gordon", None, "Boston", "MA", "USA", 4),
    ("Frank", "Ralston", None, "Chicago", "IL", "USA", 3),
    ("Victor", "Stevens", None, "Madison", "WI", "USA", 5),
    ("Richard", "Cunningham", None, "Fort Worth", "TX", "USA", 4),
    ("Patrick", "Gray", None, "Tucson", "AZ", "USA", 4),
    ("Julia", "Barnett", None, "Salt Lake City", "UT", "USA", 5),
    ("Robert", "Brown", None, "Toronto", "ON", "Canada", 3),
    ("Edward", "Francis", None, "Ottawa", "ON", "Canada", 3),
    ("Martha", "Silk", None, "Halifax", "NS", "Canada", 5),
    ("Aaron", "Mitchell", None, "Winnipeg", "MB", "Canada", 4),
    ("Ellie", "Sullivan", None, "Yellowknife", "NT", "Canada", 3),
    ("João", "Fernandes", None, "Lisbon", None, "Portugal", 4),
    ("Madalena", "Sampaio", None, "Porto", None, "Portugal", 4),
    ("Hannah", "Schneider", None, "Berlin", None, "Germany", 5),
    ("Fynn", "Zimmermann", None, "Frankfurt", None, "Germany", 3),
    ("Niklas", "Schröder", None, "Berlin", None, "Germany", 3),
    ("Camille", "Bernard", None, "Paris", None, "France", 4),
    ("Dominique", "Lefebvre", None, "Paris", None, "France", 4),
    ("Marc", "Dubois", None, "Lyon", None, "France", 5),
    ("Wyatt", "Girard", None, "Bordeaux", None, "France", 3),
    ("Isabelle", "Mercier", None, "Dijon", None, "France", 3),
    ("Terhi", "Hämäläinen", None, "Helsinki", None, "Finland", 3),
    ("Ladislav", "Kovács", None, "Budapest", None, "Hungary", 3),
    ("Hugh", "O'Reilly", None, "Dublin", None, "Ireland", 3),
    ("Lucas", "Mancini", None, "Rome", None, "Italy", 5),
    ("Johannes", "Van der Berg", None, "Amsterdam", None, "Netherlands", 5),
    ("Stanisław", "Wójcik", None, "Warsaw", None, "Poland", 4),
    ("Enrique", "Muñoz", None, "Madrid", None, "Spain", 5),
    ("Joakim", "Johansson", None, "Stockholm", None, "Sweden", 5),
    ("Emma", "Jones", None, "London", None, "United Kingdom", 3),
    ("Phil", "Hughes", None, "London", None, "United Kingdom", 3),
    ("Steve", "Murray", None, "Edinburgh", None, "United Kingdom", 5),
    ("Mark", "Taylor", None, "Sidney", None, "Australia", 4),
    ("Diego", "Gutiérrez", None, "Buenos Aires", None, "Argentina", 4),
    ("Luis", "Rojas", None, "Santiago", None, "Chile", 5),
    ("Manoj", "Pareek", None, "Delhi", None, "India", 3),
    ("Puja", "Srivastava", None, "Bangalore", None, "India", 3),
]
# rounds of seven invoices a customer bought (customer_id -> rounds; the others one): Helena Holý spent the
# most, and the two Franks (16, 24) together more than she did
ROUNDS = {6: 3, 16: 2, 24: 2, 5: 2, 12: 2, 17: 2, 39: 2, 47: 2, 52: 2}

_WORDS_A = ["Night", "Black", "Highway", "Electric", "Silent", "Broken", "Golden", "Lonely", "Wild", "Midnight",
            "Burning", "Crazy", "Sweet", "Cold", "Blue", "Heavy", "Hollow", "Restless", "Rising", "Falling"]
_WORDS_B = ["Train", "Heart", "Road", "Dreams", "River", "Fire", "Thunder", "Rain", "Queen", "Angel", "Money",
            "Love", "Shadow", "Storm", "Stone", "Light", "Machine", "Sky", "Soul", "Town"]
_COMPOSERS = ["Angus Young, Malcolm Young, Brian Johnson", "Steven Tyler, Joe Perry", "Jimmy Page, Robert Plant",
              "James Hetfield, Lars Ulrich", "Steve Harris", "Bono, The Edge", "Freddie Mercury", "Brian May",
              "Miles Davis", "Antônio Carlos Jobim", "Caetano Veloso", "Gilberto Gil", "Dave Grohl",
              "Eddie Vedder", "Anthony Kiedis, Flea, John Frusciante", "Mick Jagger, Keith Richards",
              "Eddie Van Halen", "Ian Gillan, Ritchie Blackmore", "Eric Clapton", "Chico Buarque", "Bob Marley",
              "Wolfgang Amadeus Mozart", "Lenny Kravitz", "Jerry Cantrell", "Amy Winehouse"]


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower().replace(" ", "")


def _catalog_rows(rnd: random.Random) -> tuple[list[dict], list[dict], list[dict]]:
    artist_rows: list[dict] = []
    album_rows: list[dict] = []
    track_rows: list[dict] = []
    for artist_id, (artist, genre, titles) in enumerate(CATALOG, start=1):
        artist_rows.append({"artist_id": artist_id, "name": artist})
        for title in titles:
            album_id = len(album_rows) + 1
            album_rows.append({"album_id": album_id, "title": title, "artist_id": artist_id})
            video = genre == "TV Shows"
            for _ in range(rnd.randint(5, 14)):
                media = VIDEO if video else rnd.choices(MEDIA, AUDIO_WEIGHTS)[0]
                ms = rnd.randint(2_400_000, 2_900_000) if video else rnd.randint(120_000, 480_000)
                track_rows.append({
                    "track_id": len(track_rows) + 1,
                    "name": f"{rnd.choice(_WORDS_A)} {rnd.choice(_WORDS_B)}",
                    "album_id": album_id, "media_type_id": MEDIA.index(media) + 1,
                    "genre_id": GENRES.index(genre) + 1,
                    "composer": None if video or rnd.random() < 0.3 else rnd.choice(_COMPOSERS),
                    "milliseconds": ms, "bytes": ms * rnd.randint(30, 34),
                    "unit_price": Decimal("1.99") if video else Decimal("0.99"),
                })
    return artist_rows, album_rows, track_rows


def _sales_rows(rnd: random.Random, track_rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """Invoices every few days, each customer buying in rounds of seven invoices of 1, 2, 2, 4, 6, 9 and 14 tracks."""
    bought = [(customer_id, size) for customer_id in range(1, len(CUSTOMERS) + 1)
              for _ in range(ROUNDS.get(customer_id, 1)) for size in (1, 2, 2, 4, 6, 9, 14)]
    rnd.shuffle(bought)
    step = (TODAY - date(2009, 1, 1)).days / len(bought)
    invoice_rows: list[dict] = []
    line_rows: list[dict] = []
    for n, (customer_id, size) in enumerate(bought):
        _, _, _, city, state, country, _ = CUSTOMERS[customer_id - 1]
        invoice_id = n + 1
        total = Decimal("0.00")
        for track in rnd.sample(track_rows, size):
            quantity = 2 if rnd.random() < 0.08 else 1
            line_rows.append({"invoice_line_id": len(line_rows) + 1, "invoice_id": invoice_id,
                              "track_id": track["track_id"], "unit_price": track["unit_price"],
                              "quantity": quantity})
            total += track["unit_price"] * quantity
        invoice_rows.append({"invoice_id": invoice_id, "customer_id": customer_id,
                             "invoice_date": datetime(2009, 1, 1) + timedelta(days=int(n * step)),
                             "billing_city": city, "billing_state": state, "billing_country": country,
                             "total": total})
    return invoice_rows, line_rows


def create(url: str) -> None:
    """The tables and the seeded data set, on SQLite or PostgreSQL."""
    rnd = random.Random(SEED)
    artist_rows, album_rows, track_rows = _catalog_rows(rnd)
    invoice_rows, line_rows = _sales_rows(rnd, track_rows)
    customer_rows = [{"customer_id": i, "first_name": first, "last_name": last, "company": company, "city": city,
                      "state": state, "country": country, "email": f"{_ascii(first)}.{_ascii(last)}@example.com",
                      "support_rep_id": rep}
                     for i, (first, last, company, city, state, country, rep) in enumerate(CUSTOMERS, start=1)]
    employee_rows = [{"employee_id": i, "last_name": last, "first_name": first, "title": title, "reports_to": boss,
                      "hire_date": datetime(2002, 4 + i % 6, 1 + i)}
                     for i, last, first, title, boss in EMPLOYEES]
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            metadata.create_all(conn)
            conn.execute(genres.insert(), [{"genre_id": i, "name": n} for i, n in enumerate(GENRES, start=1)])
            conn.execute(media_types.insert(), [{"media_type_id": i, "name": n} for i, n in enumerate(MEDIA, 1)])
            for table, rows in ((artists, artist_rows), (albums, album_rows), (tracks, track_rows),
                                (employees, employee_rows), (customers, customer_rows), (invoices, invoice_rows),
                                (invoice_lines, line_rows)):
                conn.execute(table.insert(), rows)
    finally:
        engine.dispose()


def _spent(order: str, limit: int = 1, column: str = "c.last_name") -> list[str]:
    """The names of the customers ranked by what they spent, one statement per rank."""
    return [f"SELECT {column} FROM customers c JOIN invoices i ON i.customer_id = c.customer_id "
            f"GROUP BY c.customer_id, {column} ORDER BY SUM(i.total) {order}, c.customer_id "
            f"LIMIT 1 OFFSET {rank}" for rank in range(limit)]


def _country_by_sales(rank: int) -> str:
    return (f"SELECT billing_country FROM invoices GROUP BY billing_country "
            f"ORDER BY SUM(total) DESC, billing_country LIMIT 1 OFFSET {rank}")


_IN_2010 = "invoice_date >= '2010-01-01' AND invoice_date < '2011-01-01'"
_ACDC_TRACKS = ("SELECT t.track_id FROM tracks t JOIN albums a ON a.album_id = t.album_id "
                "JOIN artists ar ON ar.artist_id = a.artist_id WHERE ar.name = 'AC/DC'")


def _invoices(where: str) -> list[str]:
    """How many invoices, and what they add up to."""
    return [f"SELECT COUNT(*) FROM invoices WHERE {where}", f"SELECT SUM(total) FROM invoices WHERE {where}"]


def _lines(where: str) -> list[str]:
    """How many invoice lines, tracks sold, and what they add up to."""
    return [f"SELECT {e} FROM invoice_lines l JOIN invoices i ON i.invoice_id = l.invoice_id WHERE {where}"
            for e in ("COUNT(*)", "SUM(l.quantity)", "SUM(l.unit_price * l.quantity)")]


def _albums_of(artist: str) -> str:
    return (f"SELECT COUNT(*) FROM albums a JOIN artists ar ON ar.artist_id = a.artist_id "
            f"WHERE ar.name = '{artist}'")


_TOP_CUSTOMER = ("SELECT customer_id FROM invoices GROUP BY customer_id ORDER BY SUM(total) DESC, customer_id "
                 "LIMIT 1")
_TOP_REP = ("SELECT e.employee_id FROM employees e JOIN customers c ON c.support_rep_id = e.employee_id "
            "JOIN invoices i ON i.customer_id = c.customer_id GROUP BY e.employee_id "
            "ORDER BY SUM(i.total) DESC LIMIT 1")
_MARCH_2009 = "invoice_date >= '2009-03-01' AND invoice_date < '2009-04-01'"
_IN_2011 = "invoice_date >= '2011-01-01' AND invoice_date < '2012-01-01'"
_NOVEMBER = "invoice_date >= '2013-11-01' AND invoice_date < '2013-12-01'"
_LAST_WEEK = "invoice_date >= '2013-12-09' AND invoice_date < '2013-12-16'"
_PARIS_2010 = f"billing_city = 'Paris' AND {_IN_2010}"

QUESTIONS = [
    Question("albums", "How many albums do we have?", ["SELECT COUNT(*) FROM albums"], "count"),
    Question("albums_ja", "アルバムは何枚ありますか？", ["SELECT COUNT(*) FROM albums"], "count"),
    Question("customers", "how many customers do we have", ["SELECT COUNT(*) FROM customers"], "count"),
    Question("tracks_ja", "曲は全部で何曲？", ["SELECT COUNT(*) FROM tracks"], "count"),
    Question("acdc_albums", "How many albums does AC/DC have?", [_albums_of("AC/DC")], "count_by_entity_name"),
    Question("aerosmith_albums", "and Aerosmith?", [_albums_of("Aerosmith")], "follow_up", follow_up="acdc_albums"),
    Question("acdc_albums_ja", "AC/DCのアルバムは何枚？", [_albums_of("AC/DC")], "count_by_entity_name"),
    Question("zeppelin_tracks", "how many songs does Led Zeppelin have",
             ["SELECT COUNT(*) FROM tracks t JOIN albums a ON a.album_id = t.album_id "
              "JOIN artists ar ON ar.artist_id = a.artist_id WHERE ar.name = 'Led Zeppelin'"],
             "count_by_entity_name"),
    Question("invoices_of_5", "Show me the invoices of customer 5", _invoices("customer_id = 5")[:1],
             "per_entity_key", may_state=_invoices("customer_id = 5")[1:]),
    Question("spent_by_12_ja", "顧客番号12の請求額の合計は？", _invoices("customer_id = 12")[1:], "per_entity_key",
             may_state=_invoices("customer_id = 12")[:1]),
    Question("invoice_100_lines_ja", "請求書100の明細は何行？", _lines("i.invoice_id = 100")[:1], "per_entity_key",
             may_state=_lines("i.invoice_id = 100")[1:]),
    Question("invoice_100_total", "What is the total of invoice 100?",
             ["SELECT total FROM invoices WHERE invoice_id = 100"], "per_entity_key",
             may_state=_lines("i.invoice_id = 100")[:2]),
    Question("top_customer", "Which customer spent the most?",
             [*_spent("DESC"), "SELECT MAX(s) FROM (SELECT SUM(total) AS s FROM invoices GROUP BY customer_id) x"],
             "top_entity", may_state=_invoices(f"customer_id = ({_TOP_CUSTOMER})")[:1]),
    Question("top_countries", "Top 3 countries by sales", [_country_by_sales(r) for r in range(3)], "top_entity"),
    Question("top_rep_ja", "売上がいちばん多いサポート担当者は？",
             [f"SELECT last_name FROM employees WHERE employee_id = ({_TOP_REP})"], "top_entity",
             may_state=_invoices(f"customer_id IN (SELECT customer_id FROM customers "
                                 f"WHERE support_rep_id = ({_TOP_REP}))")),
    Question("march_2009", "What was the total invoiced in March 2009?", _invoices(_MARCH_2009)[1:],
             "total_in_period", may_state=_invoices(_MARCH_2009)[:1]),
    Question("sales_2010_ja", "2010年の売上合計は？", _invoices(_IN_2010)[1:], "total_in_period",
             may_state=_invoices(_IN_2010)[:1]),
    Question("sales_2011_ja", "2011年は？", _invoices(_IN_2011)[1:], "follow_up", follow_up="sales_2010_ja",
             may_state=_invoices(_IN_2011)[:1]),
    Question("last_month", "sales last month?", _invoices(_NOVEMBER)[1:], "total_in_period",
             may_state=_invoices(_NOVEMBER)[:1]),
    Question("last_week_ja", "先週の請求書は何件？", _invoices(_LAST_WEEK)[:1], "total_in_period",
             may_state=_invoices(_LAST_WEEK)[1:]),
    Question("rock_tracks", "How many tracks are in the Rock genre?",
             ["SELECT COUNT(*) FROM tracks t JOIN genres g ON g.genre_id = t.genre_id WHERE g.name = 'Rock'"],
             "count_in_category"),
    Question("jazz_tracks_ja", "ジャズの曲は何曲ありますか",
             ["SELECT COUNT(*) FROM tracks t JOIN genres g ON g.genre_id = t.genre_id WHERE g.name = 'Jazz'"],
             "count_in_category"),
    Question("protected_aac", "how many tracks are Protected AAC audio files?",
             ["SELECT COUNT(*) FROM tracks t JOIN media_types m ON m.media_type_id = t.media_type_id "
              "WHERE m.name = 'Protected AAC audio file'"], "count_in_category"),
    Question("brazil", "How many customers are in Brazil?",
             ["SELECT COUNT(*) FROM customers WHERE country = 'Brazil'"], "count_in_category"),
    Question("germany_list_ja", "ドイツのお客様を一覧で見せて",
             ["SELECT COUNT(*) FROM customers WHERE country = 'Germany'"], "list_filtered"),
    Question("paris_invoices", "list the invoices billed to Paris in 2010", _invoices(_PARIS_2010)[:1],
             "list_filtered", may_state=_invoices(_PARIS_2010)[1:]),
    Question("tracks_sold_2012", "How many tracks did we sell in 2012?",
             _lines("i.invoice_date >= '2012-01-01' AND i.invoice_date < '2013-01-01'")[1:2], "sum_lines",
             may_state=_lines("i.invoice_date >= '2012-01-01' AND i.invoice_date < '2013-01-01'")[::2]),
    Question("acdc_sales_ja", "AC/DCの曲の売上はいくら？", _lines(f"l.track_id IN ({_ACDC_TRACKS})")[2:], "sum_lines",
             may_state=_lines(f"l.track_id IN ({_ACDC_TRACKS})")[:2]),
]


def traps(url: str) -> None:
    """Two Franks whose totals differ, who together (not apart) outspend the top customer; Rock beside Rock And
    Roll; a state missing for most customers."""
    frank = ("SELECT SUM(i.total) FROM invoices i JOIN customers c ON c.customer_id = i.customer_id "
             "WHERE c.first_name = 'Frank' GROUP BY c.customer_id ORDER BY c.customer_id LIMIT 1 OFFSET {}")
    harris, ralston = scalar(url, frank.format(0)), scalar(url, frank.format(1))
    top = scalar(url, "SELECT MAX(s) FROM (SELECT SUM(total) AS s FROM invoices GROUP BY customer_id) x")
    assert harris != ralston and max(harris, ralston) < top < harris + ralston
    assert scalar(url, "SELECT COUNT(*) FROM genres WHERE name LIKE 'Rock%'") == 2
    assert scalar(url, "SELECT COUNT(*) FROM customers WHERE state IS NULL") * 2 > scalar(
        url, "SELECT COUNT(*) FROM customers")
