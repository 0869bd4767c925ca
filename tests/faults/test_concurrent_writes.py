"""Many writers at once on PostgreSQL and MariaDB: 8 threads x 200 confirmed add_sale through one pipeline."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa

THREADS, SALES_EACH = 8, 200


@pytest.mark.parametrize("farm", [pytest.param("farm_pg", marks=pytest.mark.postgres),
                                  pytest.param("farm_mysql", marks=pytest.mark.mysql)])
def test_concurrent_confirmed_writes_each_land_once_with_distinct_numbers(farm, request):
    pipeline = request.getfixturevalue(farm)
    admin = pipeline.user("admin")
    with pipeline.db.read() as conn:
        before = conn.scalar(sa.text("SELECT COUNT(*) FROM farm_sales"))

    def writer(thread: int) -> list[str]:
        numbers = []
        for i in range(SALES_EACH):
            sale = {"code_customer": f"{thread + 1:04d}", "products": f"負荷試験 {thread}-{i}", "price": i,
                    "date_sales_str": "2025-05-14"}
            preview = pipeline.invoke("add_sale", sale, admin)
            done = pipeline.invoke("add_sale", sale, admin, confirmation=preview.confirmation_token)
            assert done.status == "ok", done.message
            numbers.append(done.rows[0]["code_sales"])
        return numbers

    with ThreadPoolExecutor(THREADS) as pool:
        returned = [n for numbers in pool.map(writer, range(THREADS)) for n in numbers]

    with pipeline.db.read() as conn:
        stored = list(conn.scalars(sa.text("SELECT sales_number FROM farm_sales WHERE products LIKE '負荷試験 %'")))
        total = conn.scalar(sa.text("SELECT COUNT(*) FROM farm_sales"))
        unused = conn.scalar(sa.text("SELECT COUNT(*) FROM concierge_confirmations WHERE used_at IS NULL"))
    assert total == before + THREADS * SALES_EACH
    assert len(set(stored)) == len(stored) == THREADS * SALES_EACH
    assert sorted(stored) == sorted(returned)
    assert unused == 0
