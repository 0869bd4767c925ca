"""A small record shop and a catalog written by hand in the shape `concierge init` drafts (a read tool per
table with optional filters, a `*_summary` that groups, ranks and sums), for the planner's tests on drafted
catalogs. `catalog(artist_filter=...)` leaves out the albums' filter by the artist's name, so a test can ask
what the planner does with a value no parameter takes. Prices are exact in binary (0.5, 1.25), so a sum prints
the same on SQLite and PostgreSQL whatever the money formatting."""

from __future__ import annotations

from datetime import date

import sqlalchemy as sa

TODAY = date(2013, 12, 20)
ARTISTS = ["AC/DC", "Queen", "Iron Maiden", "Led Zeppelin"]
GENRES = ["Rock", "Jazz", "Metal"]
CUSTOMERS = [("Frank", "Harris"), ("Helena", "Holy"), ("Frank", "Ralston"), ("Astrid", "Gruber"), ("Dan", "Miller")]


def create(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as c:
        c.execute(sa.text("CREATE TABLE artists (artist_id INTEGER PRIMARY KEY, name TEXT NOT NULL)"))
        c.execute(sa.text("CREATE TABLE albums (album_id INTEGER PRIMARY KEY, title TEXT NOT NULL, "
                          "artist_id INTEGER NOT NULL REFERENCES artists(artist_id))"))
        c.execute(sa.text("CREATE TABLE genres (genre_id INTEGER PRIMARY KEY, name TEXT NOT NULL)"))
        c.execute(sa.text("CREATE TABLE tracks (track_id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                          "album_id INTEGER REFERENCES albums(album_id), "
                          "genre_id INTEGER REFERENCES genres(genre_id))"))
        c.execute(sa.text("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, first_name TEXT NOT NULL, "
                          "last_name TEXT NOT NULL)"))
        c.execute(sa.text("CREATE TABLE invoices (invoice_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL "
                          "REFERENCES customers(customer_id), invoice_date DATE NOT NULL, "
                          "total NUMERIC(10,2) NOT NULL)"))
        c.execute(sa.text("INSERT INTO artists VALUES (:i, :n)"), [{"i": i, "n": n} for i, n in enumerate(ARTISTS, 1)])
        albums = [(1, "For Those About To Rock", 1), (2, "Let There Be Rock", 1), (3, "A Night at the Opera", 2),
                  (4, "Powerslave", 3), (5, "IV", 4), (6, "Houses of the Holy", 4), (7, "Killers", 3)]
        c.execute(sa.text("INSERT INTO albums VALUES (:i, :t, :a)"), [dict(zip("ita", a, strict=True)) for a in albums])
        c.execute(sa.text("INSERT INTO genres VALUES (:i, :n)"), [{"i": i, "n": n} for i, n in enumerate(GENRES, 1)])
        c.execute(sa.text("INSERT INTO tracks VALUES (:i, :n, :a, :g)"),
                  [{"i": i, "n": f"Track {i}", "a": 1 + i % 7, "g": 1 + (i * 5) % 3} for i in range(1, 41)])
        c.execute(sa.text("INSERT INTO customers VALUES (:i, :f, :l)"),
                  [{"i": i, "f": f, "l": last} for i, (f, last) in enumerate(CUSTOMERS, 1)])
        invoices = [{"i": i, "c": 1 + (i * 3) % 5, "d": date(2009, 1 + i % 12, 1 + i % 27),
                     "t": [0.5, 1.25, 2.75, 4.5][i % 4] + (0.25 if i % 5 == 2 else 0)} for i in range(1, 61)]
        c.execute(sa.text("INSERT INTO invoices VALUES (:i, :c, :d, :t)"), invoices)
    engine.dispose()


def scalar(url: str, sql: str):
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(sql)).scalar()
    finally:
        engine.dispose()


def rows(url: str, sql: str) -> list[tuple]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql))]
    finally:
        engine.dispose()


