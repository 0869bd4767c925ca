"""The simulated home behind the SwitchBot simulator: its devices, their state, and what each API call does
to them. Pure: no HTTP, no files; every function takes a `Home` and answers a `Reply`.

The behaviour follows SwitchBot API v1.1 (errors are a status code with an empty body):

- ``GET /v1.1/devices`` lists hubs and bulbs in ``deviceList`` and infrared remotes in ``infraredRemoteList``;
- ``GET /v1.1/devices/{id}/status`` answers a bulb's power, brightness, colour and colour temperature, or a hub's
  type; an infrared remote has no status in the real API (190 "wrong deviceId");
- ``POST /v1.1/devices/{id}/commands`` runs a bulb's or the TV's command; a device whose ``online`` is false
  answers 161, a remote whose hub is offline 171, a hub 151 (it takes no commands), an unknown id 152,
  a command the device lacks 160, a parameter out of range or of the wrong form 190.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from concierge.sources.http.switchbot import MESSAGES, StatusCode

NO_HUB = "000000000000"
"""The `hubDeviceId` of a device that reaches the cloud by itself (Wi-Fi bulbs)."""


@dataclass
class Hub:
    """A SwitchBot hub: relays infrared commands; offline, its remotes answer 171."""

    device_id: str
    name: str
    device_type: str = "Hub Mini"
    online: bool = True


@dataclass
class Bulb:
    """A Wi-Fi colour bulb (deviceType "Color Bulb")."""

    device_id: str
    name: str
    power: str = "off"
    brightness: int = 100
    color: str = "255:255:255"
    color_temperature: int = 4000
    online: bool = True
    hub_id: str = NO_HUB
    device_type: str = "Color Bulb"


@dataclass
class TvRemote:
    """An infrared TV remote (remoteType "TV"), sent through a hub. Its state is what the simulator believes the
    TV did; the real API keeps none."""

    device_id: str
    name: str
    hub_id: str
    power: str = "off"
    channel: int = 1
    volume: int = 20
    online: bool = True
    remote_type: str = "TV"


@dataclass
class Home:
    """Every simulated device."""

    hubs: list[Hub] = field(default_factory=list)
    bulbs: list[Bulb] = field(default_factory=list)
    remotes: list[TvRemote] = field(default_factory=list)

    def devices(self) -> list[Hub | Bulb | TvRemote]:
        return [*self.hubs, *self.bulbs, *self.remotes]

    def find(self, device_id: str) -> Hub | Bulb | TvRemote | None:
        for device in self.devices():
            if device.device_id == device_id:
                return device
        return None

    def named(self, name: str) -> Hub | Bulb | TvRemote | None:
        for device in self.devices():
            if name in (device.name, device.device_id):
                return device
        return None

    def hub_online(self, hub_id: str) -> bool:
        return all(hub.online for hub in self.hubs if hub.device_id == hub_id)


@dataclass(frozen=True)
class Reply:
    """What the service answers (inside HTTP 200): a status code, a body, and a sentence `change` saying what
    a command did to a device (empty when nothing changed)."""

    code: StatusCode
    body: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    change: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"statusCode": int(self.code), "body": self.body, "message": self.message or MESSAGES[self.code]}


def failure(code: StatusCode, message: str = "") -> Reply:
    return Reply(code, {}, message or MESSAGES[code])


def default_home() -> Home:
    """The demo household: three lights, one of them offline, a TV on a hub, and the hub itself."""
    hub = Hub("C0FFEE000001", "リビングのハブ")
    return Home(
        hubs=[hub],
        bulbs=[Bulb("6055F92A1B01", "リビングの電気", power="on", brightness=80),
               Bulb("6055F92A1B02", "寝室の電気"),
               Bulb("6055F92A1B03", "Kitchen Light", power="on", color="255:200:150", color_temperature=3000),
               Bulb("6055F92A1B04", "玄関の電気", online=False)],
        remotes=[TvRemote("02-202404011200-10000001", "テレビ", hub.device_id)],
    )


def device_list(home: Home) -> Reply:
    """`GET /v1.1/devices`."""
    devices = [{"deviceId": h.device_id, "deviceName": h.name, "deviceType": h.device_type,
                "enableCloudService": True, "hubDeviceId": NO_HUB} for h in home.hubs]
    devices += [{"deviceId": b.device_id, "deviceName": b.name, "deviceType": b.device_type,
                 "enableCloudService": True, "hubDeviceId": b.hub_id} for b in home.bulbs]
    remotes = [{"deviceId": r.device_id, "deviceName": r.name, "remoteType": r.remote_type,
                "hubDeviceId": r.hub_id} for r in home.remotes]
    return Reply(StatusCode.SUCCESS, {"deviceList": devices, "infraredRemoteList": remotes})


def device_status(home: Home, device_id: str) -> Reply:
    """`GET /v1.1/devices/{id}/status`."""
    device = home.find(device_id)
    if device is None:
        return failure(StatusCode.DEVICE_NOT_FOUND)
    if isinstance(device, TvRemote):
        return failure(StatusCode.BAD_FORMAT, "wrong deviceId")
    if not device.online:
        return failure(StatusCode.DEVICE_OFFLINE)
    if isinstance(device, Hub):
        return Reply(StatusCode.SUCCESS, {"deviceId": device.device_id, "deviceType": device.device_type,
                                          "hubDeviceId": NO_HUB})
    return Reply(StatusCode.SUCCESS, {"deviceId": device.device_id, "deviceType": device.device_type,
                                      "hubDeviceId": device.hub_id, "power": device.power,
                                      "brightness": device.brightness, "color": device.color,
                                      "colorTemperature": device.color_temperature})


def run_command(home: Home, device_id: str, request: Any) -> Reply:
    """`POST /v1.1/devices/{id}/commands` with the request's JSON body; changes `home` on success."""
    if not isinstance(request, dict) or not isinstance(request.get("command"), str):
        return failure(StatusCode.BAD_FORMAT, "command is required")
    device = home.find(device_id)
    if device is None:
        return failure(StatusCode.DEVICE_NOT_FOUND)
    if isinstance(device, Hub):
        return failure(StatusCode.WRONG_DEVICE_TYPE)
    command_type = request.get("commandType", "command")
    if command_type not in ("command", "customize"):
        return failure(StatusCode.BAD_FORMAT, "commandType must be command or customize")
    if not device.online:
        return failure(StatusCode.DEVICE_OFFLINE)
    if device.hub_id != NO_HUB and not home.hub_online(device.hub_id):
        return failure(StatusCode.HUB_OFFLINE)
    commands: dict[str, Callable[[Any, Any], str | None]] = (
        BULB_COMMANDS if isinstance(device, Bulb) else TV_COMMANDS)
    action = commands.get(request["command"]) if command_type == "command" else None
    if action is None:
        return failure(StatusCode.COMMAND_NOT_SUPPORTED, "unknown command")
    change = action(device, request.get("parameter", "default"))
    if change is None:
        return failure(StatusCode.BAD_FORMAT, f"wrong parameter for {request['command']}")
    return Reply(StatusCode.SUCCESS, {}, change=f"{device.name}: {change}")


