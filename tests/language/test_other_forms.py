"""Values of the data said in the other language (language/other_forms.py): countries by their CLDR names and
everyday forms, English words by their katakana; never a form two values share, never a value's own spelling."""

from __future__ import annotations

from concierge.language.other_forms import country_names, katakana_of, other_forms, spoken_forms


def test_a_country_is_said_by_its_names_in_both_languages():
    assert {"ドイツ", "Deutschland"} & country_names("Germany") == {"ドイツ"}
    assert {"United States", "アメリカ", "米国"} <= country_names("USA")
    assert "Germany" in country_names("ドイツ")
    assert country_names("Rock") == frozenset()


def test_english_values_of_a_few_words_have_their_katakana():
    assert katakana_of("Jazz") == "ジャズ"
    assert katakana_of("Seafood") == "シーフード"
    assert katakana_of("Suite") == "スイート"
    assert katakana_of("Sci Fi & Fantasy & More Words") is None  # too many words: said as written
    assert katakana_of("ドイツ") is None and katakana_of("SKU-00412") is None


def test_other_forms_map_what_is_said_to_the_value_as_written():
    forms = other_forms(["Germany", "Jazz", "USA", "Rock"])
    assert forms["ドイツ"] == "Germany" and forms["ジャズ"] == "Jazz" and forms["米国"] == "USA"
    assert "ユーザ" not in forms.values() and "ユーザ" not in forms  # capitals are an abbreviation, not a word
    assert "US" not in forms  # "us" is a word of any English request


def test_a_form_two_values_share_or_a_declared_synonym_names_neither():
    assert "ドイツ" not in other_forms(["Germany", "ドイツ"])  # the data writes both: the Japanese is its own value
    assert "ジャズ" not in other_forms(["Jazz"], {"ジャズ": "Jazz"})  # declared already


def test_a_snake_case_value_is_said_with_its_words_apart():
    assert {"no show", "no-show", "noshow", "no shows", "no-shows"} <= spoken_forms("no_show")
    assert "in progresss" not in spoken_forms("in_progress") and "in progress" in spoken_forms("in_progress")
    assert not any(f.endswith("eds") for f in spoken_forms("order_cancelled"))  # no plural of a participle
    assert spoken_forms("completed") == frozenset() and spoken_forms("SKU-00412") == frozenset()
    assert other_forms(["no_show", "completed"])["no shows"] == "no_show"
