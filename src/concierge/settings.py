"""The settings of one installation: defaults, then `concierge.toml`, then the environment, then flags.

Each later source wins, key by key:

1. defaults: both demo catalogs on the embedded SQLite file, the offline planner (no file at all
   is today's demo installation);
2. the settings file: ``--config FILE``, else ``$CONCIERGE_CONFIG``, else ``concierge.toml`` in the
   current folder or the nearest parent folder that has one. Relative paths in it (``sqlite:///x.db``,
   catalog files) are relative to the file's folder. An unknown key is an error naming the file and
   the key: a typo is never ignored. API keys are never read from it;
3. environment variables, ``CONCIERGE_`` + the key in capitals with ``_`` for ``.``
   (``CONCIERGE_WEB_PORT`` for ``web.port``; the provider's are ``CONCIERGE_PROVIDER``,
   ``CONCIERGE_MODEL`` and ``CONCIERGE_BASE_URL``); lists are comma-separated;
4. command-line flags.

`Settings.sources` says, for every key, where its value came from. docs/settings.md lists the keys.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, ValidationInfo, field_validator
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from concierge.errors import ConfigError
from concierge.plugins import default_demos, demos

FILE_NAME = "concierge.toml"
ENV_CONFIG = "CONCIERGE_CONFIG"
ENV_PREFIX = "CONCIERGE_"
# Where the API keys come from (the environment only); `config show` says which are set.
API_KEY_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
_SECRET_WORDS = re.compile(r"(api_?key|secret|token|password|passwd)", re.IGNORECASE)
_LISTS = {"catalogs", "replica_database", "web.allowed_hosts", "mcp.allowed_hosts", "embed.origins", "embed.roles",
          "oidc.scopes"}
_MAPPINGS = {"oidc.roles"}  # in the environment: VALUE=ROLE,VALUE=ROLE
_BOOLS = {"web.secure_cookie"}
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off", ""}


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ProviderSettings(_Frozen):
    name: str = "offline"
    model: str | None = None
    base_url: str | None = None

    @field_validator("name")
    @classmethod
    def _known(cls, value: str) -> str:
        from concierge.agent.providers import NAMES

        if value not in NAMES:
            raise ValueError(f"unknown provider {value!r}; providers: {', '.join(NAMES)}")
        return value


def _base_url(value: str) -> str:
    if value and not re.match(r"^https?://[^/?#]+$", value.rstrip("/")):
        raise ValueError(f"{value!r} is not a base URL like https://concierge.example.com")
    return value.rstrip("/")


class WebSettings(_Frozen):
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    allowed_hosts: tuple[str, ...] = ()
    secure_cookie: bool = False
    trusted_proxy: str = ""  # addresses whose X-Forwarded-* headers are believed ("*" any); "" none
    # https://... as browsers and MCP hosts reach this server: the OAuth issuer, and /mcp under it the resource;
    # "" on a loopback address: http://host:port; elsewhere "" turns OAuth off (bearer tokens only)
    public_url: str = ""

    @field_validator("public_url")
    @classmethod
    def _base(cls, value: str) -> str:
        return _base_url(value)


class McpSettings(_Frozen):
    transport: Literal["stdio", "http"] = "stdio"
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=1, le=65535)
    user: str = "admin"
    allowed_hosts: tuple[str, ...] = ()


class PhoneSettings(_Frozen):
    """The phone channel (`concierge.web.phone`); Twilio's auth token comes from TWILIO_AUTH_TOKEN only."""

    catalog: str | None = None  # the catalog whose tools the phone offers; None: every tool the user may call
    user: str = "phone"  # the user every call acts as: its role decides the tools and rows
    staff_number: str = ""  # the number a handover dials (E.164, +81...); "" none: the call ends instead
    greeting: str = ""  # the first words of every call; "" a short greeting in the language
    handover_digit: str = Field(default="0", pattern=r"^[0-9*#]?$")  # the key that asks for a person; "" none
    public_url: str = ""  # https://... as Twilio reaches this server (behind a proxy); "" the request's own
    language: str = "ja-JP"  # the call's language for Twilio's speech (ja-JP, en-US)
    end_tool: str = "end_call"  # a successful call of this tool ends the call after its answer
    handover_tool: str = "handover"  # ... and of this one hands the call to staff_number
    discard_tool: str = "discard_order"  # called when a call ends: throws away its order not placed; "" none
    # limits of one server process (docs/phone.md): a prompt longer than this (its partial prompts together) is not
    # run, the caller is asked to say it shorter; calls at once in all and from one number; a call's length
    max_prompt_chars: int = Field(default=1000, ge=1)
    max_calls: int = Field(default=20, ge=1)
    max_calls_per_caller: int = Field(default=2, ge=1)
    max_call_s: float = Field(default=900.0, gt=0)  # 15 minutes; then the call is ended with a goodbye

    @field_validator("public_url")
    @classmethod
    def _base(cls, value: str) -> str:
        return _base_url(value)


