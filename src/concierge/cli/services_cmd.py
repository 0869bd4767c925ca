"""`concierge services ...`: the web APIs of the catalogs (`kind: http` sources).

`services authorize SOURCE` gives concierge access to an `oauth2_authorization_code` source once: it shows the
service's consent page in the browser (PKCE, a loopback redirect on 127.0.0.1) and keeps the refresh token sealed
in the state database, where the server reads it. Run it again when the access was revoked.
"""

from __future__ import annotations

import click

from concierge.cli.options import catalog_option, current_settings, open_state, state_options
from concierge.errors import ConciergeError


def register(main: click.Group) -> None:
    main.add_command(services)


@click.group()
def services() -> None:
    """The web APIs of the catalogs (`kind: http` sources)."""


@services.command("authorize")
@click.argument("source")
@click.option("--no-browser", is_flag=True, help="Only print the address to open; do not start a browser.")
@click.option("--timeout", default=300, show_default=True, type=click.IntRange(1, 3600),
              help="Seconds to wait for the consent in the browser.")
@catalog_option
@state_options
def services_authorize(source: str, no_browser: bool, timeout: int) -> None:
    """Give concierge access to SOURCE (`auth: {kind: oauth2_authorization_code}`) in the browser, once."""
    import webbrowser

    from concierge.catalog.loader import load_catalogs
    from concierge.sources.http.authorize import authorize
    from concierge.sources.http.oauth2 import TokenError
    from concierge.storage.source_grants import GrantStore

    settings = current_settings()
    found = [c.sources[source] for c in load_catalogs(settings.catalogs) if source in c.sources]
    if not found or found[0].auth is None or found[0].auth.kind != "oauth2_authorization_code":
        raise ConciergeError(f"no http source {source!r} with auth kind oauth2_authorization_code in the catalogs")

    def show(url: str) -> None:
        click.echo(f"Open this address to give concierge access to {source}:\n{url}", err=True)
        if not no_browser:
            webbrowser.open(url)

    with open_state(settings) as db:
        try:
            done = authorize(found[0], GrantStore(db), show, timeout=timeout)
        except TokenError as err:
            raise ConciergeError(str(err)) from None
    click.echo(f"concierge has access to {done.source}" + (f" (scope: {done.scope})." if done.scope else "."))