def _integer(value: Any, low: int, high: int) -> int | None:
    """An integer parameter (a JSON number or a string of digits) within low..high, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and re.fullmatch(r"\d{1,5}", value.strip()):
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and low <= value <= high else None


def _rgb(value: Any) -> str | None:
    if not isinstance(value, str) or not re.fullmatch(r"\d{1,3}:\d{1,3}:\d{1,3}", value):
        return None
    parts = [int(part) for part in value.split(":")]
    return ":".join(map(str, parts)) if all(part <= 255 for part in parts) else None


def _power(on: bool) -> Callable[[Any, Any], str]:
    def act(device: Bulb | TvRemote, _parameter: Any) -> str:
        device.power = "on" if on else "off"
        return f"power {device.power}"

    return act


def _toggle(bulb: Bulb, _parameter: Any) -> str:
    bulb.power = "off" if bulb.power == "on" else "on"
    return f"power {bulb.power}"


def _brightness(bulb: Bulb, parameter: Any) -> str | None:
    level = _integer(parameter, 1, 100)
    if level is None:
        return None
    bulb.brightness = level
    return f"brightness {level}"


def _color(bulb: Bulb, parameter: Any) -> str | None:
    color = _rgb(parameter)
    if color is None:
        return None
    bulb.color = color
    return f"color {color}"


def _color_temperature(bulb: Bulb, parameter: Any) -> str | None:
    kelvin = _integer(parameter, 2700, 6500)
    if kelvin is None:
        return None
    bulb.color_temperature = kelvin
    return f"color temperature {kelvin}K"


def _set_channel(tv: TvRemote, parameter: Any) -> str | None:
    channel = _integer(parameter, 1, 12)
    if channel is None:
        return None
    tv.channel = channel
    return f"channel {channel}"


def _channel_step(step: int) -> Callable[[TvRemote, Any], str]:
    def act(tv: TvRemote, _parameter: Any) -> str:
        tv.channel = (tv.channel - 1 + step) % 12 + 1
        return f"channel {tv.channel}"

    return act


def _volume_step(step: int) -> Callable[[TvRemote, Any], str]:
    def act(tv: TvRemote, _parameter: Any) -> str:
        tv.volume = min(100, max(0, tv.volume + step))
        return f"volume {tv.volume}"

    return act


BULB_COMMANDS: dict[str, Callable[[Any, Any], str | None]] = {
    "turnOn": _power(True), "turnOff": _power(False), "toggle": _toggle, "setBrightness": _brightness,
    "setColor": _color, "setColorTemperature": _color_temperature,
}
TV_COMMANDS: dict[str, Callable[[Any, Any], str | None]] = {
    "turnOn": _power(True), "turnOff": _power(False), "SetChannel": _set_channel,
    "channelAdd": _channel_step(1), "channelSub": _channel_step(-1),
    "volumeAdd": _volume_step(1), "volumeSub": _volume_step(-1),
}


def home_to_json(home: Home) -> dict[str, Any]:
    """The home as the state file keeps it."""
    return {"hubs": [asdict(h) for h in home.hubs], "bulbs": [asdict(b) for b in home.bulbs],
            "remotes": [asdict(r) for r in home.remotes]}


def home_from_json(data: Any) -> Home:
    """The home a state file describes; ValueError saying what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("the state is not a JSON object")
    kinds: dict[str, type[Hub] | type[Bulb] | type[TvRemote]] = {"hubs": Hub, "bulbs": Bulb, "remotes": TvRemote}
    lists: dict[str, list[Any]] = {}
    for key, kind in kinds.items():
        entries = data.get(key, [])
        if not isinstance(entries, list):
            raise ValueError(f"{key}: not a list")
        lists[key] = [_device(kind, entry, f"{key}[{i}]") for i, entry in enumerate(entries)]
    return Home(hubs=lists["hubs"], bulbs=lists["bulbs"], remotes=lists["remotes"])


def _device(kind: type[Hub] | type[Bulb] | type[TvRemote], entry: Any, where: str) -> Any:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: not an object")
    known = {f.name for f in fields(kind)}
    unknown = sorted(set(entry) - known)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    try:
        return kind(**entry)
    except TypeError as err:
        raise ValueError(f"{where}: {err}") from None
