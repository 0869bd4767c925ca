"""examples/home-assistant.yaml through the real pipeline against a local server speaking Home Assistant's
REST API (tests/home/hass_fake.py), which checks the bearer token and the bodies strictly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.home.hass_fake import TOKEN, serving

from concierge.catalog.loader import load_catalog
from concierge.errors import CatalogError, ResultCode
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import users
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state

EXAMPLE = str(Path(__file__).parents[2] / "examples" / "home-assistant.yaml")


@pytest.fixture
def hass():
    with serving() as server:
        yield server


def open_example(tmp_path, hass, token: str = TOKEN) -> Pipeline:
    db = Database(f"sqlite:///{tmp_path / 'state.db'}")
    ensure_state(db)
    users.add(db, "mother", "family")
    users.add(db, "visitor", "guest")
    catalog = load_catalog(EXAMPLE, {"HASS_BASE_URL": hass.base_url, "HASS_TOKEN": token})
    return Pipeline([catalog], db)


@pytest.fixture
def example(tmp_path, hass):
    pipeline = open_example(tmp_path, hass)
    yield pipeline
    pipeline.close()


def call(p: Pipeline, tool: str, args=None, who: str = "mother"):
    return p.invoke(tool, args or {}, p.user(who))


def test_the_device_list_is_the_lights_of_api_states(example, hass):
    result = call(example, "list_lights", who="visitor")
    assert result.status == "ok"
    assert result.rows == [{"light": "light.living_room", "name": "Living Room", "state": "on"},
                           {"light": "light.bedroom", "name": "Bedroom", "state": "off"}]
    assert hass.requests[-1]["headers"]["Authorization"] == f"Bearer {TOKEN}"


@pytest.mark.parametrize(("tool", "entity", "state"), [("light_off", "light.living_room", "off"),
                                                       ("light_on", "light.bedroom", "on")])
def test_a_light_is_switched_through_the_light_service(example, hass, tool, entity, state):
    result = call(example, tool, {"light": entity})
    assert result.status == "ok"
    assert hass.devices[entity] == state  # the device changed, not only the record
    sent = hass.requests[-1]
    assert sent["path"] == f"/api/services/light/{tool.replace('light_', 'turn_')}"
    assert json.loads(sent["body"]) == {"entity_id": entity}


def test_the_state_record_endpoint_is_never_used_for_control(example, hass):
    call(example, "light_off", {"light": "light.living_room"})
    call(example, "light_on", {"light": "light.bedroom"})
    assert not [r for r in hass.requests if r["method"] == "POST" and r["path"].startswith("/api/states")]


def test_entities_that_are_not_lights_are_refused_before_anything_is_sent(example, hass):
    result = call(example, "light_on", {"light": "switch.coffee"})
    assert result.status == "refused" and result.valid == {"values": ["light.living_room", "light.bedroom"]}
    assert all(r["method"] == "GET" for r in hass.requests)


def test_a_guest_may_list_but_not_switch(example, hass):
    result = call(example, "light_off", {"light": "light.living_room"}, who="visitor")
    assert result.status == "refused" and result.code == ResultCode.NOT_PERMITTED
    assert hass.devices["light.living_room"] == "on"


def test_a_wrong_token_gives_the_401_message_without_the_token(tmp_path, hass):
    p = open_example(tmp_path, hass, token="not-the-hass-token")
    try:
        result = call(p, "list_lights")
        assert result.status == "error" and "HASS_TOKEN" in (result.message or "")
        assert "トークン" in (result.message_ja or "")
        assert "not-the-hass-token" not in json.dumps(result.to_json(), ensure_ascii=False)
    finally:
        p.close()


def test_the_token_comes_from_the_environment():
    with pytest.raises(CatalogError, match="HASS_TOKEN"):
        load_catalog(EXAMPLE, {})


def test_the_fake_itself_keeps_the_record_apart_from_the_device(hass):
    # what docs/home.md warns about: rewriting the record leaves the light as it was
    import urllib.request

    request = urllib.request.Request(f"{hass.base_url}/api/states/light.living_room", method="POST",
                                     data=json.dumps({"state": "off"}).encode(),
                                     headers={"Authorization": f"Bearer {TOKEN}", "content-type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        assert json.load(answer)["state"] == "off"
    assert hass.devices["light.living_room"] == "on"
