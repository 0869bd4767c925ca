"""Every tool of the `home` demo catalog through the real pipeline (guard, access, call, shape, audit)
against the SwitchBot SIMULATOR, which checks each request's signature as the real API does."""

from __future__ import annotations

import pytest
from tests.home.conftest import open_home

from concierge.catalog.loader import load_catalog
from concierge.demo.bootstrap import demo_users
from concierge.errors import CatalogError, ResultCode
from concierge.pipeline import audit
from concierge.pipeline.pipeline import Pipeline
from concierge.sources.result import Rows

LIGHTS = ["リビングの電気", "寝室の電気", "Kitchen Light", "玄関の電気"]


def call(p: Pipeline, tool: str, args=None, who: str = "hanako"):
    return p.invoke(tool, args or {}, p.user(who))


def commands(sim) -> list[tuple[str, object]]:
    return [(c.path, c.body) for c in sim.calls if c.method == "POST"]


def test_the_demo_brings_a_family_member_a_guest_and_an_administrator(home):
    assert [(u.name, u.role) for u in map(home.user, demo_users(home.catalogs))] == [
        ("admin", "admin"), ("hanako", "family"), ("guest", "guest")]


def test_the_device_list_joins_devices_and_infrared_remotes_without_ids(home):
    result = call(home, "list_devices", who="guest")
    assert result.status == "ok"
    assert [r["name"] for r in result.rows] == ["リビングのハブ", *LIGHTS, "テレビ"]
    assert result.rows[-1] == {"name": "テレビ", "type": None, "remote": "TV"}
    assert "6055F92A1B01" not in str(result.rows)  # names only; ids stay inside the tool


def test_a_lights_status_reads_power_brightness_and_colour(home, sim):
    result = call(home, "light_status", {"light": "リビングの電気"}, who="guest")
    assert result.status == "ok" and result.rows == [{"power": "on", "brightness": 80, "color": "255:255:255"}]
    assert sim.calls[-1].path == "/v1.1/devices/6055F92A1B01/status"


@pytest.mark.parametrize(("power", "state"), [("turnOff", "off"), ("turnOn", "on")])
def test_a_family_member_switches_a_light(home, sim, power, state):
    result = call(home, "light_power", {"light": "寝室の電気", "power": power})
    assert result.status == "ok"
    assert sim.device("寝室の電気")["power"] == state
    assert commands(sim) == [("/v1.1/devices/6055F92A1B02/commands",
                              {"command": power, "parameter": "default", "commandType": "command"})]


def test_on_and_off_are_words_for_the_commands(home, sim):
    assert call(home, "light_power", {"light": "リビングの電気", "power": "off"}).status == "ok"
    assert sim.device("リビングの電気")["power"] == "off"


def test_a_light_is_switched_at_once_without_a_confirmation(home):
    result = call(home, "light_power", {"light": "リビングの電気", "power": "turnOff"})
    assert isinstance(result, Rows)  # done: no confirmation, no token


def test_brightness_and_colour_change_the_light(home, sim):
    assert call(home, "light_brightness", {"light": "リビングの電気", "level": 50}).status == "ok"
    assert call(home, "light_color", {"light": "リビングの電気", "color": "255:0:0"}).status == "ok"
    light = sim.device("リビングの電気")
    assert (light["brightness"], light["color"]) == (50, "255:0:0")
    assert [body for _, body in commands(sim)] == [
        {"command": "setBrightness", "parameter": "50", "commandType": "command"},
        {"command": "setColor", "parameter": "255:0:0", "commandType": "command"}]


