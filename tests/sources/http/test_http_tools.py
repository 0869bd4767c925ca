"""Tools of `kind: http` sources, through the whole pipeline, against a local web API that checks the
wire format strictly (tests/sources/http/wire.py)."""

from __future__ import annotations

import socket
from dataclasses import replace
from pathlib import Path

import pytest
from tests.sources.http.wire import API_KEY, BEARER, SECRET, TOKEN, proxying, serving

from concierge.catalog.loader import parse_catalog
from concierge.errors import CatalogError, ResultCode
from concierge.pipeline import audit
from concierge.pipeline.pipeline import Pipeline
from concierge.sources.http.client import Client
from concierge.storage import users
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state

CATALOG = (Path(__file__).parent / "home.yaml").read_text(encoding="utf-8")


def env(base_url: str, **changes: str) -> dict[str, str]:
    return {"BOT_URL": base_url, "BOT_TOKEN": TOKEN, "BOT_SECRET": SECRET, "HA_TOKEN": BEARER,
            "API_KEY": API_KEY, **changes}


@pytest.fixture
def service():
    with serving() as running:
        yield running


def open_pipeline(tmp_path, variables: dict[str, str]) -> Pipeline:
    db = Database(f"sqlite:///{tmp_path / 'state.db'}")
    ensure_state(db)
    users.add(db, "mother", "family")
    users.add(db, "visitor", "guest")
    return Pipeline([parse_catalog(CATALOG, "home.yaml", variables)], db)


@pytest.fixture
def home(tmp_path, service):
    p = open_pipeline(tmp_path, env(service.base_url))
    yield p
    p.close()


def call(p: Pipeline, tool: str, args=None, who="mother", **kw):
    return p.invoke(tool, args or {}, p.user(who), **kw)


def test_switchbot_requests_are_signed_and_rows_come_from_both_lists(home, service):
    result = call(home, "list_devices")
    assert result.status == "ok"
    assert result.columns == ["name", "type", "remote"]
    assert [r["name"] for r in result.rows] == ["リビング", "寝室", "テレビ"]
    assert result.rows[2] == {"name": "テレビ", "type": None, "remote": "TV"}
    sent = service.requests[-1]["headers"]
    assert {"authorization", "t", "nonce", "sign", "content-type"} <= set(sent)  # lower-case on the wire


def test_each_request_is_signed_afresh(home, service):
    call(home, "list_devices")
    call(home, "list_devices")
    first, second = (r["headers"] for r in service.requests[-2:])
    assert first["nonce"] != second["nonce"] and first["sign"] != second["sign"]


def test_a_name_is_sent_as_its_id_and_the_object_becomes_one_row(home, service):
    result = call(home, "device_status", {"device": "リビング"})
    assert result.status == "ok" and result.rows == [{"power": "off", "brightness": 80}]
    assert service.requests[-1]["path"] == "/v1.1/devices/B01/status"
    assert result.args == {"device": "リビング"}


def test_body_values_keep_their_json_types(home, service):
    preview = call(home, "brightness", {"device": "リビング", "level": 50})
    assert preview.status == "confirm" and preview.preview == {"device": "リビング", "level": 50}
    assert all(r["method"] == "GET" for r in service.requests)  # nothing is sent before the yes
    done = call(home, "brightness", {"device": "リビング", "level": 50}, confirmation=preview.confirmation_token)
    assert done.status == "ok"
    assert service.requests[-1]["body"] == {"command": "setBrightness", "parameter": 50, "commandType": "command"}
    again = call(home, "brightness", {"device": "リビング", "level": 50}, confirmation=preview.confirmation_token)
    assert again.status == "refused" and again.code == ResultCode.CONFIRMATION_INVALID


def test_a_write_changes_the_device(home, service):
    assert call(home, "light_power", {"device": "リビング", "power": "turnOn"}).status == "ok"
    assert service.power == {"B01": "on"}


def test_refusals_list_the_names_read_from_the_service(home):
    result = call(home, "light_power", {"device": "台所", "power": "turnOn"})
    assert result.status == "refused" and result.valid == {"values": ["リビング", "寝室"]}
    assert "リビング" in (result.message_ja or "")


def test_a_guest_may_read_but_not_switch(home, service):
    assert call(home, "device_status", {"device": "寝室"}, who="visitor").status == "ok"
    before = len(service.requests)
    result = call(home, "light_power", {"device": "リビング", "power": "turnOff"}, who="visitor")
    assert result.status == "refused" and result.code == ResultCode.NOT_PERMITTED
    assert len(service.requests) == before


@pytest.mark.parametrize(("device", "expected_ja", "expected_en"), [
    ("寝室", "オフライン", "offline"),  # statusCode 161
])
def test_service_codes_become_messages_in_both_languages(home, device, expected_ja, expected_en):
    result = call(home, "light_power", {"device": device, "power": "turnOn"})
    assert result.status == "error"
    assert expected_ja in (result.message_ja or "") and expected_en in (result.message or "")


