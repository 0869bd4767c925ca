"""`concierge devices simulate` as a person runs it (a real subprocess), and `concierge devices show`."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import httpx2
from cli_runner import run_cli

from concierge.sources.http.switchbot import headers


def start(*args: str) -> tuple[subprocess.Popen[str], list[str]]:
    """`concierge devices simulate ARGS` in a subprocess; returns it and what it printed before it served."""
    process = subprocess.Popen([sys.executable, "-m", "concierge", "devices", "simulate", "--port", "0", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8",
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: list[str] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        assert line, f"the simulator stopped: {''.join(lines)}"
        lines.append(line.rstrip("\n"))
        if line.startswith("Ctrl+C stops"):
            return process, lines
    process.kill()
    raise AssertionError(f"the simulator printed no ready line: {lines}")


def stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    rest, _ = process.communicate(timeout=15)
    return rest


def exported(lines: list[str]) -> dict[str, str]:
    return dict(re.findall(r"^\s*export (SWITCHBOT_\w+)=(\S+)$", "\n".join(lines), re.M))


def test_simulate_prints_the_variables_labelled_as_a_simulator_and_serves(tmp_path):
    state = tmp_path / "home.json"
    process, lines = start("--state", str(state))
    try:
        assert "SIMULATOR" in lines[0]
        env = exported(lines)
        assert set(env) == {"SWITCHBOT_BASE_URL", "SWITCHBOT_TOKEN", "SWITCHBOT_SECRET"}
        assert env["SWITCHBOT_BASE_URL"].startswith("http://127.0.0.1:")
        assert any("リビングの電気" in line and "power on" in line for line in lines)

        signed = headers(env["SWITCHBOT_TOKEN"], env["SWITCHBOT_SECRET"])
        listed = httpx2.get(env["SWITCHBOT_BASE_URL"] + "/v1.1/devices", headers=signed, timeout=5).json()
        living = next(d["deviceId"] for d in listed["body"]["deviceList"] if d["deviceName"] == "リビングの電気")
        answer = httpx2.post(f"{env['SWITCHBOT_BASE_URL']}/v1.1/devices/{living}/commands", timeout=5,
                             headers=headers(env["SWITCHBOT_TOKEN"], env["SWITCHBOT_SECRET"]),
                             json={"command": "turnOff", "parameter": "default", "commandType": "command"})
        assert answer.json()["statusCode"] == 100
        wrong = httpx2.get(env["SWITCHBOT_BASE_URL"] + "/v1.1/devices", timeout=5,
                           headers=headers(env["SWITCHBOT_TOKEN"], "wrong"))
        assert wrong.status_code == 401
    finally:
        rest = stop(process)
    assert "SIMULATOR: リビングの電気: power off" in rest
    assert "SIMULATOR: 401 GET /v1.1/devices: wrong sign" in rest
    assert env["SWITCHBOT_SECRET"] not in rest

    shown = run_cli("devices", "show", "--state", str(state))
    assert shown.exit_code == 0, shown.output
    assert "SIMULATOR" in shown.output
    assert re.search(r"リビングの電気 .*power off", shown.output)
    assert json.loads(state.read_text(encoding="utf-8"))["token"] == env["SWITCHBOT_TOKEN"]


def test_simulate_can_start_with_a_device_offline():
    process, lines = start("--offline", "寝室の電気")
    try:
        assert any("寝室の電気" in line and "OFFLINE" in line for line in lines)
        env = exported(lines)
        answer = httpx2.post(f"{env['SWITCHBOT_BASE_URL']}/v1.1/devices/6055F92A1B02/commands", timeout=5,
                             headers=headers(env["SWITCHBOT_TOKEN"], env["SWITCHBOT_SECRET"]),
                             json={"command": "turnOn", "parameter": "default", "commandType": "command"})
        assert answer.json()["statusCode"] == 161
    finally:
        stop(process)


def test_simulate_refuses_an_unknown_offline_device_and_a_broken_state_file(tmp_path):
    unknown = run_cli("devices", "simulate", "--port", "0", "--offline", "ガレージ")
    assert unknown.exit_code == 2 and "no device 'ガレージ'" in unknown.output
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    refused = run_cli("devices", "simulate", "--port", "0", "--state", str(broken))
    assert refused.exit_code == 2 and "unusable" in refused.output