_ALBUMS = """
  albums:
    description: {ja: アルバムを検索します。, en: Find albums.}
    roles: [staff]
    params:
      album_id:
        type: integer
        nullable: true
        description: {ja: アルバムのalbum_id（完全一致）, en: "album (album_id), exact"}
      title:
        type: string
        nullable: true
        match: contains
        description: {ja: タイトルの一部, en: part of the title (any case)}
        extract: {kind: name, labels: [named, called, title, album title]}
ARTIST_PARAM
    sql: |
      SELECT t.album_id, t.title, j1.name AS artist_name FROM albums t JOIN artists j1 ON j1.artist_id = t.artist_id
      WHERE (:album_id IS NULL OR t.album_id = :album_id)
        AND (:title IS NULL OR LOWER(t.title) LIKE LOWER(:title))
ARTIST_WHERE      ORDER BY t.album_id
    result:
      max_rows: 50
      labels:
        album_id: {ja: アルバムID, en: album id}
        title: {ja: タイトル, en: title}
        artist_name: {ja: アーティスト, en: artist}
    intents:
      keywords: [albums, album list, how many albums, number of albums, アルバム, アルバム一覧]
      topics: [album, アルバム]
"""
_ARTIST_PARAM = """      artist_name:
        type: string
        nullable: true
        match: contains
        description: {ja: アーティストの名前の一部, en: part of the artist's name (any case)}
        extract: {kind: name, labels: [artist, artist name, アーティスト]}
"""
_ARTIST_WHERE = "        AND (:artist_name IS NULL OR LOWER(j1.name) LIKE LOWER(:artist_name))\n"

