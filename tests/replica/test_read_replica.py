"""Read tools on a PostgreSQL streaming replica; writes, and the reads of the conversation that wrote, on the
primary; a replica that is down or lags is passed over for the primary, and the trace says so (conftest.py
starts the primary and the replica)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from pg_replica import Streaming

from concierge.cli.config_cmd import shown_values
from concierge.demo.bootstrap import open_pipeline
from concierge.errors import ConfigError
from concierge.pipeline import audit
from concierge.pipeline.access import Session
from concierge.pipeline.pipeline import Pipeline
from concierge.settings import load_settings
from concierge.storage.replicas import DOWN_FOR_S, ReplicaConfig

DAY = "2025-05-13"  # the farm clock's day before yesterday


@contextmanager
def replicated(primary: str, *replicas: str, max_lag_s: float = 60) -> Iterator[Pipeline]:
    pipeline = open_pipeline(["farm"], primary, replicas=ReplicaConfig(replicas, max_lag_s))
    try:
        yield pipeline
    finally:
        pipeline.close()


def sell(pipeline: Pipeline, products: str, conversation: str) -> None:
    """A sale to customer 0016, previewed and confirmed in `conversation`."""
    admin, session = pipeline.user("admin"), Session(conversation)
    args = {"code_customer": "0016", "products": products, "price": 1500, "date_sales_str": DAY}
    preview = pipeline.invoke("add_sale", args, admin, session=session)
    assert preview.status == "confirm", preview
    done = pipeline.invoke("add_sale", args, admin, session=session, confirmation=preview.confirmation_token)
    assert done.ok, done


def sales_on_the_day(pipeline: Pipeline, conversation: str) -> tuple[list[str], str | None]:
    """The products of customer 0016's sales on DAY, as a read in `conversation` finds them, and its trace line."""
    result = pipeline.invoke("get_sales", {"code_customer": "0016", "date_sales_begin_str": DAY,
                                           "date_sales_end_str": DAY}, pipeline.user("admin"),
                             session=Session(conversation))
    assert result.ok, result
    return [row["products"] for row in result.any_rows()], result.read_from


def test_a_read_runs_on_the_replica_and_the_trace_and_the_audit_say_so(streaming, farm_on_primary):
    with replicated(farm_on_primary, streaming.replica.url("farm")) as pipeline:
        _products, said = sales_on_the_day(pipeline, "reader")
        assert said == f"read from replica {streaming.replica_address}"
        assert audit.latest(pipeline.state, 1)[0]["message"] == said


def test_the_conversation_that_wrote_reads_its_write_while_the_replica_has_not_replayed_it(
        replica_back: Streaming, farm_on_primary):
    streaming = replica_back
    replica = streaming.replica.url("farm")
    with replicated(farm_on_primary, replica) as pipeline:
        streaming.pause_replay()
        sell(pipeline, "白菜3玉", "writer")

        products, said = sales_on_the_day(pipeline, "someone else")
        assert said == f"read from replica {streaming.replica_address}"
        assert "白菜3玉" not in products  # the replica has not replayed the write: this read is routed there

        products, said = sales_on_the_day(pipeline, "writer")
        assert "白菜3玉" in products, said
        assert said == (f"read from the primary: replica {streaming.replica_address} has not replayed this "
                        "conversation's last write yet")
        with replicated(farm_on_primary, replica) as other_process:  # the position is in the shared state
            assert sales_on_the_day(other_process, "writer") == (products, said)

        streaming.resume_replay()
        streaming.wait_replayed()
        products, said = sales_on_the_day(pipeline, "writer")
        assert "白菜3玉" in products and said == f"read from replica {streaming.replica_address}"


def test_a_replica_lagging_beyond_the_setting_is_passed_over_until_it_catches_up(replica_back, farm_on_primary):
    streaming = replica_back
    with replicated(farm_on_primary, streaming.replica.url("farm"), max_lag_s=1) as pipeline:
        assert sales_on_the_day(pipeline, "reader")[1] == f"read from replica {streaming.replica_address}"
        streaming.pause_replay()
        streaming.primary.execute("INSERT INTO farm_sales (sales_number, customer_code, sale_date, products, price) "
                                  f"VALUES ('S-LAG-1', '0016', '{DAY}', 'ネギ5本', 500)", "farm")
        lagging = f"read from the primary: replica {streaming.replica_address} lags"
        products, said = until(lambda: sales_on_the_day(pipeline, "reader"),
                               lambda found: (found[1] or "").startswith(lagging), within=10)
        assert said is not None and said.endswith("s behind (replica_max_lag_s = 1)"), said
        assert "ネギ5本" in products

        streaming.resume_replay()
        products, said = until(lambda: sales_on_the_day(pipeline, "reader"),
                               lambda found: found[1] == f"read from replica {streaming.replica_address}", within=10)
        assert "ネギ5本" in products


