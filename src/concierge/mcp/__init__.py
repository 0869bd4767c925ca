"""The catalogs served to MCP hosts, as a thin adapter over `Pipeline.invoke`.

- `server`: the SDK's low-level server: tools, calls, resources, and who the caller is;
- `tools`: a catalog tool as an MCP tool declaration, and a result as an MCP tool result;
- `resources`: each catalog and each tool's valid values, for a host to show;
- `apps`: MCP Apps: the result view (table, chart, confirmation card) for a host that negotiated it;
- `stdio`: newline-delimited JSON-RPC on stdin/stdout that answers every bad frame;
- `http`: streamable HTTP with bearer tokens, standalone or inside another ASGI app;
- `config`: what a host needs to start this installation's server.
"""
