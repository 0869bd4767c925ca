"""The client of an http source (`concierge.sources.http.client`) as a person meets it: through a proxy the
environment sets, and when the service is down, slow or drops the connection, with the message in both
languages saying whether the request may have reached the service (`sent`)."""

from __future__ import annotations

import socket

import pytest
from tests.sources.http.wire import proxying, scripted

from concierge.catalog.secrets import ResolvedSource
from concierge.sources.http.client import Client, ServiceError
from concierge.sources.http.request import Built

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
READ, WRITE = Built("GET", "/items", None), Built("POST", "/items", b'{"n":1}')


@pytest.fixture(autouse=True)
def no_proxy_settings(monkeypatch):
    """Each test sets the proxy variables it means; none of the machine's (either case) applies."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def client(base_url: str, timeout: float = 5) -> Client:
    return Client(ResolvedSource("svc", base_url, timeout, headers={}, auth=None))


def failure(c: Client, built: Built, *, read: bool = False) -> ServiceError:
    with pytest.raises(ServiceError) as err:
        c.send(built, read=read)
    return err.value


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_requests_go_through_the_proxy_the_environment_sets(monkeypatch):
    with scripted("answer") as service, proxying() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)  # no NO_PROXY: httpx proxies loopback addresses too
        c = client(service.base_url)
        assert c.send(READ).doc == {"ok": True}
        assert c.send(WRITE).doc == {"ok": True}
        c.close()
    assert proxy.seen == [f"GET {service.base_url}/items", f"POST {service.base_url}/items"]
    assert service.seen == ["GET /items", "POST /items"]


def test_no_proxy_sends_the_listed_hosts_directly(monkeypatch):
    with scripted("answer") as service, proxying() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("no_proxy", "localhost,127.0.0.1,::1")
        c = client(service.base_url)
        assert c.send(READ).doc == {"ok": True}
        c.close()
    assert proxy.seen == [] and service.seen == ["GET /items"]


def test_a_proxy_that_cannot_be_reached_is_named_and_nothing_was_sent(monkeypatch):
    port = closed_port()
    with scripted("answer") as service:
        monkeypatch.setenv("HTTP_PROXY", f"http://user:hunter2@127.0.0.1:{port}")
        err = failure(client(service.base_url), WRITE)
    assert not err.sent and service.seen == []
    assert "through the proxy" in str(err) and "NO_PROXY" in str(err) and "Nothing was sent" in str(err)
    assert "プロキシ" in err.message_ja and "何も送っていません" in err.message_ja
    shown = str(err) + err.message_ja
    assert f":{port}" not in shown and "hunter2" not in shown  # the proxy's address and password are not shown


def test_a_refused_connection_sent_nothing():
    base_url = f"http://127.0.0.1:{closed_port()}"
    err = failure(client(base_url), WRITE)
    assert not err.sent
    assert str(err) == (f"Could not connect to svc at {base_url}: the connection was refused. Is the service "
                        "running, and is its base_url right? Nothing was sent.")
    assert err.message_ja == (f"svc（{base_url}）に接続できませんでした（接続を拒否されました）。"
                              "サービスが動いているか、base_url が正しいか確かめてください。何も送っていません。")


@pytest.mark.parametrize("built", [READ, WRITE], ids=["read", "write"])
def test_a_timeout_once_sent_says_the_request_may_have_reached_the_service(built):
    with scripted("slow", delay=1.0) as service:
        err = failure(client(service.base_url, timeout=0.3), built)
    assert err.sent and service.seen == [f"{built.method} /items"]
    assert str(err) == (f"svc at {service.base_url} did not answer within 0.3 s. The request may have reached "
                        "the service: check the device's status before trying again.")
    assert err.message_ja == (f"svc（{service.base_url}）から0.3秒以内に応答がありませんでした。"
                              "依頼はサービスに届いた可能性があります。もう一度試す前に機器の状態を確かめてください。")


def test_a_read_that_meets_a_dropped_connection_is_sent_once_more():
    with scripted("answer", "drop", "answer") as service:
        c = client(service.base_url)
        assert c.send(READ, read=True).doc == {"ok": True}
        assert c.send(READ, read=True).doc == {"ok": True}  # dropped on the kept-alive connection, then asked again
        c.close()
    assert service.seen == ["GET /items"] * 3 and service.connections == 2


def test_a_write_that_meets_a_dropped_connection_is_never_sent_twice():
    with scripted("answer", "drop", "answer") as service:
        c = client(service.base_url)
        c.send(READ, read=True)
        err = failure(c, WRITE)
        c.close()
    assert err.sent and service.seen == ["GET /items", "POST /items"]
    assert "closed the connection without an answer" in str(err) and "接続を切りました" in err.message_ja


def test_a_closed_client_opens_new_connections():
    with scripted("answer") as service:
        c = client(service.base_url)
        c.send(READ)
        c.close()
        assert c.send(READ).doc == {"ok": True}
        c.close()
    assert service.connections == 2
