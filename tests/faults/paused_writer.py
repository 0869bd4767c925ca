"""A process that confirms one add_sale and freezes between its INSERT and its COMMIT.

    python paused_writer.py DATABASE_URL USER ARGS_JSON TOKEN

It prints ``inserted`` once the INSERT has run inside the open transaction,
then waits to be killed (test_killed_writer.py sends SIGKILL). The pause is a
listener on this process's own engine: the product's code is not changed.
"""

from __future__ import annotations

import json
import sys
import time

from sqlalchemy import event

from concierge.demo.bootstrap import open_pipeline


def main() -> None:
    url, user, args, token = sys.argv[1:5]
    pipeline = open_pipeline(["farm"], url)

    @event.listens_for(pipeline.db.engine, "after_cursor_execute")
    def _freeze(_conn, _cursor, statement, *_):
        if statement.lstrip().upper().startswith("INSERT INTO FARM_SALES"):
            print("inserted", flush=True)
            time.sleep(120)

    pipeline.invoke("add_sale", json.loads(args), pipeline.user(user), confirmation=token)
    print("committed", flush=True)


if __name__ == "__main__":
    main()
