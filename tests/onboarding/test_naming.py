"""Japanese nouns from comments: how a table is kept is not what staff call it."""

import pytest

from concierge.onboarding.naming import Noun, japanese_forms


@pytest.mark.parametrize(("comment", "forms"), [
    ("商品マスタ", ("商品マスタ", "商品")),
    ("顧客マスター。住所を含む", ("顧客マスター", "顧客")),
    ("売上明細", ("売上明細", "売上")),
    ("受注テーブル", ("受注テーブル", "受注")),
    ("在庫", ("在庫",)),
    ("表", ("表",)),  # nothing would be left
])
def test_a_storage_word_at_the_end_of_a_comment_is_dropped_as_a_second_form(comment, forms):
    assert Noun.of("m_shohin", comment).ja_forms == forms
    assert japanese_forms(forms[0]) == forms
