"""The SwitchBot simulator over real HTTP: the signature checked as the real API does, every command visible
in the status it reports, the service's error codes, and its state file."""

from __future__ import annotations

import json
import time

import httpx2
import pytest

from concierge.demo.home.simulator import running
from concierge.sources.http.switchbot import headers

LIVING, KITCHEN, ENTRANCE, TV, HUB = "6055F92A1B01", "6055F92A1B03", "6055F92A1B04", "02-202404011200-10000001", \
    "C0FFEE000001"


@pytest.fixture
def sim():
    with running() as simulator:
        yield simulator


def get(sim, path, **sign):
    return httpx2.get(sim.base_url + path, headers=sign.pop("with_headers", None)
                      or headers(sim.token, sim.secret, **sign), timeout=5)


def post(sim, device, command, parameter="default", **extra):
    body = {"command": command, "parameter": parameter, "commandType": "command", **extra}
    return httpx2.post(f"{sim.base_url}/v1.1/devices/{device}/commands", json=body,
                       headers=headers(sim.token, sim.secret), timeout=5)


def status(sim, device):
    answer = get(sim, f"/v1.1/devices/{device}/status").json()
    assert answer["statusCode"] == 100, answer
    return answer["body"]


def test_a_correctly_signed_request_lists_the_devices(sim):
    answer = get(sim, "/v1.1/devices")
    assert answer.status_code == 200
    data = answer.json()
    assert data["statusCode"] == 100 and data["message"] == "success"
    names = [d["deviceName"] for d in data["body"]["deviceList"]]
    assert {"リビングの電気", "寝室の電気", "Kitchen Light"} <= set(names)
    assert [r["deviceName"] for r in data["body"]["infraredRemoteList"]] == ["テレビ"]


@pytest.mark.parametrize("broken", ["wrong secret", "wrong token", "stale t", "future t", "t in seconds",
                                    "missing nonce", "missing sign", "missing t", "no headers"])
def test_a_badly_signed_request_is_401_unauthorized(sim, broken):
    sent = headers(sim.token, sim.secret)
    if broken == "wrong secret":
        sent = headers(sim.token, "not-the-secret")
    elif broken == "wrong token":
        sent = headers("not-the-token", sim.secret)
    elif broken == "stale t":
        sent = headers(sim.token, sim.secret, now=time.time() - 6 * 60)
    elif broken == "future t":
        sent = headers(sim.token, sim.secret, now=time.time() + 6 * 60)
    elif broken == "t in seconds":
        t, nonce = str(int(time.time())), "n"
        from concierge.sources.http.switchbot import sign
        sent = {**sent, "t": t, "nonce": nonce, "sign": sign(sim.token, sim.secret, t, nonce)}
    elif broken == "missing nonce":
        from concierge.sources.http.switchbot import sign
        sent = {**sent, "nonce": "", "sign": sign(sim.token, sim.secret, sent["t"], "")}
    elif broken == "no headers":
        sent = {}
    else:
        del sent[broken.removeprefix("missing ")]
    answer = get(sim, "/v1.1/devices", with_headers=sent or {"accept": "*/*"})
    assert answer.status_code == 401
    assert answer.json() == {"message": "Unauthorized"}
    assert sim.calls[-1].http_status == 401


def test_a_command_badly_signed_changes_nothing(sim):
    answer = httpx2.post(f"{sim.base_url}/v1.1/devices/{LIVING}/commands", timeout=5,
                         json={"command": "turnOff", "parameter": "default", "commandType": "command"},
                         headers=headers(sim.token, "not-the-secret"))
    assert answer.status_code == 401
    assert sim.device("リビングの電気")["power"] == "on"


def test_a_request_within_the_five_minute_window_is_accepted(sim):
    assert get(sim, "/v1.1/devices", now=time.time() - 4 * 60).json()["statusCode"] == 100


@pytest.mark.parametrize(("command", "parameter", "expect"), [
    ("turnOff", "default", {"power": "off"}),
    ("toggle", "default", {"power": "off"}),
    ("setBrightness", 50, {"brightness": 50}),
    ("setColor", "0:128:255", {"color": "0:128:255"}),
    ("setColorTemperature", 6500, {"colorTemperature": 6500}),
])
def test_every_bulb_command_shows_in_the_status(sim, command, parameter, expect):
    answer = post(sim, LIVING, command, parameter)
    assert answer.status_code == 200 and answer.json() == {"statusCode": 100, "body": {}, "message": "success"}
    assert status(sim, LIVING).items() >= expect.items()


