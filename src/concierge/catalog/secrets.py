"""A source's settings with `${NAME}` read from the environment, and the secrets kept out of sight.

The catalog model keeps what the file says (`${SWITCHBOT_TOKEN}`), so `concierge catalog show` and every
dump show the reference; the values read live only in a `ResolvedSource`, whose repr hides them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from concierge.catalog.model import SECRET_FIELDS, CatalogFile, HttpSource, StatusMap
from concierge.errors import CatalogProblem

VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_WHOLE_VARIABLE = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$")
MASK = "***"
_TEXT_FIELDS = ("token", "secret", "name", "value", "token_url", "authorize_url", "client_id", "client_secret", "scope")


class _Unset(Exception):
    def __init__(self, names: list[str]):
        self.names = names


def substitute(text: str, env: Mapping[str, str]) -> str:
    """`text` with each `${NAME}` as the variable's value and `${NAME:-default}` as its value or the
    default (when unset or empty); `_Unset` names the variables that have neither."""
    missing: list[str] = []

    def value(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        got = env.get(name)
        if got:
            return got
        if default is not None:
            return default
        missing.append(name)
        return ""

    out = VARIABLE.sub(value, text)
    if missing:
        raise _Unset(missing)
    return out


@dataclass(frozen=True)
class ResolvedAuth:
    kind: str
    token: str = field(default="", repr=False)
    secret: str = field(default="", repr=False)
    name: str = ""
    value: str = field(default="", repr=False)
    # oauth2_client_credentials / oauth2_authorization_code
    token_url: str = ""
    authorize_url: str = ""
    client_id: str = ""
    client_secret: str = field(default="", repr=False)
    scope: str = ""
    client_auth: str = "basic"
    redirect_port: int | None = None

    @property
    def oauth2(self) -> bool:
        return self.kind.startswith("oauth2_")


@dataclass(frozen=True)
class ResolvedSource:
    """An http source ready to call: its base URL, headers and credentials read from the environment."""

    name: str
    base_url: str
    timeout: float
    headers: dict[str, str] = field(repr=False)
    auth: ResolvedAuth | None = field(repr=False)
    status: StatusMap | None = None

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every value that must never be shown: credentials, and the values of headers."""
        found = [*self.headers.values()]
        if self.auth is not None:
            found += [self.auth.token, self.auth.secret, self.auth.value, self.auth.client_secret]
        return tuple(s for s in found if s)

    @property
    def where(self) -> str:
        """The service's address without credentials, path or query: for messages."""
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}"

    def redact(self, text: str) -> str:
        for secret in sorted(self.secrets, key=len, reverse=True):
            if len(secret) >= 4:
                text = text.replace(secret, MASK)
        return text


def resolve_sources(spec: CatalogFile, file: str, env: Mapping[str, str]) -> tuple[dict[str, ResolvedSource],
                                                                                   list[CatalogProblem]]:
    """The catalog's http sources with the environment read; every problem (an unset variable, a literal
    secret, a base URL that is not http(s)) as a `CatalogProblem`."""
    resolved: dict[str, ResolvedSource] = {}
    problems: list[CatalogProblem] = []
    for name, source in spec.sources.items():
        if not isinstance(source, HttpSource):
            continue
        found = list(_problems(name, source))
        values: dict[str, str] = {}
        for key, text in _values(name, source):
            try:
                values[key] = substitute(text, env)
            except _Unset as unset:
                for variable in dict.fromkeys(unset.names):
                    found.append((key, f"the environment variable {variable} is not set"))
        if not found:
            found.extend(_url_problems(name, values))
        problems += [CatalogProblem(file, key, message) for key, message in found]
        if not found:
            resolved[name] = _resolved(name, source, values)
    return resolved, problems


def _values(name: str, source: HttpSource) -> Iterator[tuple[str, str]]:
    key = f"sources.{name}"
    yield f"{key}.base_url", source.base_url
    for header, text in source.headers.items():
        yield f"{key}.headers.{header}", text
    if source.auth is not None:
        for attr in _TEXT_FIELDS:
            found: str | None = getattr(source.auth, attr, None)
            if found is not None:
                yield f"{key}.auth.{attr}", found


def _problems(name: str, source: HttpSource) -> Iterator[tuple[str, str]]:
    if source.auth is None:
        return
    for attr in SECRET_FIELDS:
        text = getattr(source.auth, attr, None)
        if text is not None and not _WHOLE_VARIABLE.match(text):
            yield (f"sources.{name}.auth.{attr}",
                   "a secret comes from the environment: write ${NAME} (no literal value, no default)")


def _url_problems(name: str, values: dict[str, str]) -> Iterator[tuple[str, str]]:
    for attr in ("token_url", "authorize_url"):
        endpoint = urlsplit(values.get(f"sources.{name}.auth.{attr}", "https://given"))
        if endpoint.scheme not in ("http", "https") or not endpoint.hostname:
            yield f"sources.{name}.auth.{attr}", "must be an http:// or https:// address with a host"
    parts = urlsplit(values[f"sources.{name}.base_url"])
    if parts.scheme not in ("http", "https") or not parts.hostname:
        yield f"sources.{name}.base_url", "must be an http:// or https:// address with a host"
    elif parts.query or parts.fragment:
        yield f"sources.{name}.base_url", "takes no query or fragment; declare query items on the tools"


def _resolved(name: str, source: HttpSource, values: dict[str, str]) -> ResolvedSource:
    key = f"sources.{name}"
    auth = None
    if source.auth is not None:
        auth = ResolvedAuth(kind=source.auth.kind, **{
            attr: values[f"{key}.auth.{attr}"] for attr in _TEXT_FIELDS if f"{key}.auth.{attr}" in values},
            client_auth=getattr(source.auth, "client_auth", "basic"),
            redirect_port=getattr(source.auth, "redirect_port", None))
    headers = {h: values[f"{key}.headers.{h}"] for h in source.headers}
    return ResolvedSource(name=name, base_url=values[f"{key}.base_url"].rstrip("/"), timeout=source.timeout,
                          headers=headers, auth=auth, status=source.status)
