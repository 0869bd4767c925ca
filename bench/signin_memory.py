"""Peak memory of `concierge serve` while many people sign in at once (issue 16, item 6).

    .venv/bin/python bench/signin_memory.py                 # 50 at once; before (old argon2) and now, side by side
    .venv/bin/python bench/signin_memory.py --users 8 --waves 3

Each case gets a fresh SQLite demo database in a temporary folder with `--users` users (``bench01`` ..),
each with its own password, then starts `concierge serve` as a subprocess on 127.0.0.1 and fires every
user's ``POST /api/login`` at once, `--waves` times, sampling the server's RSS (psutil) every 5 ms.

The sign-in throttle gives one client address 20 attempts at a time (`storage/throttle.py`); so that all
of them are taken, the server runs with ``--trusted-proxy 127.0.0.1`` and each request names its own
client address in ``X-Forwarded-For`` (10.77.0.N), as a reverse proxy in front of it would.

Cases:

- ``old``: the behaviour before (argon2-cffi's default parameters, 64 MiB t=3 p=4, every check at once), set
  up inside the server process by this bench only (it patches `concierge.storage.passwords` and then runs
  the ordinary command);
- ``new``: the code as it is (OWASP's 19 MiB t=2 p=1, checks bounded by `passwords.gate`);
- ``upgrade``: the code as it is on a database whose hashes were made the old way: they verify with their
  own 64 MiB, run alone, and are rehashed on the first right password (so wave 2 is the ``new`` case).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2
import machine
import psutil

_ROOT = Path(__file__).resolve().parent.parent
_BOOT = """
import sys
if sys.argv[1] == "old":
    from argon2 import PasswordHasher, profiles
    from concierge.storage import passwords
    passwords._hasher = PasswordHasher.from_parameters(profiles.RFC_9106_LOW_MEMORY)
    passwords._DUMMY_HASH = passwords._hasher.hash("bench-dummy-password")
    passwords.gate = passwords.CheckGate(limit=10**6, budget_kib=10**12)
from concierge.cli import main
sys.argv = ["concierge", *sys.argv[2:]]
main()
"""


def _setup(url: str, count: int, old_hashes: bool) -> dict[str, str]:
    from argon2 import PasswordHasher, profiles

    from concierge.demo.bootstrap import open_pipeline
    from concierge.storage import passwords, users
    from concierge.storage import state as schema

    old = PasswordHasher.from_parameters(profiles.RFC_9106_LOW_MEMORY)
    pipeline = open_pipeline(["farm", "pos"], url)  # installs the demo data
    made = {f"bench{i:02d}": f"bench-pass-{i:02d}" for i in range(count + 1)}  # bench00: the warm-up
    try:
        for name, password in made.items():
            users.add(pipeline.state, name, "staff")
            if old_hashes:
                with pipeline.state.write() as conn:
                    conn.execute(schema.users.update().where(schema.users.c.name == name)
                                 .values(password_hash=old.hash(password)))
            else:
                passwords.set_password(pipeline.state, name, password)
    finally:
        pipeline.close()
    return made


def _wait_started(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("concierge serve exited:\n" + (process.stdout.read() if process.stdout else ""))
        try:
            if httpx2.get(f"{url}/api/me", timeout=2).status_code == 401:
                return
        except httpx2.TransportError:
            time.sleep(0.1)
    raise SystemExit("concierge serve did not start")


def _sign_in(url: str, name: str, password: str, address: str) -> int:
    with httpx2.Client(timeout=120) as client:
        res = client.post(f"{url}/api/login", json={"name": name, "password": password},
                          headers={"X-Forwarded-For": address})
        return res.status_code


class _Sampler:
    def __init__(self, process: psutil.Process) -> None:
        self.process, self.peak, self._stop = process, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.process.memory_info().rss)
            time.sleep(0.005)

    def __enter__(self) -> _Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.process.memory_info().rss)


def _wave(url: str, server: psutil.Process, made: dict[str, str]) -> dict:
    names = [n for n in made if n != "bench00"]
    codes: list[int] = [0] * len(names)
    start = threading.Barrier(len(names))

    def one(i: int) -> None:
        start.wait()
        codes[i] = _sign_in(url, names[i], made[names[i]], f"10.77.{i // 250}.{i % 250 + 1}")

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(names))]
    with _Sampler(server) as sampler:
        began = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - began
    return {"peak": sampler.peak, "seconds": seconds, "ok": codes.count(200), "codes": sorted(set(codes))}


def run_case(case: str, count: int, waves: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="concierge-signin-") as folder:
        url = f"sqlite:///{folder}/demo.db"
        made = _setup(url, count, old_hashes=case != "new")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env = {**os.environ, "CONCIERGE_SECRET": "bench-secret", "HOME": folder}
        command = [sys.executable, "-c", _BOOT, case, "serve", "--port", str(port), "--database", url,
                   "--trusted-proxy", "127.0.0.1"]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                                   cwd=_ROOT)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_started(base, process)
            server = psutil.Process(process.pid)
            idle = server.memory_info().rss
            assert _sign_in(base, "bench00", made["bench00"], "10.78.0.1") == 200  # warm-up: imports, first check
            before = server.memory_info().rss
            results = [_wave(base, server, made) for _ in range(waves)]
            after = server.memory_info().rss
        finally:
            process.terminate()
            process.wait(timeout=20)
    return {"case": case, "idle": idle, "before": before, "after": after, "waves": results}


def _mb(value: int) -> str:
    return f"{value / 1e6:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=50, help="sign-ins at once (distinct users); default 50")
    parser.add_argument("--waves", type=int, default=2, help="rounds of them; default 2")
    parser.add_argument("--case", action="append", choices=["old", "new", "upgrade"],
                        help="repeatable; default: old, new, upgrade")
    args = parser.parse_args()
    from concierge.storage import passwords

    print(f"{args.users} simultaneous sign-ins x {args.waves} waves; {machine.load_average()}; "
          f"now: {passwords.PARAMETERS.memory_cost // 1024} MiB t={passwords.PARAMETERS.time_cost} "
          f"p={passwords.PARAMETERS.parallelism}, at most {passwords.CONCURRENT_CHECKS} checks at once")
    print(f"{'case':<8} {'idle MB':>8} {'warm MB':>8} {'peak MB':>8} {'after MB':>9} {machine.LOAD}  "
          "per wave: peak MB / s / ok")
    for case in args.case or ["old", "new", "upgrade"]:
        r = run_case(case, args.users, args.waves)
        waves = "  ".join(f"{_mb(w['peak'])} / {w['seconds']:.2f} / {w['ok']}" + ("" if w["codes"] == [200] else
                          f" {w['codes']}") for w in r["waves"])
        peak = max(w["peak"] for w in r["waves"])
        print(f"{case:<8} {_mb(r['idle']):>8} {_mb(r['before']):>8} {_mb(peak):>8} {_mb(r['after']):>9} "
              f"{machine.load()}  {waves}",
              flush=True)


if __name__ == "__main__":
    main()