@pytest.mark.parametrize(("tool", "args", "param"), [
    ("light_brightness", {"light": "リビングの電気", "level": 150}, "level"),
    ("light_brightness", {"light": "リビングの電気", "level": 0}, "level"),
    ("light_color", {"light": "リビングの電気", "color": "300:0:0"}, "color"),
    ("light_color", {"light": "リビングの電気", "color": "red"}, "color"),
    ("tv_channel", {"tv": "テレビ", "channel": 13}, "channel"),
    ("tv_volume", {"tv": "テレビ", "direction": "volumeAdd", "steps": 4}, "steps"),
])
def test_values_out_of_range_are_refused_before_any_command_is_sent(home, sim, tool, args, param):
    result = call(home, tool, args)
    assert result.status == "refused" and result.code == ResultCode.BAD_ARGUMENT and result.param == param
    assert commands(sim) == []


def test_brightness_150_is_refused_with_the_range_in_both_languages(home, sim):
    result = call(home, "light_brightness", {"light": "リビングの電気", "level": 150})
    assert "1" in (result.message_ja or "") and "100" in (result.message_ja or "")
    assert "100" in (result.message or "")
    assert sim.device("リビングの電気")["brightness"] == 80


def test_an_unknown_light_is_refused_with_the_names_read_from_the_service(home, sim):
    result = call(home, "light_power", {"light": "台所", "power": "turnOn"})
    assert result.status == "refused" and result.valid == {"values": LIGHTS}
    assert commands(sim) == []


def test_the_tv_is_not_a_light_and_a_light_is_not_the_tv(home):
    assert call(home, "light_power", {"light": "テレビ", "power": "turnOn"}).status == "refused"
    assert call(home, "tv_power", {"tv": "リビングの電気", "power": "turnOn"}).status == "refused"


def test_the_tv_is_switched_and_its_channel_set(home, sim):
    assert call(home, "tv_power", {"tv": "テレビ", "power": "turnOn"}).status == "ok"
    assert call(home, "tv_channel", {"tv": "テレビ", "channel": 4}).status == "ok"
    tv = sim.device("テレビ")
    assert (tv["power"], tv["channel"]) == ("on", 4)
    assert commands(sim)[-1][1] == {"command": "SetChannel", "parameter": "4", "commandType": "command"}


@pytest.mark.parametrize(("direction", "steps", "volume"), [("volumeAdd", 2, 22), ("volumeSub", 3, 17)])
def test_the_volume_moves_by_one_command_per_step(home, sim, direction, steps, volume):
    result = call(home, "tv_volume", {"tv": "テレビ", "direction": direction, "steps": steps})
    assert result.status == "ok"
    assert sim.device("テレビ")["volume"] == volume
    assert [body["command"] for _, body in commands(sim)] == [direction] * steps


def test_one_volume_step_is_the_default(home, sim):
    assert call(home, "tv_volume", {"tv": "テレビ", "direction": "up"}).status == "ok"
    assert sim.device("テレビ")["volume"] == 21


def test_a_guest_may_read_the_status_but_not_switch_a_light(home, sim):
    assert call(home, "light_status", {"light": "寝室の電気"}, who="guest").status == "ok"
    result = call(home, "light_power", {"light": "寝室の電気", "power": "turnOn"}, who="guest")
    assert result.status == "refused" and result.code == ResultCode.NOT_PERMITTED
    assert sim.device("寝室の電気")["power"] == "off" and commands(sim) == []
    for tool in ("light_brightness", "light_color", "tv_power", "tv_channel", "tv_volume"):
        assert tool not in {t.name for t in home.tools_for(home.user("guest"))}


def test_an_offline_light_answers_161_in_both_languages(home, sim):
    result = call(home, "light_power", {"light": "玄関の電気", "power": "turnOn"})
    assert result.status == "error"
    assert result.message_ja == "機器がオフラインです。電源とWi-Fiの接続を確かめてください。"
    assert result.message == "The device is offline; check that it is plugged in and on Wi-Fi."
    assert sim.calls[-1].status_code == 161


def test_an_offline_hub_answers_171_for_the_tv(home, sim):
    sim.set_online("リビングのハブ", False)
    result = call(home, "tv_power", {"tv": "テレビ", "power": "turnOn"})
    assert result.status == "error" and "ハブがオフライン" in (result.message_ja or "")
    assert "hub is offline" in (result.message or "")


