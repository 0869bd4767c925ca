"""What each SwitchBot call does to the simulated home, without HTTP (concierge.demo.home.devices)."""

from __future__ import annotations

import pytest

from concierge.demo.home.devices import (
    default_home,
    device_list,
    device_status,
    home_from_json,
    home_to_json,
    run_command,
)
from concierge.sources.http.switchbot import StatusCode

LIVING, TV = "6055F92A1B01", "02-202404011200-10000001"


def command(name, parameter="default"):
    return {"command": name, "parameter": parameter, "commandType": "command"}


@pytest.mark.parametrize(("name", "parameter", "field", "value"), [
    ("turnOff", "default", "power", "off"),
    ("turnOn", "default", "power", "on"),
    ("toggle", "default", "power", "off"),  # the living-room light starts on
    ("setBrightness", 50, "brightness", 50),
    ("setBrightness", "1", "brightness", 1),
    ("setBrightness", 100, "brightness", 100),
    ("setColor", "255:0:10", "color", "255:0:10"),
    ("setColorTemperature", 2700, "color_temperature", 2700),
    ("setColorTemperature", "6500", "color_temperature", 6500),
])
def test_bulb_commands_change_the_bulb(name, parameter, field, value):
    home = default_home()
    reply = run_command(home, LIVING, command(name, parameter))
    assert reply.code == StatusCode.SUCCESS and reply.to_json()["message"] == "success"
    bulb = home.find(LIVING)
    assert getattr(bulb, field) == value
    assert reply.change.startswith("リビングの電気: ")


@pytest.mark.parametrize(("name", "parameter", "field", "value"), [
    ("turnOn", "default", "power", "on"),
    ("SetChannel", 4, "channel", 4),
    ("SetChannel", "12", "channel", 12),
    ("channelAdd", "default", "channel", 2),
    ("channelSub", "default", "channel", 12),  # from 1 it wraps round
    ("volumeAdd", "default", "volume", 21),
    ("volumeSub", "default", "volume", 19),
])
def test_tv_commands_change_the_tv(name, parameter, field, value):
    home = default_home()
    assert run_command(home, TV, command(name, parameter)).code == StatusCode.SUCCESS
    assert getattr(home.find(TV), field) == value


@pytest.mark.parametrize(("device", "body", "code"), [
    (LIVING, command("setBrightness", 0), StatusCode.BAD_FORMAT),
    (LIVING, command("setBrightness", 150), StatusCode.BAD_FORMAT),
    (LIVING, command("setBrightness", True), StatusCode.BAD_FORMAT),
    (LIVING, command("setBrightness", "half"), StatusCode.BAD_FORMAT),
    (LIVING, command("setColor", "256:0:0"), StatusCode.BAD_FORMAT),
    (LIVING, command("setColor", "red"), StatusCode.BAD_FORMAT),
    (LIVING, command("setColorTemperature", 2000), StatusCode.BAD_FORMAT),
    (TV, command("SetChannel", 13), StatusCode.BAD_FORMAT),
    (TV, command("SetChannel", 0), StatusCode.BAD_FORMAT),
    (LIVING, {"parameter": "default"}, StatusCode.BAD_FORMAT),
    (LIVING, ["turnOff"], StatusCode.BAD_FORMAT),
    (LIVING, {**command("turnOff"), "commandType": "macro"}, StatusCode.BAD_FORMAT),
    (LIVING, command("SetChannel", 4), StatusCode.COMMAND_NOT_SUPPORTED),
    (TV, command("setBrightness", 50), StatusCode.COMMAND_NOT_SUPPORTED),
    (TV, command("setChannel", 4), StatusCode.COMMAND_NOT_SUPPORTED),  # the API's name has a capital S
    (TV, {**command("Netflix"), "commandType": "customize"}, StatusCode.COMMAND_NOT_SUPPORTED),
    ("6055F92A1B04", command("turnOn"), StatusCode.DEVICE_OFFLINE),
    ("C0FFEE000001", command("turnOn"), StatusCode.WRONG_DEVICE_TYPE),
    ("NO-SUCH-DEVICE", command("turnOn"), StatusCode.DEVICE_NOT_FOUND),
])
def test_refused_commands_answer_their_code_and_change_nothing(device, body, code):
    home = default_home()
    before = home_to_json(home)
    reply = run_command(home, device, body)
    assert reply.code == code
    assert reply.body == {} and reply.message and not reply.change
    assert home_to_json(home) == before


def test_a_remote_behind_an_offline_hub_answers_171():
    home = default_home()
    home.hubs[0].online = False
    assert run_command(home, TV, command("turnOn")).code == StatusCode.HUB_OFFLINE
    assert home.find(TV).power == "off"


def test_status_of_bulbs_hubs_remotes_and_unknown_ids():
    home = default_home()
    body = device_status(home, LIVING).body
    assert body == {"deviceId": LIVING, "deviceType": "Color Bulb", "hubDeviceId": "000000000000", "power": "on",
                    "brightness": 80, "color": "255:255:255", "colorTemperature": 4000}
    assert device_status(home, "C0FFEE000001").body["deviceType"] == "Hub Mini"
    assert device_status(home, TV).to_json() == {"statusCode": 190, "body": {}, "message": "wrong deviceId"}
    assert device_status(home, "6055F92A1B04").code == StatusCode.DEVICE_OFFLINE
    assert device_status(home, "nope").code == StatusCode.DEVICE_NOT_FOUND


def test_the_device_list_has_lights_hub_and_tv_in_the_api_shape():
    body = device_list(default_home()).body
    names = {d["deviceName"]: d["deviceType"] for d in body["deviceList"]}
    assert names == {"リビングのハブ": "Hub Mini", "リビングの電気": "Color Bulb", "寝室の電気": "Color Bulb",
                     "Kitchen Light": "Color Bulb", "玄関の電気": "Color Bulb"}
    assert body["infraredRemoteList"] == [{"deviceId": TV, "deviceName": "テレビ", "remoteType": "TV",
                                           "hubDeviceId": "C0FFEE000001"}]
    assert all(set(d) == {"deviceId", "deviceName", "deviceType", "enableCloudService", "hubDeviceId"}
               for d in body["deviceList"])


def test_the_state_round_trips_and_a_bad_state_says_where():
    home = default_home()
    assert home_to_json(home_from_json(home_to_json(home))) == home_to_json(home)
    with pytest.raises(ValueError, match=r"bulbs\[0\]: unknown key\(s\) colour"):
        home_from_json({"bulbs": [{"device_id": "x", "name": "x", "colour": "red"}]})
    with pytest.raises(ValueError, match="remotes: not a list"):
        home_from_json({"remotes": {}})
