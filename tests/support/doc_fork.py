"""A fork server for the `concierge` commands of the docs' snippets (tests/test_doc_snippets.py).

The snippets run about a hundred `concierge` commands; each one as a new process spends over a second
importing concierge before it does anything. This server imports concierge once, then forks a child per
command, so a command costs what the command itself does. The child is the command as the console script
runs it: the caller's own standard input, output and error (passed over the socket), its arguments,
working folder and environment, `concierge.cli:main` with `sys.argv`, the exit status back to the caller.
When the caller goes away (a server line stopped by the test), the child gets SIGTERM, as if it were the
caller itself. Python snippets run the same way, as `doc-python FILE`.

Only the standard library here: `client` runs in the tiny `concierge` and `doc-python` stand-ins put first on the
snippets' PATH (`stand_ins`), which start Python without site-packages. DOC_FORK_CPU_LOG=FILE (in the server's
environment) has each child append its CPU seconds and arguments to FILE, to see where the time goes.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import gc
import io
import json
import os
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from pathlib import Path

_FDS = array.array("i", [0, 1, 2])


def stand_ins(folder: Path, socket_path: str) -> Path:
    """Writes `concierge` and `doc-python` commands into `folder` that run through the server at `socket_path`."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, mode in (("concierge", "concierge"), ("doc-python", "python")):
        path = folder / name
        path.write_text(
            f"#!{sys.executable} -IS\n"
            "import sys\n"
            f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
            "import doc_fork\n"
            f"sys.exit(doc_fork.client({socket_path!r}, {mode!r}, sys.argv[1:]))\n",
            encoding="utf-8",
        )
        path.chmod(0o755)
    return folder


def client(socket_path: str, mode: str, args: list[str]) -> int:
    """Runs `concierge ARGS` (mode `concierge`) or `python ARGS` (mode `python`) in a child of the server."""
    request = json.dumps({"mode": mode, "args": args, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(socket_path)
        sock.sendmsg([struct.pack("!I", len(request)) + request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, _FDS)])
        reply = b""
        while len(reply) < 4:
            chunk = sock.recv(4 - len(reply))
            if not chunk:
                print(f"{mode} (doc_fork): the command ended without an exit status", file=sys.stderr)
                return 1
            reply += chunk
    return struct.unpack("!i", reply)[0]


_ENTRY = "concierge"  # the console script a `concierge` child runs
_CPU_LOG = os.environ.get("DOC_FORK_CPU_LOG")  # a file each child appends its CPU seconds and arguments to


def serve(socket_path: str, preload: list[str]) -> None:
    """Imports the `concierge` console script's module and `preload`, then forks a child for each connection
    until SIGTERM, or until the process that started it is gone."""
    import importlib
    from importlib.metadata import entry_points

    global _ENTRY
    (script,) = entry_points(group="console_scripts", name="concierge")
    _ENTRY = script.value
    importlib.import_module(script.module)
    for name in preload:  # MODULE, or MODULE:CALLABLE to call once (a cache every command would fill)
        module, _, call = name.partition(":")
        try:
            loaded = importlib.import_module(module)
        except ImportError:  # not installed: the commands that need it import it themselves
            continue
        if call:
            getattr(loaded, call)()
    assert threading.active_count() == 1, "a thread at import time: forking it is unsafe"
    gc.freeze()  # what is imported stays put: a child's collections do not touch (and copy) those pages
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(socket_path)
    server.listen(64)
    signal.signal(signal.SIGCHLD, _reap)
    server.settimeout(1.0)
    parent = os.getppid()
    print("ready", flush=True)
    while os.getppid() == parent:  # the tests that started it went away: so does it
        try:
            conn, _ = server.accept()
        except TimeoutError:
            continue
        conn.settimeout(None)
        if os.fork() == 0:
            server.close()
            _child(conn)
        conn.close()


def _reap(_signum, _frame) -> None:
    """Waits for the children that ended (so their CPU time counts as this server's children's, as it should)."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    data, ancillary, _flags, _addr = conn.recvmsg(1 << 16, socket.CMSG_SPACE(len(_FDS) * _FDS.itemsize))
    fds = array.array("i")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    (length,) = struct.unpack("!I", data[:4])
    body = data[4:]
    while len(body) < length:
        body += conn.recv(length - len(body))
    return json.loads(body), list(fds)


def _child(conn: socket.socket) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    code = 1
    try:
        request, fds = _receive(conn)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8")
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding="utf-8")
        sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)), encoding="utf-8",
                                      errors="backslashreplace", line_buffering=True)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        threading.Thread(target=_watch, args=(conn,), daemon=True).start()
        code = _run(request["mode"], request["args"])
        if _CPU_LOG:
            used = os.times()
            with open(_CPU_LOG, "a", encoding="utf-8") as log:
                log.write(f"{used.user + used.system:.2f} {request['cwd']} {' '.join(request['args'])}\n")
    except BaseException:  # the command's own failure, reported as Python would
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a closed pipe: nothing left to say
                stream.flush()
        with contextlib.suppress(OSError):  # the caller went away
            conn.sendall(struct.pack("!i", code))
        os._exit(code)


def _run(mode: str, args: list[str]) -> int:
    """The command as Python would start it: `sys.argv`, and `sys.path[0]` the script's folder (not this one's)."""
    try:
        if mode == "python":
            import runpy

            sys.argv = list(args)
            sys.path[0] = str(Path(args[0]).resolve().parent)
            runpy.run_path(args[0], run_name="__main__")
        else:
            import importlib

            module, _, attr = _ENTRY.partition(":")
            main = getattr(importlib.import_module(module), attr)
            sys.argv = [str(Path(sys.executable).with_name("concierge")), *args]
            sys.path[0] = str(Path(sys.executable).parent)
            main()
        code = 0
    except SystemExit as stop:
        code = _status(stop.code)
    atexit._run_exitfuncs()
    return code


def _status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _watch(conn: socket.socket) -> None:
    """The caller went away: stop as it would have (SIGTERM), and surely within five seconds."""
    with contextlib.suppress(OSError):
        conn.recv(1)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)
    os._exit(143)


if __name__ == "__main__":  # python doc_fork.py SOCKET MODULE...
    serve(sys.argv[1], sys.argv[2:])