LOOPBACK = ("127.0.0.1", "localhost", "::1")  # the names of this machine, wherever a setting or a peer may use one


def https_or_loopback(url: str) -> bool:
    """https://, or http:// to this machine: where a key or a sign-in may be fetched from."""
    parts = urlsplit(url)
    return parts.scheme == "https" or parts.scheme == "http" and parts.hostname in LOOPBACK


class EmbedSettings(_Frozen):
    """The chat embedded in the business's own web app (`concierge.web.embed`, docs/embed.md): off while `origins`
    is empty. The shared secret is read from CONCIERGE_EMBED_SECRET only, never from the file."""

    origins: tuple[str, ...] = ()  # the host app's origins (https://app.example.com) that may frame the chat
    issuer: str = ""  # the tokens' `iss`: the host app
    audience: str = "concierge"  # the tokens' `aud`
    secret: SecretStr | None = None  # HS256 tokens are checked with it
    jwks_url: str = ""  # RS256/ES256 tokens are checked with the host's keys published there
    user_claim: str = "sub"  # the claim that names the concierge user
    roles: tuple[str, ...] = ()  # the only roles a host's token may sign in (keep admin out); () any role
    max_age_s: int = Field(default=300, ge=10, le=3600)  # a token living longer than this (exp - iat) is refused
    session_s: int = Field(default=8 * 3600, ge=60, le=7 * 24 * 3600)  # how long an embedded sign-in lasts

    @field_validator("origins")
    @classmethod
    def _origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(_origin(v) for v in value))

    @field_validator("jwks_url")
    @classmethod
    def _jwks(cls, value: str) -> str:
        if value and not https_or_loopback(value):
            raise ValueError(f"{value!r}: the host's keys must come over https:// (http:// only on this machine)")
        return value


