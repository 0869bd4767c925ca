"""Two `concierge serve` processes behind nginx, both reading on a PostgreSQL streaming replica
(`replica_database`): a write confirmed on one process is read by the conversation's next question on the other,
though the replica has not replayed it; other conversations keep reading on the replica (conftest.py)."""

from __future__ import annotations

import httpx2
from test_replicas import FOLLOW_UP, SALE_TEXT, on, sign_in
from web_fakes import events

SALES_OF_0016 = "0016のお客様の今月の販売データは？"  # the customer of SALE_TEXT, named: any conversation can ask


def asked(http: httpx2.Client, replicas, process: str, text: str, session: str | None = None) -> dict:
    """The turn of one question sent to `process`, and checked to be answered there."""
    res = http.post("/api/chat", json={"text": text, "session_id": session}, headers=on(process))
    assert replicas.which(res) == process
    return events(res)[-1][1]["turn"]


def test_a_write_confirmed_on_one_process_is_read_by_the_conversation_on_the_other(
        read_replica, replicas_reading_a_replica):
    pair, _replica_url = read_replica
    replicas, on_replica = replicas_reading_a_replica, f"read from replica {pair.replica_address}"
    with httpx2.Client(base_url=replicas.url, timeout=60) as http:
        sign_in(http, "admin", "a")
        [before] = asked(http, replicas, "b", SALES_OF_0016)["calls"]
        assert before["read_from"] == on_replica, before

        pair.pause_replay()
        try:
            turn = asked(http, replicas, "a", SALE_TEXT)
            assert turn["pending"]["tool"] == "add_sale", turn
            confirmed = http.post(f"/api/sessions/{turn['session_id']}/confirm", headers=on("a"))
            assert [d["status"] for name, d in events(confirmed) if name == "tool_end"] == ["ok"]

            follow = asked(http, replicas, "b", FOLLOW_UP, turn["session_id"])
            [call] = follow["calls"]
            assert call["row_count"] == before["row_count"] + 1 and "キャベツ2玉" in follow["answer"], follow
            assert call["read_from"] == (f"read from the primary: replica {pair.replica_address} has not replayed "
                                         "this conversation's last write yet")

            [elsewhere] = asked(http, replicas, "b", SALES_OF_0016)["calls"]  # another conversation: the replica
            assert (elsewhere["read_from"], elsewhere["row_count"]) == (on_replica, before["row_count"])
        finally:
            pair.resume_replay()
        pair.wait_replayed()
        [again] = asked(http, replicas, "a", FOLLOW_UP, turn["session_id"])["calls"]
        assert (again["read_from"], again["row_count"]) == (on_replica, before["row_count"] + 1)
