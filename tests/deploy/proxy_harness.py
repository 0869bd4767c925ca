"""nginx in the foreground over several `concierge serve` processes, for the tests of tests/deploy.

The config balances round-robin over the processes and answers with `X-Upstream` (nginx's
`$upstream_addr`), so a test sees which process answered. A request with `X-Replica: a` (or b, ...)
goes to that process only: the tests use it to start something on one process and continue it on
the other, through the same proxy and cookie jar a browser would use. nginx runs from a config in
the test's folder, never as the system service.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest
from web_fakes import Served

NGINX_CANDIDATES = ("nginx", "/usr/sbin/nginx")

NGINX_CONF = """\
{user}
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 512; }}
http {{
    access_log {folder}/access.log;
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;

    upstream replicas {{
{servers}
        keepalive 16;
    }}
{pinned}
    # test only: `X-Replica: a` (or b, ...) pins a request to one process
    map $http_x_replica $pool {{
        default replicas;
{choices}
    }}
    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 2m;
        location / {{
            proxy_pass http://$pool;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_buffering off;
            proxy_read_timeout 300s;
            add_header X-Upstream $upstream_addr always;
        }}
    }}
}}
"""


def nginx_binary() -> str:
    found = next((p for p in map(shutil.which, NGINX_CANDIDATES) if p), None)
    if found is None:
        pytest.fail("nginx is missing: apt-get install -y nginx (bash .ci/run does, as root)")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def nginx_config(folder: Path, port: int, upstreams: dict[str, str]) -> str:
    """The config: round-robin over `upstreams` (name -> host:port), plus one pinned pool per name."""
    return NGINX_CONF.format(
        # as root, the workers would switch to `nobody`, who may not enter the test's folder
        user="user root;" if os.geteuid() == 0 else "",
        folder=folder,
        port=port,
        servers="\n".join(f"        server {address} max_fails=0;" for address in upstreams.values()),
        pinned="".join(f"    upstream replica_{name} {{ server {address}; keepalive 4; }}\n"
                       for name, address in upstreams.items()),
        choices="\n".join(f"        {name} replica_{name};" for name in upstreams),
    )


@contextmanager
def nginx(folder: Path, upstreams: dict[str, str]) -> Iterator[str]:
    """nginx in the foreground on a free port of 127.0.0.1; yields its base URL."""
    binary = nginx_binary()
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    conf = folder / "nginx.conf"
    conf.write_text(nginx_config(folder, port, upstreams))
    command = [binary, "-p", str(folder), "-e", str(folder / "error.log"), "-c", str(conf)]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen([*command, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, "nginx exited:\n" + process.stderr.read().decode(errors="replace")
            assert time.monotonic() < deadline, "nginx did not start"
            try:
                httpx2.get(f"{url}/api/me", timeout=2)
                break
            except httpx2.TransportError:
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()  # SIGTERM: nginx's fast shutdown, workers included
        process.wait(timeout=20)
        process.stderr.close()


@dataclass
class Replicas:
    url: str  # nginx
    database: str  # the one PostgreSQL database of both processes
    processes: dict[str, Served]  # "a", "b": each process, reachable directly too

    def address(self, name: str) -> str:
        """host:port of a process, as nginx's $upstream_addr names it."""
        return self.processes[name].url.removeprefix("http://")

    def which(self, response) -> str:
        """The process that answered a response through nginx: "a" or "b"."""
        upstream = response.headers.get("x-upstream")
        by_address = {self.address(name): name for name in self.processes}
        assert upstream in by_address, f"answered by {upstream!r}, not one of {by_address}"
        return by_address[upstream]