class OidcSettings(_Frozen):
    """Sign-in through the company's own OpenID Connect provider (`concierge.web.oidc`, docs/web.md): off while
    `issuer` is empty. The client secret is read from CONCIERGE_OIDC_CLIENT_SECRET only, never from the file."""

    issuer: str = ""  # the provider's issuer, exactly as its /.well-known/openid-configuration says
    client_id: str = ""  # concierge's client at the provider
    client_secret: SecretStr | None = None  # None: a public client (PKCE only)
    scopes: tuple[str, ...] = ("openid", "profile", "email")
    user_claim: str = "preferred_username"  # the claim that names the concierge user
    role_claim: str = ""  # "": the user must exist and keeps their role; else this claim gives it at each sign-in
    roles: dict[str, str] = Field(default_factory=dict)  # the claim's values -> roles; {}: the value is the role
    label: str = ""  # the button says "Sign in with {label}"; "" "your company account"
    session_s: int = Field(default=8 * 3600, ge=300, le=7 * 24 * 3600)  # how long such a sign-in lasts

    @field_validator("issuer")
    @classmethod
    def _issuer(cls, value: str) -> str:
        parts = urlsplit(value)
        if value and (not parts.hostname or parts.query or parts.fragment
                      or not https_or_loopback(value)):
            raise ValueError(f"{value!r} is not an issuer like https://login.example.com/realms/staff (https://; "
                             "http:// only on this machine)")
        return value

    @field_validator("scopes")
    @classmethod
    def _openid(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return value if "openid" in value else ("openid", *value)


def _origin(value: str) -> str:
    """``scheme://host[:port]`` as browsers write an Origin (lower case, no default port), or ValueError."""
    problem = ValueError(f"{value!r} is not an origin like https://app.example.com (scheme, host and port only, "
                         "no path and no wildcard)")
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        raise problem from None
    if (parts.scheme not in ("http", "https") or not parts.hostname or "*" in value or parts.path not in ("", "/")
            or parts.query or parts.fragment or parts.username):
        raise problem
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = 443 if parts.scheme == "https" else 80
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")


class Settings(_Frozen):
    name: str | None = None
    lang: Literal["ja", "en"] = "en"
    database: str  # a SQLAlchemy URL; a relative SQLite path is made absolute
    state_database: str | None = None  # None: concierge's own tables live in `database`
    replica_database: tuple[str, ...] = ()  # PostgreSQL streaming replicas of `database`: the read tools read there
    replica_max_lag_s: float = Field(default=5.0, gt=0)  # a replica further behind is not read (the primary is)
    catalogs: list[str]  # demo names, or absolute paths of catalog files
    today: date | None = None
    provider: ProviderSettings = ProviderSettings()
    web: WebSettings = WebSettings()
    mcp: McpSettings = McpSettings()
    phone: PhoneSettings = PhoneSettings()
    embed: EmbedSettings = EmbedSettings()
    oidc: OidcSettings = OidcSettings()
    file: Path | None = None  # the settings file read, if any
    sources: dict[str, str] = Field(default_factory=dict)

    @field_validator("today", mode="before")
    @classmethod
    def _iso_date(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{value!r} is not a date YYYY-MM-DD") from None
        return value

    @field_validator("replica_database", mode="before")
    @classmethod
    def _one_or_more(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    @field_validator("replica_database")
    @classmethod
    def _replicated(cls, value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        database = info.data.get("database")
        if value and isinstance(database, str) and database.startswith("sqlite"):
            raise ValueError("read replicas need the database on PostgreSQL (SQLite has none): set `database` to "
                             "the PostgreSQL primary (postgresql://...), or remove replica_database")
        for url in value:
            if not url.startswith(("postgres://", "postgresql://", "postgresql+")):
                raise ValueError(f"{mask_url(url)!r} is not a PostgreSQL URL; each replica is one, such as "
                                 "postgresql://USER:PASSWORD@REPLICA-HOST:5432/NAME")
        return value

    @property
    def state_url(self) -> str:
        """Where concierge's own tables are: `state_database`, else `database`."""
        return self.state_database or self.database


def keys() -> list[str]:
    """Every settings key, dotted (`web.port`), in the order `config show` prints them."""
    out = []
    for name, field in Settings.model_fields.items():
        if name in ("file", "sources"):
            continue
        section = field.annotation
        if isinstance(section, type) and issubclass(section, _Frozen):
            out += [f"{name}.{inner}" for inner in section.model_fields]
        else:
            out.append(name)
    return out


_ENV_NAMES = {"provider.name": "CONCIERGE_PROVIDER", "provider.model": "CONCIERGE_MODEL",
              "provider.base_url": "CONCIERGE_BASE_URL"}


def env_variable(key: str) -> str:
    """The environment variable of a key: CONCIERGE_WEB_PORT for web.port (the provider's are shorter)."""
    return _ENV_NAMES.get(key) or ENV_PREFIX + key.replace(".", "_").upper()


def find_file(start: Path) -> Path | None:
    """`concierge.toml` in `start` or the nearest parent folder that has one."""
    for folder in (start, *start.parents):
        candidate = folder / FILE_NAME
        if candidate.is_file():
            return candidate
    return None


def load_settings(
    flags: Mapping[str, Any] | None = None,
    *,
    config: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Settings:
    """The effective settings. `flags` maps dotted keys to the values given on the command line
    (None: not given); `config` is the --config file."""
    environ = os.environ if environ is None else environ
    cwd = Path.cwd() if cwd is None else cwd
    file, file_source = _settings_file(config, environ, cwd)
    values = {**_from_file(file), **_from_environment(environ, cwd), **_from_flags(flags or {}, cwd)}
    if "database" not in values:
        from concierge.storage.database import default_url

        values["database"] = (default_url(), "default (the embedded SQLite file)")
    if "catalogs" not in values:
        values["catalogs"] = (default_demos(), "default (the demo catalogs)")
    nested: dict[str, Any] = {}
    for key, (value, _source) in values.items():
        head, _, tail = key.partition(".")
        if tail:
            nested.setdefault(head, {})[tail] = value
        else:
            nested[key] = value
    sources = {key: values[key][1] if key in values else "default" for key in keys()}
    sources["file"] = file_source
    try:
        return Settings.model_validate({**nested, "file": file, "sources": sources})
    except ValidationError as err:
        problems = []
        for e in err.errors():
            key = ".".join(str(p) for p in e["loc"] if not isinstance(p, int))
            problems.append(f"{key}: {e['msg'].removeprefix('Value error, ')} (from {sources.get(key, 'default')})")
        raise ConfigError("bad settings: " + "; ".join(problems)) from None


Sourced = dict[str, tuple[Any, str]]  # key -> (value, where it came from)


def _from_file(file: Path | None) -> Sourced:
    if file is None:
        return {}
    return {key: (_resolve(key, value, file.parent), f"file {file}") for key, value in _read_file(file).items()}


def _from_environment(environ: Mapping[str, str], cwd: Path) -> Sourced:
    out: Sourced = {}
    for key in keys():
        variable = env_variable(key)
        if environ.get(variable) not in (None, "") or key in _BOOLS and variable in environ:
            out[key] = (_resolve(key, _from_text(key, environ[variable], variable), cwd), f"env {variable}")
    return out


def _from_flags(flags: Mapping[str, Any], cwd: Path) -> Sourced:
    out: Sourced = {}
    for key, value in flags.items():
        if key not in keys():
            raise ValueError(f"no settings key {key!r}")  # a command declares a flag for a key that does not exist
        if value is not None and value != () and value != []:
            out[key] = (_resolve(key, value, cwd), "flag")
    return out


def _settings_file(config: str | Path | None, environ: Mapping[str, str], cwd: Path) -> tuple[Path | None, str]:
    given, source = (config, "flag --config") if config else (environ.get(ENV_CONFIG) or None, f"env {ENV_CONFIG}")
    if given:
        path = (cwd / Path(given)).absolute()
        if not path.is_file():
            raise ConfigError(f"no settings file {path} (from {source}); `concierge init` writes one")
        return path, source
    found = find_file(cwd)
    if found is None:
        return None, f"none (no {FILE_NAME} in {cwd} or its parents)"
    return found.absolute(), f"found {found.absolute()}"


def _read_file(file: Path) -> dict[str, Any]:
    """The file's keys, dotted, after refusing unknown keys and secrets."""
    try:
        with file.open("rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{file}: not valid TOML: {err}") from None
    known = keys()
    sections = {k.split(".")[0] for k in known if "." in k}
    flat: dict[str, Any] = {}
    problems: list[str] = []

    def visit(table: Mapping[str, Any], prefix: str) -> None:
        for name, value in table.items():
            key = prefix + name
            if _SECRET_WORDS.search(name):
                problems.append(f"{file}: {key}: API keys and secrets are never read from the settings file; "
                                f"set them in the environment "
                                f"({env_variable(key) if key in known else ', '.join(API_KEY_VARIABLES)}) and remove "
                                "this key")
            elif not prefix and name in sections:
                if isinstance(value, dict):
                    visit(value, key + ".")
                else:
                    problems.append(f"{file}: {key}: must be a table ([{key}])")
            elif key in known:
                flat[key] = value
            else:
                near = [k for k in known if k.startswith(prefix)] if prefix else [k for k in known if "." not in k]
                extra = f"; sections: {', '.join(sorted(sections))}" if not prefix else ""
                problems.append(f"{file}: unknown key {key!r}; known keys here: {', '.join(near)}{extra}")

    visit(data, "")
    if problems:
        raise ConfigError("the settings file has problems:\n" + "\n".join(f"  - {p}" for p in problems))
    return flat


def _from_text(key: str, text: str, variable: str) -> Any:
    if key in _LISTS:
        return [part.strip() for part in text.split(",") if part.strip()]
    if key in _MAPPINGS:
        pairs = [part.partition("=") for part in text.split(",") if part.strip()]
        if any(not given.strip() or not role.strip() for given, _, role in pairs):
            raise ConfigError(f"{variable}={text!r}: expected VALUE=ROLE pairs separated by commas")
        return {given.strip(): role.strip() for given, _, role in pairs}
    if key in _BOOLS:
        if text.strip().lower() in _TRUE:
            return True
        if text.strip().lower() in _FALSE:
            return False
        raise ConfigError(f"{variable}={text!r}: expected true or false")
    return text


def _resolve(key: str, value: Any, base: Path) -> Any:
    """Relative SQLite files and catalog paths, made absolute against `base`."""
    if key in ("database", "state_database") and isinstance(value, str):
        return _absolute_sqlite(value, base, key)
    if key == "catalogs":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple):
            return value
        return [ref if not isinstance(ref, str) or ref in demos() else str(base / Path(ref).expanduser())
                for ref in value]
    return value


def _absolute_sqlite(url: str, base: Path, key: str) -> str:
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ConfigError(
            f"{key}: {url!r} is not a database URL (sqlite:///file.db, postgresql://..., mysql://...)") from None
    if parsed.get_backend_name() not in ("sqlite", "duckdb") or parsed.database in (None, "", ":memory:"):
        return url
    path = Path(parsed.database).expanduser()
    if path.is_absolute():
        return url
    return parsed.set(database=str(base / path)).render_as_string(hide_password=False)


def mask_url(url: str | None) -> str | None:
    """The URL with its password shown as ***."""
    if url is None:
        return None
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def public_part(url: str) -> str:
    """A web address as it may be shown to anyone: no user name, password or query (which may carry a key)."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, host, parts.path, "", "")) if parts.scheme else url
