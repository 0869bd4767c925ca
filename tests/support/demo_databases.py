"""Demo businesses installed into a database a test made: the one way a test puts demo data in place."""

from __future__ import annotations

from concierge import demo
from concierge.storage.database import Database


def with_demos(url: str, *names: str) -> str:
    """Install the demos `names` (tables, data, rollups) into the database at `url`; returns `url`."""
    database = Database(url)
    try:
        for name in names:
            demo.install(database, name)
    finally:
        database.dispose()
    return url