def test_turn_on_after_off_shows_on(sim):
    post(sim, KITCHEN, "turnOff")
    assert status(sim, KITCHEN)["power"] == "off"
    post(sim, KITCHEN, "turnOn")
    assert status(sim, KITCHEN)["power"] == "on"


def test_every_tv_command_changes_what_the_simulator_holds(sim):
    steps = [("turnOn", "default", "power", "on"), ("SetChannel", 4, "channel", 4),
             ("channelAdd", "default", "channel", 5), ("channelSub", "default", "channel", 4),
             ("volumeAdd", "default", "volume", 21), ("volumeSub", "default", "volume", 20),
             ("turnOff", "default", "power", "off")]
    for command, parameter, field, value in steps:
        assert post(sim, TV, command, parameter).json()["statusCode"] == 100
        assert sim.device("テレビ")[field] == value, command
    # the real API keeps no state of an infrared remote
    assert get(sim, f"/v1.1/devices/{TV}/status").json() == {"statusCode": 190, "body": {}, "message": "wrong deviceId"}


@pytest.mark.parametrize(("device", "command", "parameter", "code"), [
    (LIVING, "setBrightness", 150, 190),
    (LIVING, "setColor", "300:0:0", 190),
    (TV, "SetChannel", 13, 190),
    (TV, "setBrightness", 50, 160),
    (LIVING, "fly", "default", 160),
    (ENTRANCE, "turnOn", "default", 161),
    (HUB, "turnOn", "default", 151),
    ("000000000BAD", "turnOn", "default", 152),
])
def test_errors_are_http_200_with_the_service_code(sim, device, command, parameter, code):
    before = sim.state()
    answer = post(sim, device, command, parameter)
    assert answer.status_code == 200
    data = answer.json()
    assert data["statusCode"] == code and data["body"] == {} and data["message"]
    assert sim.state() == before


def test_a_device_or_hub_taken_offline_answers_161_or_171(sim):
    sim.set_online("リビングの電気", False)
    assert post(sim, LIVING, "turnOff").json()["statusCode"] == 161
    assert get(sim, f"/v1.1/devices/{LIVING}/status").json()["statusCode"] == 161
    sim.set_online("リビングのハブ", False)
    assert post(sim, TV, "turnOn").json()["statusCode"] == 171
    sim.set_online("リビングの電気", True)
    assert post(sim, LIVING, "turnOff").json()["statusCode"] == 100


def test_a_body_that_is_not_json_is_190(sim):
    answer = httpx2.post(f"{sim.base_url}/v1.1/devices/{LIVING}/commands", content=b"command=turnOff", timeout=5,
                         headers={**headers(sim.token, sim.secret), "content-type": "text/plain"})
    assert answer.json()["statusCode"] == 190
    assert sim.device("リビングの電気")["power"] == "on"


def test_the_simulator_records_what_its_client_sent(sim):
    post(sim, LIVING, "setBrightness", 30)
    call = sim.calls[-1]
    assert (call.method, call.path, call.http_status, call.status_code) == (
        "POST", f"/v1.1/devices/{LIVING}/commands", 200, 100)
    assert call.body == {"command": "setBrightness", "parameter": 30, "commandType": "command"}


def test_unknown_paths_are_404(sim):
    assert get(sim, "/v1.0/devices").status_code == 404


def test_the_state_file_survives_a_restart_with_the_same_credentials(tmp_path):
    path = tmp_path / "home.json"
    with running(state=path) as first:
        post(first, LIVING, "turnOff")
        token, secret = first.token, first.secret
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert "SIMULATOR" in saved["simulator"]
    assert [b["power"] for b in saved["bulbs"] if b["name"] == "リビングの電気"] == ["off"]
    with running(state=path) as second:
        assert (second.token, second.secret) == (token, secret)
        assert status(second, LIVING)["power"] == "off"


def test_an_edited_state_file_is_read_again(tmp_path):
    path = tmp_path / "home.json"
    with running(state=path) as sim:
        saved = json.loads(path.read_text(encoding="utf-8"))
        for bulb in saved["bulbs"]:
            if bulb["name"] == "Kitchen Light":
                bulb["online"] = False
        path.write_text(json.dumps(saved, ensure_ascii=False), encoding="utf-8")
        assert post(sim, KITCHEN, "turnOff").json()["statusCode"] == 161
