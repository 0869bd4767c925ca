"""`concierge serve`: the chat page, its API and the MCP endpoint, in one process."""

from __future__ import annotations

import click

from concierge.cli.options import database_option, open_pipeline, provider_options, today_option
from concierge.errors import ConfigError
from concierge.storage import passwords


def register(main: click.Group) -> None:
    main.add_command(serve)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on.")
@click.option("--catalog", "catalogs", multiple=True, default=("farm", "pos"), show_default=True,
              help="farm, pos, or the path of a catalog YAML file (repeat for several).")
@database_option
@provider_options
@today_option
def serve(host: str, port: int, catalogs: tuple[str, ...], database: str | None, provider: str,
          model: str | None, base_url: str | None, today) -> None:
    """Serve the chat page for staff, its JSON/SSE API, and MCP (streamable HTTP) at /mcp.

    The embedded default database gets the demo data on first use; demo users without a password
    get one, printed here once.
    """
    try:
        import uvicorn

        from concierge.web import create_app
    except ImportError as err:
        raise ConfigError(f"the web server needs {err.name}: pip install 'concierge[web]'") from None

    pipeline = open_pipeline(catalogs, database, today)
    try:
        new = passwords.generate_passwords(pipeline.db, pipeline.demo_users())
        if new:
            click.echo(passwords.describe(new))
        app = create_app(pipeline, provider, model=model, base_url=base_url, host=host)
        shown = f"[{host}]" if ":" in host else host
        click.echo(f"concierge: open http://{shown}:{port}/ (provider {provider}; {pipeline.db}); "
                   f"MCP at http://{shown}:{port}/mcp; Ctrl+C stops")
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        pipeline.close()
