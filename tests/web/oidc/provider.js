// A real OpenID Connect provider for tests/web/test_web_oidc.py: the certified oidc-provider on 127.0.0.1, with its
// own sign-in pages (any password), one client (concierge) and a few accounts with a `groups` claim.
//
//   node provider.js PORT MIXUP_PORT REDIRECT_URI...
//
// MIXUP_PORT serves a discovery document that names itself as the issuer but sends everything else to the real
// provider: the ID tokens a concierge configured with that issuer gets are from another issuer. Once both listen it
// prints one line of JSON: {"issuer": ..., "mixup": ...}.
import http from "node:http";

import Provider from "oidc-provider";

const [port, mixupPort, ...redirects] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const mixup = `http://127.0.0.1:${mixupPort}`;

const ACCOUNTS = {
  tanaka: { name: "Tanaka Hanako", groups: ["everyone", "farm-sales"] },
  suzuki: { name: "Suzuki Ichiro", groups: ["everyone", "farm-readers"] },
  sato: { name: "Sato Jiro", groups: ["everyone", "farm-sales"] },
  visitor: { name: "A Visitor", groups: ["everyone"] },
};

const provider = new Provider(issuer, {
  clients: [{
    client_id: "concierge",
    client_secret: "concierge-test-client-secret",
    redirect_uris: redirects,
    response_types: ["code"],
    grant_types: ["authorization_code"],
    token_endpoint_auth_method: "client_secret_basic",
  }],
  claims: { openid: ["sub"], profile: ["name", "preferred_username", "groups"], email: ["email", "email_verified"] },
  cookies: { keys: ["oidc-test-cookie-key"] },
  async findAccount(ctx, id) {
    const known = ACCOUNTS[id] || { name: id, groups: [] };
    return {
      accountId: id,
      async claims() {
        return { sub: `sub-${id}`, preferred_username: id, name: known.name, groups: known.groups,
          email: `${id}@example.com`, email_verified: true };
      },
    };
  },
});

const listening = (server, at) => new Promise((resolve) => server.listen(Number(at), "127.0.0.1", resolve));

const mixupServer = http.createServer(async (req, res) => {
  if (req.url !== "/.well-known/openid-configuration") {
    res.writeHead(404).end();
    return;
  }
  const real = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
  res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ ...real, issuer: mixup }));
});

await Promise.all([listening(http.createServer(provider.callback()), port),
  listening(mixupServer, mixupPort)]);
console.log(JSON.stringify({ issuer, mixup }));
