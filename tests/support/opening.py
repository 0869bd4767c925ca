"""What a person reads when concierge cannot open a database: one line, no traceback."""

from __future__ import annotations

import pytest

from concierge.errors import ConciergeError
from concierge.storage.database import Database


def opening(url: str) -> str:
    """The message of opening `url` and reading from it."""
    with pytest.raises(ConciergeError) as err:
        db = Database(url)
        try:
            with db.read() as conn:
                conn.exec_driver_sql("SELECT 1")
        finally:
            db.dispose()
    message = str(err.value)
    assert "\n" not in message and "Traceback" not in message
    return message
