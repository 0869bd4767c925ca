"""`concierge serve`: the chat page, its API and the MCP endpoint, in one process."""

from __future__ import annotations

import os

import click

from concierge.cli.audit_cmd import describe_unknown
from concierge.cli.options import current_settings, data_options, open_pipeline, provider_options, setting_option
from concierge.demo import bootstrap
from concierge.errors import ConfigError, UnknownUser
from concierge.pipeline import audit
from concierge.pipeline.pipeline import Pipeline
from concierge.settings import LOOPBACK, PhoneSettings
from concierge.storage import passwords


def register(main: click.Group) -> None:
    main.add_command(serve)


@click.command()
@setting_option("--host", key="web.host", help="Address to listen on. Default: the settings' web.host, else 127.0.0.1.")
@setting_option("--port", key="web.port", type=click.IntRange(0, 65535),
                help="Port to listen on. Default: the settings' web.port, else 8000.")
@setting_option("--allowed-host", key="web.allowed_hosts", multiple=True,
                help="A host name clients use to reach /mcp besides the listening address (repeat for several).")
@setting_option("--secure-cookie/--no-secure-cookie", key="web.secure_cookie",
                help="Send the session cookie only over HTTPS (behind an HTTPS proxy). Default: off.")
@setting_option("--trusted-proxy", key="web.trusted_proxy",
                help="Addresses or networks of a reverse proxy whose X-Forwarded-For/-Proto/-Host headers are "
                "believed (comma-separated, * any). Default: none.")
@data_options
@provider_options
def serve() -> None:
    """Serve the chat page for staff, its JSON/SSE API, and MCP (streamable HTTP) at /mcp.

    The embedded default database gets the demo data on first use; demo users without a password
    get one, printed here once.
    """
    try:
        import uvicorn

        from concierge.web import create_app
        from concierge.web.phone.gate import MAX_MESSAGE_BYTES
        from concierge.web.proxy import parse_trusted
    except ImportError as err:
        raise ConfigError(f"the web server needs {err.name}: pip install 'concierge[web]'") from None

    settings = current_settings()
    web, provider = settings.web, settings.provider
    try:
        parse_trusted(web.trusted_proxy)
    except ValueError as err:
        raise ConfigError(f"{err} (from {settings.sources['web.trusted_proxy']})") from None
    pipeline = open_pipeline(settings)
    phone = _phone(settings.phone)
    try:
        unknown = audit.reconcile(pipeline.state)
        if unknown:
            click.echo(describe_unknown(unknown))
        new = passwords.generate_passwords(pipeline.state, bootstrap.demo_users(pipeline.catalogs))
        if new:
            click.echo(passwords.describe(new))
        shown = f"[{web.host}]" if ":" in web.host else web.host
        public_url = web.public_url or (f"http://{shown}:{web.port}" if web.host in LOOPBACK else "")
        app = create_app(pipeline, provider.name, model=provider.model, base_url=provider.base_url, host=web.host,
                         allowed_hosts=web.allowed_hosts, secure_cookie=web.secure_cookie,
                         trusted_proxy=web.trusted_proxy, phone=phone, public_url=public_url,
                         embed=settings.embed, oidc=settings.oidc)
        click.echo(f"concierge: open http://{shown}:{web.port}/ (provider {provider.name}; {pipeline.db}); "
                   f"MCP at http://{shown}:{web.port}/mcp; Ctrl+C stops")
        click.echo(f"MCP hosts that sign in with OAuth (Claude, ChatGPT): add {public_url}/mcp" if public_url else
                   "OAuth for MCP hosts is off: set web.public_url to the https:// address they reach (docs/mcp.md)")
        if settings.embed.origins:
            click.echo(f"embedded chat: <concierge-chat> in pages of {', '.join(settings.embed.origins)} "
                       f"(script http://{shown}:{web.port}/embed.js; docs/embed.md)")
        if settings.oidc.issuer:
            callback = f"{public_url}/auth/oidc/callback" if public_url else \
                "/auth/oidc/callback under the address browsers reach (web.public_url)"
            click.echo(f"sign-in with the company's account: {settings.oidc.issuer} (register the redirect URI "
                       f"{callback} for client {settings.oidc.client_id}; docs/web.md)")
        if phone is not None:
            click.echo(_phone_line(pipeline, phone, phone.public_url or f"http://{shown}:{web.port}"))
        # X-Forwarded-* are the app's to read (concierge.web.proxy, from web.trusted_proxy only), not uvicorn's
        # the phone relay's messages are small: a larger frame is refused before it is read (one byte over the
        # relay's own limit, so that the relay is the one that says why it closes)
        uvicorn.run(app, host=web.host, port=web.port, log_level="warning", proxy_headers=False,
                    ws_max_size=MAX_MESSAGE_BYTES + 1)
    finally:
        pipeline.close()


def _phone_line(pipeline: Pipeline, phone: PhoneSettings, base: str) -> str:
    """Where Twilio calls in, and, as sentences, what would keep a call from being taken and how to fix it."""
    blocked = []
    try:
        pipeline.user(phone.user)
    except UnknownUser:
        blocked.append(f"No user named {phone.user!r} (the setting phone.user) answers the calls. Add one with "
                       f"`concierge user add {phone.user} --role ROLE`, or serve a catalog that has phone users "
                       "(--catalog restaurant).")
    if not os.environ.get("TWILIO_AUTH_TOKEN"):
        blocked.append("TWILIO_AUTH_TOKEN is not set, so every phone request is refused. Set it to your Twilio "
                       "account's auth token.")
    line = f"phone: Twilio webhook POST {base}/phone/twiml (docs/phone.md)."
    if not blocked:
        return line
    return "\n".join([f"{line} Calls are refused for now:", *(f"  - {reason}" for reason in blocked)])


def _phone(phone: PhoneSettings) -> PhoneSettings | None:
    """The phone channel's settings when the `twilio` package is installed, else None (no /phone)."""
    try:
        import twilio  # noqa: F401
    except ImportError:
        return None
    return phone