_REST = """
  tracks:
    description: {ja: 曲を検索します。, en: Find tracks.}
    roles: [staff]
    params:
      name:
        type: string
        nullable: true
        match: contains
        description: {ja: 曲名の一部, en: part of the name (any case)}
        extract: {kind: name, labels: [named, called, track name]}
      genre:
        type: enum
        nullable: true
        enum: {query: "SELECT DISTINCT name FROM genres ORDER BY 1"}
        description: {ja: ジャンル（null なら全て）, en: "the genre, one of the values in the data; null for all"}
        extract: {kind: enum}
    sql: |
      SELECT t.track_id, t.name, j2.name AS genre_name FROM tracks t LEFT JOIN genres j2 ON j2.genre_id = t.genre_id
      WHERE (:name IS NULL OR LOWER(t.name) LIKE LOWER(:name)) AND (:genre IS NULL OR j2.name = :genre)
      ORDER BY t.track_id
    result:
      max_rows: 50
      labels:
        track_id: {ja: 曲ID, en: track id}
        name: {ja: 曲名, en: name}
        genre_name: {ja: ジャンル, en: genre}
    intents:
      keywords: [tracks, track list, how many tracks, number of tracks, 曲, 曲の一覧]
      topics: [track, 曲]
  invoices:
    description: {ja: 請求書を検索します。, en: Find invoices.}
    roles: [staff]
    params:
      invoice_date_from:
        type: date
        nullable: true
        description: {ja: 請求日の開始日, en: "first day of the invoice date period, YYYY-MM-DD"}
        extract: {kind: date, part: start}
      invoice_date_to:
        type: date
        nullable: true
        description:
          ja: 請求日の終了日（この日を含む）
          en: "last day of the invoice date period (inclusive), YYYY-MM-DD"
        extract: {kind: date, part: end}
    ordered: [[invoice_date_from, invoice_date_to]]
    sql: |
      SELECT t.invoice_id, t.customer_id, t.invoice_date, t.total FROM invoices t
      WHERE (:invoice_date_from IS NULL OR t.invoice_date >= :invoice_date_from)
        AND (:invoice_date_to IS NULL OR t.invoice_date <= :invoice_date_to)
      ORDER BY t.invoice_id
    result:
      max_rows: 50
      totals: {total: sum}
      labels:
        invoice_id: {ja: 請求書ID, en: invoice id}
        customer_id: {ja: 顧客ID, en: customer id}
        invoice_date: {ja: 請求日, en: invoice date}
        total: {ja: 合計, en: total}
    intents:
      keywords: [invoices, invoice list, how many invoices, number of invoices, 請求書, 請求書一覧]
      topics: [invoice, 請求書]
  invoices_summary:
    description: {ja: 請求書の件数と合計を集計します。, en: Count invoices and sum their totals.}
    roles: [staff]
    params:
      invoice_date_from:
        type: date
        nullable: true
        description: {ja: 請求日の開始日, en: "first day of the invoice date period, YYYY-MM-DD"}
        extract: {kind: date, part: start}
      invoice_date_to:
        type: date
        nullable: true
        description:
          ja: 請求日の終了日（この日を含む）
          en: "last day of the invoice date period (inclusive), YYYY-MM-DD"
        extract: {kind: date, part: end}
CUSTOMER_PARAM      group_by:
        type: enum
        default: month
        enum: {values: [customer, month]}
        description:
          ja: "集計の単位: customer、month（既定 month）"
          en: "what to group by: customer, month (default month)"
        extract:
          kind: enum
          synonyms: {by customer: customer, which customer: customer, 顧客別: customer, どの顧客: customer,
                     多い顧客: customer,
                     by month: month, monthly: month, 月別: month}
      rank_by:
        type: enum
        nullable: true
        enum: {values: [count_of_invoices, total]}
        description: {ja: 順位を決める値, en: what ranks the groups}
        extract:
          kind: enum
          synonyms: {most invoices: count_of_invoices, highest total: total, by total: total, spent the most: total}
      top_n:
        type: integer
        default: 100
        min: 1
        max: 100
        description: {ja: 上位何件か, en: how many groups at most}
        extract: {kind: count, cues: [top, best, トップ, 上位], one: [the most, いちばん, 一番, 最も]}
    ordered: [[invoice_date_from, invoice_date_to]]
    sql: |
      SELECT CASE :group_by WHEN 'customer' THEN c.first_name || ' ' || c.last_name
                            WHEN 'month' THEN substr(CAST(t.invoice_date AS VARCHAR), 1, 7) END AS group_value,
             COUNT(*) AS invoices, SUM(t.total) AS total
      FROM invoices t LEFT JOIN customers c ON c.customer_id = t.customer_id
      WHERE (:invoice_date_from IS NULL OR t.invoice_date >= :invoice_date_from)
        AND (:invoice_date_to IS NULL OR t.invoice_date <= :invoice_date_to)
CUSTOMER_WHERE      GROUP BY 1
      ORDER BY CASE WHEN :rank_by = 'count_of_invoices' THEN -COUNT(*) ELSE -SUM(t.total) END, 1
      LIMIT :top_n
    result:
      max_rows: 100
      totals: {invoices: sum, total: sum}
      labels:
        group_value: {ja: 区分, en: group}
        invoices: {ja: 請求書の件数, en: number of invoices}
        total: {ja: 合計, en: total}
    intents:
      keywords: [invoices summary, total invoiced, invoices by, how many invoices, 請求書の合計, 請求書の集計, 顧客別,
                 spent the most, which customer]
      topics: [total, sum, 合計]
"""
_CUSTOMER_PARAM = """      customer_id:
        type: integer
        nullable: true
        description: {ja: 顧客のcustomer_id（完全一致）, en: "customer (customer_id), exact"}
        extract: {kind: count, cues: [customer, customer id, 顧客, 顧客ID]}
"""
_CUSTOMER_WHERE = "        AND (:customer_id IS NULL OR t.customer_id = :customer_id)\n"


def catalog(*, artist_filter: bool = True, customer_filter: bool = True) -> str:
    """The catalog's YAML: with or without the albums' filter by artist and the summary's by customer number."""
    albums = _ALBUMS.replace("ARTIST_PARAM\n", _ARTIST_PARAM if artist_filter else "").replace(
        "ARTIST_WHERE", _ARTIST_WHERE if artist_filter else "")
    rest = _REST.replace("CUSTOMER_PARAM", _CUSTOMER_PARAM if customer_filter else "").replace(
        "CUSTOMER_WHERE", _CUSTOMER_WHERE if customer_filter else "")
    head = ("catalog: music\ndescription: {ja: レコード店のデータを調べます。, en: Look up the record shop.}\n"
            "roles: {staff: {all_rows: true}}\ntools:")
    return head + albums + rest