def test_an_unsupported_command_is_its_own_message(home):
    result = call(home, "command", {"device": "リビング", "name": "fly"})  # statusCode 160
    assert result.status == "error" and result.message_ja == "その機器はその操作に対応していません。"
    assert result.message == "The device does not support that command."


def test_an_entry_of_the_other_list_is_not_a_valid_name(home):
    assert call(home, "device_status", {"device": "テレビ"}).status == "refused"  # not in deviceList


def test_a_device_gone_since_the_listing_is_not_found(home, service):
    call(home, "device_status", {"device": "寝室"})
    del service.devices["B02"]  # the cached listing still has it; the service says 152
    result = call(home, "device_status", {"device": "寝室"})
    assert result.status == "error" and result.code == ResultCode.NOT_FOUND
    assert result.message_ja == "機器が見つかりません。"


def test_a_wrong_secret_gives_the_401_message(tmp_path, service):
    p = open_pipeline(tmp_path, env(service.base_url, BOT_SECRET="wrong-secret"))
    result = call(p, "list_devices")
    assert result.status == "error" and "トークンかシークレット" in (result.message_ja or "")
    assert "wrong-secret" not in str(result.to_json())
    listing = call(p, "device_status", {"device": "リビング"})  # the enum's listing fails the same way
    assert listing.status == "error" and "refused" in (listing.message or "")
    p.close()


def test_enum_names_are_read_again_after_the_ttl(home, service):
    clock = [1000.0]
    home.http.caller.enums.clock = lambda: clock[0]
    call(home, "device_status", {"device": "リビング"})
    listed = service.listings
    service.devices["B03"] = "台所"
    assert call(home, "device_status", {"device": "台所"}).status == "refused"  # still cached
    assert service.listings == listed
    clock[0] += 61
    assert call(home, "device_status", {"device": "台所"}).status == "ok"
    assert service.listings == listed + 1


def test_repeat_sends_the_request_that_many_times(home, service):
    call(home, "device_status", {"device": "リビング"})  # the listing is read
    before = len(service.requests)
    assert call(home, "blink", {"device": "リビング", "times": 3}).status == "ok"
    assert [r["method"] for r in service.requests[before:]] == ["POST", "POST", "POST"]
    assert call(home, "blink", {"device": "リビング", "times": 0}).status == "ok"
    assert len(service.requests) == before + 3


def test_bearer_auth_and_rows_at_the_root(home, service):
    result = call(home, "ha_states")
    assert result.rows == [{"entity": "light.living", "name": "Living", "state": "on"}]
    assert service.requests[-1]["headers"]["Authorization"] == f"Bearer {BEARER}"


def test_path_parameters_are_url_encoded_and_404_maps_to_not_found(home, service):
    result = call(home, "ha_state", {"entity": "light.x/../../admin?a=1"})
    assert service.requests[-1]["path"] == "/api/states/light.x%2F..%2F..%2Fadmin%3Fa%3D1"
    assert result.status == "error" and result.code == ResultCode.NOT_FOUND


def test_header_auth_and_query_items_leave_out_null_parameters(home, service):
    result = call(home, "keyed_items", {"limit": 5})
    assert result.rows == [{"n": 1}]
    sent = service.requests[-1]
    assert sent["path"] == "/keyed/items?limit=5&fixed=1"
    assert sent["headers"]["X-API-Key"] == API_KEY and sent["headers"]["x-trace"] == "concierge"


def test_a_timeout_is_a_clear_error_and_the_token_stays_used(home, service):
    preview = call(home, "brightness", {"device": "リビング", "level": 20})
    service.delay = 1.5  # the source waits 1 s
    result = call(home, "brightness", {"device": "リビング", "level": 20}, confirmation=preview.confirmation_token)
    assert result.status == "error"
    assert "did not answer within 1 s" in (result.message or "") and "状態を確かめて" in (result.message_ja or "")
    assert "may have reached the service" in (result.message or "") and "届いた可能性" in (result.message_ja or "")
    service.delay = 0
    again = call(home, "brightness", {"device": "リビング", "level": 20}, confirmation=preview.confirmation_token)
    assert again.status == "refused" and again.code == ResultCode.CONFIRMATION_INVALID  # it may have been done


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_refused_sends_nothing_and_says_what_to_check(tmp_path):
    p = open_pipeline(tmp_path, env(f"http://127.0.0.1:{_closed_port()}"))
    result = call(p, "list_devices")
    assert result.status == "error"
    assert "connection was refused" in (result.message or "") and "Nothing was sent" in (result.message or "")
    assert "接続できませんでした" in (result.message_ja or "")
    p.close()