def test_an_unsupported_command_answers_160(home, sim):
    bulb = sim.store.home.bulbs[0]
    sim.store.home.remotes[0].device_id = bulb.device_id  # the name テレビ now reaches a bulb, which has no channels
    home.refresh()
    result = call(home, "tv_channel", {"tv": "テレビ", "channel": 4})
    assert result.status == "error" and result.message_ja == "その機器はこの操作に対応していません。"
    assert result.message == "The device does not support that command."
    assert sim.calls[-1].status_code == 160


def test_a_wrong_secret_gives_the_401_message_and_never_shows_the_secret(tmp_path, monkeypatch, sim):
    p = open_home(tmp_path, monkeypatch, {**sim.environment(), "SWITCHBOT_SECRET": "not-the-secret"})
    try:
        result = call(p, "list_devices")
        assert result.status == "error"
        assert "SWITCHBOT_TOKEN" in (result.message_ja or "") and "refused the token" in (result.message or "")
        switched = call(p, "light_power", {"light": "リビングの電気", "power": "turnOff"})
        assert switched.status == "error"  # the listing of names fails the same way; nothing is sent
        assert sim.device("リビングの電気")["power"] == "on"
        assert {c.http_status for c in sim.calls} == {401}
        logged = str(audit.latest(p.state, 20))
        for text in (str(result.to_json()), str(switched.to_json()), logged):
            assert "not-the-secret" not in text and sim.token not in text
    finally:
        p.close()


def test_the_light_names_are_read_again_after_their_ttl(home, sim):
    clock = [1000.0]
    home.http.caller.enums.clock = lambda: clock[0]
    assert call(home, "light_status", {"light": "寝室の電気"}).status == "ok"
    sim.store.home.bulbs[1].name = "子ども部屋の電気"  # renamed in the app
    assert call(home, "light_status", {"light": "子ども部屋の電気"}).status == "refused"  # still cached
    clock[0] += 61
    assert call(home, "light_status", {"light": "子ども部屋の電気"}).status == "ok"
    assert call(home, "light_status", {"light": "寝室の電気"}).status == "refused"


def test_a_light_gone_since_the_listing_is_not_found(home, sim):
    assert call(home, "light_status", {"light": "寝室の電気"}).status == "ok"
    sim.store.home.bulbs[1].device_id = "6055F92A1BFF"  # replaced: the cached name points at an old id
    result = call(home, "light_status", {"light": "寝室の電気"})
    assert result.status == "error" and result.code == ResultCode.NOT_FOUND
    assert "見つかりません" in (result.message_ja or "")


def test_every_call_is_audited_allowed_or_refused(home):
    call(home, "light_power", {"light": "リビングの電気", "power": "turnOff"})
    call(home, "light_power", {"light": "リビングの電気", "power": "turnOn"}, who="guest")
    entries = [(e["user_name"], e["tool"], e["decision"]) for e in audit.latest(home.state, 2)]
    assert entries == [("guest", "light_power", "refused:not_permitted"), ("hanako", "light_power", "ok")]


def test_the_catalog_names_each_missing_variable(monkeypatch):
    monkeypatch.delenv("SWITCHBOT_TOKEN", raising=False)
    monkeypatch.delenv("SWITCHBOT_SECRET", raising=False)
    with pytest.raises(CatalogError) as err:
        load_catalog("home")
    text = str(err.value)
    assert "SWITCHBOT_TOKEN" in text and "SWITCHBOT_SECRET" in text


def test_the_real_service_is_the_default_base_url(monkeypatch):
    monkeypatch.delenv("SWITCHBOT_BASE_URL", raising=False)
    catalog = load_catalog("home", {"SWITCHBOT_TOKEN": "t0ken", "SWITCHBOT_SECRET": "s3cret"})
    assert catalog.sources["switchbot"].base_url == "https://api.switch-bot.com"
