// The TypeScript SDK's client against a concierge HTTP server.
//
//   node ts_client.mjs URL TOKEN CALLS_JSON
//
// CALLS_JSON is a list of {"name", "arguments", "confirm": true?}; with
// "confirm" the call adds the confirmation_token of the latest preview.
// Prints one JSON object: the protocol version, the tool names, every result.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, callsJson] = process.argv.slice(2);
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
const client = new Client({ name: "concierge-interop", version: "1.0.0" });

try {
  await client.connect(transport);
  const tools = (await client.listTools()).tools;
  const results = [];
  let token = null;
  for (const call of JSON.parse(callsJson)) {
    const args = { ...call.arguments };
    if (call.confirm) args.confirmation_token = token;
    const result = await client.callTool({ name: call.name, arguments: args });
    token = result.structuredContent?.confirmation_token ?? token;
    results.push(result);
  }
  const out = { protocolVersion: transport.protocolVersion, tools: tools.map((t) => t.name), results };
  process.stdout.write(JSON.stringify(out) + "\n");
  await client.close();
} catch (error) {
  process.stdout.write(JSON.stringify({ error: String(error) }) + "\n");
  process.exitCode = 1;
}