def test_a_confirmed_command_that_could_not_be_sent_keeps_its_token_for_when_the_service_is_back(home, service):
    args = {"device": "リビング", "level": 20}
    preview = call(home, "brightness", args)
    assert preview.status == "confirm" and (preview.message or "").startswith("Nothing is sent yet.")
    clients = home.http.caller._clients
    working = clients[("hometest", "bot")]
    clients[("hometest", "bot")] = Client(replace(working.source, base_url=f"http://127.0.0.1:{_closed_port()}"))
    failed = call(home, "brightness", args, confirmation=preview.confirmation_token)
    assert failed.status == "error" and "Nothing was sent" in (failed.message or "")
    assert audit.latest(home.state, 1)[0]["decision"] == "error"  # settled, not left pending
    clients[("hometest", "bot")] = working
    done = call(home, "brightness", args, confirmation=preview.confirmation_token)
    assert done.status == "ok", done.message
    assert service.requests[-1]["path"] == "/v1.1/devices/B01/commands"
    again = call(home, "brightness", args, confirmation=preview.confirmation_token)
    assert again.code == ResultCode.CONFIRMATION_INVALID  # once


def test_the_tools_work_through_the_proxy_the_environment_sets(tmp_path, service, monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    with proxying() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        p = open_pipeline(tmp_path, env(service.base_url))
        assert call(p, "device_status", {"device": "リビング"}).rows == [{"power": "off", "brightness": 80}]
        assert call(p, "light_power", {"device": "リビング", "power": "turnOn"}).status == "ok"  # signed, through it
        p.close()
    assert proxy.seen == [f"{r['method']} {service.base_url}{r['path']}" for r in service.requests]  # all of them
    assert proxy.seen[-1] == f"POST {service.base_url}/v1.1/devices/B01/commands"
    assert service.power == {"B01": "on"}


def test_the_audit_has_every_call_and_no_secret(tmp_path, service):
    p = open_pipeline(tmp_path, env(service.base_url, BOT_SECRET="wrong-secret"))
    call(p, "list_devices")
    call(p, "light_power", {"device": "リビング", "power": "turnOn"})
    lines = audit.latest(p.state, 5)
    assert [line["decision"] for line in lines][:2] in (["error", "error"],)
    text = str(lines)
    assert TOKEN not in text and "wrong-secret" not in text
    p.close()


def test_no_secret_in_results_or_the_catalog_model(home, service):
    result = call(home, "list_devices")
    dumped = str(result.to_json()) + home.catalogs[0].spec.model_dump_json() + repr(home.catalogs[0])
    assert TOKEN not in dumped and SECRET not in dumped and BEARER not in dumped
    assert "${BOT_TOKEN}" in home.catalogs[0].spec.model_dump_json()


# --- the loader --------------------------------------------------------------------------------------
def test_an_unset_variable_is_a_load_error_naming_it():
    with pytest.raises(CatalogError) as err:
        parse_catalog(CATALOG, "home.yaml", {"BOT_URL": "http://127.0.0.1:1"})
    text = str(err.value)
    assert "sources.bot.auth.token: the environment variable BOT_TOKEN is not set" in text
    assert "BOT_SECRET" in text and "HA_TOKEN" in text and "API_KEY" in text


def test_a_default_is_used_when_the_variable_is_unset():
    text = CATALOG.replace("${BOT_URL}", "${NOT_SET_URL:-https://api.example.com}")
    catalog = parse_catalog(text, "home.yaml", env("unused"))
    assert catalog.sources["bot"].base_url == "https://api.example.com"


BROKEN = """
catalog: broken
description: {ja: 壊れた, en: broken}
roles: {family: {}}
sources:
  bot: {kind: http, base_url: "http://x", auth: {kind: bearer, token: literal-secret}, colour: red}
tools:
  t1:
    source: bot
    description: {ja: a, en: a}
    roles: [family]
    params:
      device: {type: string, description: {ja: 機器, en: device}}
      unused: {type: integer, description: {ja: 未使用, en: unused}}
    http: {method: POST, path: "/d/{device}/{missing}", body: {c: "ch {device}"}}
  t2:
    source: nowhere
    description: {ja: b, en: b}
    roles: [family]
    http: {path: /x}
"""


def test_the_loader_reports_every_problem_at_once():
    with pytest.raises(CatalogError) as err:
        parse_catalog(BROKEN, "broken.yaml", {})
    assert "sources.bot.colour" in str(err.value)  # unknown key
    fixed = BROKEN.replace(", colour: red", "")
    with pytest.raises(CatalogError) as err:
        parse_catalog(fixed, "broken.yaml", {})
    keys = {(p.key, p.message.split(";")[0]) for p in err.value.problems}
    expected = {
        ("tools.t1.http.method", "a read tool only GETs"),
        ("tools.t1.http.path", "{missing} is not a declared parameter"),
        ("tools.t1.http.path", "{device}: a path parameter is required or has a default"),
        ("tools.t1.http.body.c", "inside longer text a parameter is {name:quoted} (a double-quoted string, "
                                 '\\ and " escaped) or {name:number} (an integer)'),
        ("tools.t1.params.unused", "declared but never used in the request"),
        ("tools.t2.source", "unknown source 'nowhere'"),
        ("sources.bot.auth.token", "a secret comes from the environment: write ${NAME} (no literal value, no default)"),
    }
    assert expected <= keys, sorted(keys)
