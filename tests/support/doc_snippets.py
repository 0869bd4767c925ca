"""The code blocks of README.md and docs/*.md, and how to run them (tests/test_doc_snippets.py says which run how).

`blocks` finds the fenced blocks, `snippets` those that run (Python and shell); `commands` splits a shell
block into its commands; `shell_script` writes the bash script that runs them one by one in one shell (so
`cd` and `export` carry to the next line), records each one's exit status and output, and runs a server in
the background until its port answers; `FakeModel` is a local server in the vendors' wire formats for the
commands that name an LLM provider. Nothing here names a module of concierge: a block says what it imports.
"""

from __future__ import annotations

import json
import re
import shlex
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from agent_fakes import Streamed, anthropic_message, anthropic_stream, responses_body, responses_stream, streamed_text

LANGS = {"python": "python", "py": "python", "bash": "shell", "sh": "shell", "shell": "shell", "console": "console"}
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\s]*)[^`]*$")


@dataclass(frozen=True)
class Block:
    """A fenced block: its document (relative to the repository), the line of its opening fence, its info word."""

    doc: str
    line: int
    info: str
    code: str

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"

    @property
    def lang(self) -> str | None:
        return LANGS.get(self.info.lower())


@dataclass(frozen=True)
class Command:
    line: int  # in the document
    text: str  # as written, continuation lines joined with their backslashes

    @property
    def key(self) -> str:
        """The command without its comment, its spaces collapsed: how the tables of the test module name it."""
        return " ".join(strip_comment(self.text.replace("\\\n", " ")).split())


def documents(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def blocks(root: Path) -> list[Block]:
    """Every fenced block of README.md and docs/*.md, in the order of the documents."""
    found = []
    for path in documents(root):
        lines = path.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            m = _FENCE.match(lines[i])
            if not m:
                i += 1
                continue
            start, indent, fence = i, len(m["indent"]), m["fence"]
            body = []
            i += 1
            while i < len(lines) and not re.match(rf"^[ \t]*{re.escape(fence)}[ \t]*$", lines[i]):
                body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
                i += 1
            found.append(Block(str(path.relative_to(root)), start + 1, m["info"], "\n".join(body)))
            i += 1
    return found


def snippets(root: Path) -> list[Block]:
    """The blocks that run: Python and shell ones."""
    return [b for b in blocks(root) if b.lang]


def commands(block: Block) -> list[Command]:
    """The commands of a shell block: one a line (a trailing backslash joins the next), comment lines left out;
    of a console block only the lines after a `$ ` prompt (their continuation lines start with `> `)."""
    found: list[Command] = []
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(block.code.splitlines(), start=block.line + 1):
        line = raw.rstrip()
        if pending is not None:
            if block.lang == "console":
                line = line.removeprefix("> ")
            start, text = pending
            pending = None
        elif block.lang == "console" and not line.lstrip().startswith("$ "):
            continue
        else:
            line = line.lstrip().removeprefix("$ ") if block.lang == "console" else line.strip()
            if not line or line.startswith("#"):
                continue
            start, text = number, ""
        text += line
        if line.endswith("\\"):
            pending = (start, text + "\n")
        else:
            found.append(Command(start, text))
    return found


def first_line(block: Block) -> str:
    """How the tables name a Python block: its first line of code after the imports, without its comment."""
    lines = [strip_comment(line).strip() for line in block.code.splitlines()]
    code = [line for line in lines if line and not line.startswith(("import ", "from "))]
    return (code or [line for line in lines if line] or [""])[0]


def strip_comment(text: str) -> str:
    """The command without a trailing `# comment` (a `#` outside quotes, at the start or after a blank)."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
    return text.rstrip()


# --- the script a shell block runs as -------------------------------------------------------------------
@dataclass
class Step:
    """A command as the script runs it."""

    command: Command
    text: str  # after the test module's rewrites
    expect: int = 0
    stdin: str | None = None
    server_port: int | None = None  # a server: started in the background, up once this port answers
    keep: bool = False  # a server left running until the end of the block (the next lines use it)


_PRELUDE = r"""
set -m
__servers=()  # PID:PORT of the servers kept up until the block ends
__answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
__halt() {  # PID PORT: stop the server's process group, then wait until its port is free again (at most 10 s)
  local i=0
  kill -TERM -- "-$1" 2>/dev/null; wait "$1" 2>/dev/null
  while __answers "$2" && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done
}
__end() {
  local s
  for s in "${__servers[@]}"; do __halt "${s%%:*}" "${s##*:}"; done
  pwd > "$__LOGS/cwd"; export -p > "$__LOGS/env"
}
trap __end EXIT
__serve() {  # N PORT KEEP COMMAND: the command in the background until PORT answers; its printed exports applied
  local n=$1 port=$2 keep=$3 cmd=$4 out="$__LOGS/$1.out" pid i=0 size=-1 rc
  eval "$cmd" > "$out" 2>&1 < /dev/null &
  pid=$!
  until __answers "$port"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"; rc=$?; echo "(exited $rc before port $port answered)" >> "$out"; return 97
    fi
    i=$((i + 1))
    if [ $i -gt 1200 ]; then echo "(port $port did not answer in 60 s)" >> "$out"; __halt "$pid" "$port"; return 98; fi
    sleep 0.05
  done
  while [ "$(stat -c %s "$out")" != "$size" ]; do size=$(stat -c %s "$out"); sleep 0.1; done
  eval "$(sed -n 's/^[[:space:]]*export \([A-Za-z_][A-Za-z0-9_]*=[^[:space:]]*\)[[:space:]]*$/export \1/p' "$out")"
  if [ "$keep" = 1 ]; then __servers+=("$pid:$port"); else __halt "$pid" "$port"; fi
  return 0
}
"""


def shell_script(steps: list[Step], logs: Path, start: Path | None = None) -> str:
    """The bash script of one block: each step's exit status goes to `logs`/status (`N STATUS` lines), its
    output to `logs`/N.out; the first step with another status than expected ends the script. `start`: a
    folder and exported variables (`logs`/env of an earlier block) to begin with."""
    parts = [f"__LOGS={shlex.quote(str(logs))}", _PRELUDE]
    if start is not None:
        parts += [f"source {shlex.quote(str(start / 'env'))}", f"cd \"$(cat {shlex.quote(str(start / 'cwd'))})\""]
    for n, step in enumerate(steps):
        if step.server_port is not None:
            command = strip_comment(step.text).removesuffix("&").rstrip()
            parts.append(f"__serve {n} {step.server_port} {int(step.keep)} {shlex.quote(command)}")
        else:
            source = "/dev/null"
            if step.stdin is not None:
                (logs / f"{n}.in").write_text(step.stdin, encoding="utf-8")
                source = f"\"$__LOGS/{n}.in\""
            parts.append(f"{{\n{step.text}\n}} > \"$__LOGS/{n}.out\" 2>&1 < {source}")
        parts.append(f"__rc=$?; echo \"{n} $__rc\" >> \"$__LOGS/status\"; [ $__rc -eq {step.expect} ] || exit 0")
    return "\n".join(parts) + "\n"


@dataclass
class Outcome:
    step: Step
    status: int | None  # None: not reached
    output: str


def outcomes(steps: list[Step], logs: Path) -> list[Outcome]:
    statuses = {}
    if (logs / "status").exists():
        for line in (logs / "status").read_text().splitlines():
            n, status = line.split()
            statuses[int(n)] = int(status)
    found = []
    for n, step in enumerate(steps):
        out = logs / f"{n}.out"
        found.append(Outcome(step, statuses.get(n), out.read_text(errors="replace") if out.exists() else ""))
    return found


# --- a model server in the vendors' wire formats ------------------------------------------------------------
ANSWER = "A fake model answered this, without calling a tool."


class FakeModel:
    """Answers Chat Completions, Responses and Anthropic Messages requests, whole or streamed, on 127.0.0.1, with
    ANSWER: a model that calls no tool and states no figure (what the docs' provider lines need to run)."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server API)
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                self._send(_reply(self.path, bool(body.get("stream"))))

            def _send(self, payload: dict | Streamed) -> None:
                if isinstance(payload, Streamed):
                    lines = [(f"event: {c['type']}\n" if payload.named else "") + f"data: {json.dumps(c)}\n\n"
                             for c in payload.chunks if isinstance(c, dict)]
                    data = "".join(lines + ([f"data: {payload.done}\n\n"] if payload.done else [])).encode()
                    kind = "text/event-stream"
                else:
                    data, kind = json.dumps(payload, ensure_ascii=False).encode(), "application/json"
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> FakeModel:
        self.thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def _reply(path: str, stream: bool) -> dict | Streamed:
    if path.endswith("/messages"):
        return anthropic_stream(ANSWER) if stream else anthropic_message(ANSWER)
    if path.endswith("/responses"):
        return responses_stream(ANSWER) if stream else responses_body(ANSWER)
    return streamed_text(ANSWER) if stream else _chat_body(ANSWER)


def _chat_body(text: str) -> dict:
    return {"id": "chatcmpl-docs", "object": "chat.completion", "created": 1_747_000_000, "model": "fake",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": None,
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 300, "completion_tokens": 20, "total_tokens": 320}}
