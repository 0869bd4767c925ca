"""English table nouns the glossary does not list get their katakana (albums -> アルバム), so staff asking in Japanese
about a schema named in English find its tables; listed ones keep their kanji, and romaji, codes and the other words
of a name are never guessed (glossary.guessed, language/katakana.py)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from drafted import BACKENDS, Drafted

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.language import katakana
from concierge.onboarding import glossary
from concierge.onboarding.naming import Noun
from concierge.storage import users


@pytest.mark.parametrize(("identifier", "ja"), [
    ("widgets", "ウィジェット"),
    ("tbl_gadgets", "ガジェット"),
    ("Milestone", "マイルストーン"),
    ("webinars", "ウェビナー"),
    ("drone_master", "ドローン"),
])
def test_an_english_table_noun_the_glossary_does_not_list_gets_its_katakana(identifier, ja):
    noun = Noun.of(identifier, None)
    assert noun.ja_forms == (ja,)
    assert not noun.partial
    assert noun.has_japanese


def test_albums_read_as_the_katakana_e2k_gives_them():
    assert glossary.guessed("albums") == katakana.katakana("album") == "アルバム"
    assert "アルバム" in Noun.of("albums", None).ja_forms


@pytest.mark.parametrize(("identifier", "first"), [
    ("films", "映画"), ("customers", "顧客"), ("tracks", "曲"), ("employees", "従業員"), ("rooms", "部屋"),
    ("patients", "患者"), ("students", "学生"), ("shipments", "出荷"), ("properties", "物件"), ("invoices", "請求書"),
])
def test_a_listed_noun_keeps_its_kanji_first_and_is_not_guessed(identifier, first, monkeypatch):
    monkeypatch.setattr(glossary, "katakana", _never)
    assert Noun.of(identifier, None).ja == first


def _never(word: str) -> str:
    raise AssertionError(f"{word!r} went through e2k")


@pytest.mark.parametrize(("identifier", "romaji"), [
    ("m_tokuisaki", None), ("t_juchu_meisai", None), ("tokuisaki_email", None),  # romaji names
    ("m_hinshitsu", None), ("mokuteki", None),  # romaji words the glossary does not know: romaji syllables only
    ("m_gadget", True),  # a schema known to be romaji guesses no English
    ("qty", None), ("cust", None), ("acct", None), ("sku", None), ("id", None), ("x1", None), ("t001", None),
    ("ab", None), ("abc123", None),  # codes and abbreviations
    ("created", False), ("valid_from", False), ("deleted", False),  # words that are no nouns
])
def test_romaji_codes_and_words_that_are_no_nouns_never_go_through_e2k(identifier, romaji, monkeypatch):
    monkeypatch.setattr(glossary, "katakana", _never)
    for countable in (True, False):
        Noun.of(identifier, None, countable=countable, romaji=romaji)


def test_only_the_head_noun_is_guessed_the_other_words_of_a_name_never(monkeypatch):
    asked: list[str] = []
    monkeypatch.setattr(glossary, "katakana", lambda w: asked.append(w) or "ガジェット")
    types = Noun.of("gadget_types", None)
    assert (types.ja_forms, types.partial, asked) == (("種類", "タイプ"), True, [])
    assert Noun.of("customer_gadgets", None).ja_forms == ("顧客ガジェット",)  # listed words before a guessed head
    assert set(asked) == {"gadget"}


def test_a_word_spelled_in_romaji_syllables_is_guessed_only_in_a_schema_known_to_be_english():
    assert glossary.guessed("tempos") is None  # te-n-po: maybe romaji
    assert glossary.guessed("tempos", romaji=False) == "テンポ"
    assert glossary.guessed("gadget", romaji=True) is None


def test_the_guess_is_the_same_every_time():
    first = [glossary.guessed(w) for w in ("widget", "sprint", "locker")]
    katakana.katakana.cache_clear()
    again = [glossary.guessed(w) for w in ("widget", "sprint", "locker")]
    assert again == first == ["ウィジェット", "スプリント", "ロッカー"]


@pytest.mark.parametrize(("identifier", "also", "ja_also"), [
    ("tracks", ("songs",), ()),
    ("films", ("movies",), ()),
    ("invoices", ("bills",), ("売上", "インボイス")),
])
def test_a_table_is_also_named_by_the_other_words_staff_use_for_it(identifier, also, ja_also):
    noun = Noun.of(identifier, None).without(set())
    assert all(w in noun.plurals for w in also)
    assert all(j in noun.japanese_forms for j in ja_also)


def test_another_word_for_a_table_is_left_to_the_table_named_by_it():
    owned = {"sales", "売上", "販売", "songs", "曲"}
    invoices = Noun.of("invoices", None).without(owned)
    assert "売上" not in invoices.ja_forms and "インボイス" in invoices.ja_forms
    assert "songs" not in Noun.of("tracks", None).without(owned).plurals
    assert "売上" not in Noun.of("invoices", None).japanese_forms  # what a table owns: its own forms only


# --- a record shop named in English, asked in Japanese -----------------------------------------------------------
def _shop(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE artists (artist_id INTEGER PRIMARY KEY, name VARCHAR(80) NOT NULL)"))
        conn.execute(sa.text("CREATE TABLE albums (album_id INTEGER PRIMARY KEY, title VARCHAR(80) NOT NULL, "
                             "artist_id INTEGER NOT NULL REFERENCES artists(artist_id))"))
        conn.execute(sa.text("CREATE TABLE genres (genre_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)"))
        conn.execute(sa.text("CREATE TABLE tracks (track_id INTEGER PRIMARY KEY, name VARCHAR(80) NOT NULL, "
                             "album_id INTEGER REFERENCES albums(album_id), "
                             "genre_id INTEGER REFERENCES genres(genre_id))"))
        conn.execute(sa.text("CREATE TABLE drones (drone_id INTEGER PRIMARY KEY, serial VARCHAR(20) NOT NULL)"))
        conn.execute(sa.text("INSERT INTO artists VALUES (:i, :n)"), [{"i": i, "n": f"Band {i}"} for i in range(1, 8)])
        conn.execute(sa.text("INSERT INTO albums VALUES (:i, :t, :a)"),
                     [{"i": i, "t": f"Album {i}", "a": 1 + i % 7} for i in range(1, 12)])
        conn.execute(sa.text("INSERT INTO genres VALUES (:i, :n)"),
                     [{"i": i, "n": n} for i, n in enumerate(["Rock", "Jazz", "Pop"], start=1)])
        conn.execute(sa.text("INSERT INTO tracks VALUES (:i, :n, :a, :g)"),
                     [{"i": i, "n": f"Song {i}", "a": 1 + i % 11, "g": 1 + i % 3} for i in range(1, 38)])
        conn.execute(sa.text("INSERT INTO drones VALUES (:i, :s)"), [{"i": i, "s": f"DR-{i:03d}"} for i in range(1, 5)])
    engine.dispose()


@pytest.fixture(params=BACKENDS)
def shop(request, tmp_path):
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    _shop(url)
    drafted = Drafted(url, [], tmp_path, "records")
    users.add(drafted.pipeline.db, "sato", "staff")
    yield url, drafted.pipeline, drafted.draft.text
    drafted.pipeline.close()


def _count(url: str, table: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()


def test_counting_keywords_are_drafted_in_each_tables_katakana_and_counters(shop):
    _, _, text = shop
    for said in ("アルバムは何枚", "アーティストは何人", "曲は何曲", "ジャンルは何種類", "ドローンは何件", "曲数"):
        assert said in text, said


@pytest.mark.anyio
@pytest.mark.parametrize(("question", "table"), [
    ("アルバムは何枚ありますか？", "albums"),
    ("アーティストは何人？", "artists"),
    ("曲は全部で何曲？", "tracks"),
    ("ジャンルは何種類ありますか", "genres"),
    ("ドローンは何件ありますか", "drones"),
    ("How many songs are there?", "tracks"),
])
async def test_a_table_named_in_english_is_counted_when_asked_in_japanese(shop, question, table):
    url, pipeline, _ = shop
    turn = await Agent(pipeline, OfflineProvider(pipeline)).ask(question, pipeline.user("sato"))
    assert [(c.name, dict(c.args)) for c in turn.calls] == [(table, {})]
    assert str(_count(url, table)) in turn.answer
