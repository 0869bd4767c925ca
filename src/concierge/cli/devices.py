"""`concierge devices simulate` and `concierge devices show`: the SwitchBot SIMULATOR, for trying the home
catalog with no hardware (docs/devices.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from concierge.demo.home.devices import home_from_json, home_to_json
from concierge.demo.home.simulator import LABEL, Simulator, serve


def register(main: click.Group) -> None:
    main.add_command(devices)


@click.group()
def devices() -> None:
    """Smart-home devices: a SwitchBot-compatible SIMULATOR to try the home catalog without hardware."""


_state_option = click.option(
    "--state", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="A JSON file keeping the simulated devices' state and credentials (created if missing; re-read when "
    "edited). Default: in memory, new credentials each start.")


@devices.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8787, show_default=True,
              help="Port to listen on (0: any free port).")
@_state_option
@click.option("--offline", multiple=True, metavar="NAME",
              help="Start with this device or hub offline (repeat for several); its calls answer 161 (171 for a "
              "hub's remotes).")
def simulate(host: str, port: int, state: Path | None, offline: tuple[str, ...]) -> None:
    """Serve a SIMULATED SwitchBot API v1.1 hub (lights and a TV, no real devices) and print the variables that
    point concierge at it. Requests are checked as the real API checks them. Ctrl+C stops."""
    serve(host, port, state, offline=offline, report=lambda line: click.echo(f"SIMULATOR: {line}"),
          ready=lambda simulator: _announce(simulator, state))


def _announce(simulator: Simulator, state: Path | None) -> None:
    click.echo(f"{LABEL} listening on {simulator.base_url}")
    click.echo(f"state: {state}" if state else "state: in memory (lost when the simulator stops)")
    click.echo("To point concierge at this SIMULATOR, in another terminal:")
    for name, value in simulator.environment().items():
        click.echo(f"  export {name}={value}")
    click.echo("(A SwitchBot owner sets SWITCHBOT_TOKEN and SWITCHBOT_SECRET from the app instead and leaves "
               "SWITCHBOT_BASE_URL unset.)")
    click.echo("Simulated devices:")
    for line in _describe(simulator.state()):
        click.echo(f"  {line}")
    click.echo("Ctrl+C stops. Every change and refusal is printed below.")


@devices.command()
@click.option("--state", type=click.Path(dir_okay=False, exists=True, path_type=Path), required=True,
              help="The state file of `concierge devices simulate --state`.")
def show(state: Path) -> None:
    """Print the simulated devices' state from a simulator's state file."""
    try:
        home = home_from_json(json.loads(state.read_text(encoding="utf-8")))
    except ValueError as err:
        raise click.ClickException(f"{state} is not a simulator state file: {err}") from None
    click.echo(f"{LABEL}: {state}")
    for line in _describe(home_to_json(home)):
        click.echo(f"  {line}")


def _describe(state: dict[str, Any]) -> list[str]:
    """One line per simulated device: name, kind, and its state."""
    lines = []
    for hub in state.get("hubs", []):
        lines.append(f"{hub['name']}  [{hub['device_type']}]  {'online' if hub['online'] else 'OFFLINE'}")
    for bulb in state.get("bulbs", []):
        lines.append(f"{bulb['name']}  [{bulb['device_type']}]  {_online(bulb)}power {bulb['power']}, brightness "
                     f"{bulb['brightness']}, color {bulb['color']}, {bulb['color_temperature']}K")
    for tv in state.get("remotes", []):
        lines.append(f"{tv['name']}  [infrared {tv['remote_type']}]  {_online(tv)}power {tv['power']}, channel "
                     f"{tv['channel']}, volume {tv['volume']}")
    return lines


def _online(device: dict[str, Any]) -> str:
    return "" if device["online"] else "OFFLINE, "