def test_a_replica_stopped_under_load_leaves_every_answer_to_the_primary_then_serves_again(
        replica_back, farm_on_primary):
    streaming = replica_back
    with replicated(farm_on_primary, streaming.replica.url("farm")) as pipeline:
        said: list[str | None] = []
        failures: list[BaseException] = []
        stop = threading.Event()

        def load() -> None:
            while not stop.is_set():
                try:
                    said.append(sales_on_the_day(pipeline, "load")[1])
                except BaseException as err:  # a failed turn is what this test looks for
                    failures.append(err)

        workers = [threading.Thread(target=load) for _ in range(4)]
        for worker in workers:
            worker.start()
        time.sleep(0.5)
        streaming.replica.stop("immediate")
        stopped_at = len(said)
        time.sleep(1.0)
        stop.set()
        for worker in workers:
            worker.join(timeout=30)

        assert failures == []
        on_replica = f"read from replica {streaming.replica_address}"
        assert on_replica in said[:stopped_at]
        after = set(said[stopped_at + len(workers):])  # the reads begun once the replica was stopped
        assert after and after <= {f"read from the primary: replica {streaming.replica_address} is unreachable",
                                   f"read from the primary: replica {streaming.replica_address} went down during "
                                   "the read"}, after

        streaming.replica.start()
        until(lambda: sales_on_the_day(pipeline, "load")[1], lambda found: found == on_replica,
              within=DOWN_FOR_S + 10)


def test_a_replica_that_does_not_answer_is_remembered_and_the_next_healthy_one_is_read(
        streaming, farm_on_primary):
    with socket.socket() as silent:  # accepts connections, never answers: only the connect timeout ends a try
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        silent_url = f"postgresql://postgres@127.0.0.1:{silent.getsockname()[1]}/farm"
        with replicated(farm_on_primary, silent_url, streaming.replica.url("farm")) as pipeline:
            assert sales_on_the_day(pipeline, "reader")[1] == f"read from replica {streaming.replica_address}"
            started = time.monotonic()
            for _ in range(10):
                assert sales_on_the_day(pipeline, "reader")[1] == f"read from replica {streaming.replica_address}"
            assert time.monotonic() - started < 1.5  # no read waited for the silent one again


def test_healthy_replicas_are_read_in_turn(streaming, farm_on_primary):
    port = streaming.replica.port
    by_name = f"postgresql://postgres@localhost:{port}/farm"
    with replicated(farm_on_primary, streaming.replica.url("farm"), by_name) as pipeline:
        said = [sales_on_the_day(pipeline, "reader")[1] for _ in range(4)]
        assert said == [f"read from replica 127.0.0.1:{port}", f"read from replica localhost:{port}"] * 2


def test_replica_database_is_refused_where_the_database_is_sqlite_and_shown_without_its_password(tmp_path):
    replica = "postgresql://reader:s3cret@replica.example.com/shop"
    with pytest.raises(ConfigError, match="read replicas need the database on PostgreSQL"):
        load_settings(environ={"CONCIERGE_DATABASE": f"sqlite:///{tmp_path / 'shop.db'}",
                               "CONCIERGE_REPLICA_DATABASE": replica}, cwd=tmp_path)
    with pytest.raises(ConfigError, match="SQLite has no replicas"):
        open_pipeline(["farm"], f"sqlite:///{tmp_path / 'shop.db'}", replicas=ReplicaConfig((replica,)))
    settings = load_settings(environ={"CONCIERGE_DATABASE": "postgresql://app@primary.example.com/shop",
                                      "CONCIERGE_REPLICA_DATABASE": f"{replica}, postgresql://reader@r2/shop",
                                      "CONCIERGE_REPLICA_MAX_LAG_S": "2.5"}, cwd=tmp_path)
    assert settings.replica_database == (replica, "postgresql://reader@r2/shop")
    assert settings.replica_max_lag_s == 2.5
    assert shown_values(settings)["replica_database"] == ["postgresql://reader:***@replica.example.com/shop",
                                                          "postgresql://reader@r2/shop"]


def until(get, done, *, within: float):
    """`get()` again until `done` holds of what it returned (which is returned); the test fails after `within` s."""
    deadline = time.monotonic() + within
    while True:
        found = get()
        if done(found):
            return found
        assert time.monotonic() < deadline, f"still {found!r} after {within} s"
        time.sleep(0.2)
