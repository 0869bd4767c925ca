"""The `kind: http` sources: tools that call a web API (docs/catalog.md, "Sources").

- `credentials`: the headers of each authentication kind (bearer, header, switchbot);
- `switchbot`: the SwitchBot API's request signature and status codes;
- `request`: a tool's request built from its typed arguments;
- `answer`: rows, one object and columns out of a JSON answer; the status mapping;
- `client`: sending a request (timeouts and connection errors as `ServiceError`);
- `enums`: enum values read from a service, cached for their ttl;
- `caller`: `HttpCaller`, what the http executor calls.

What a catalog file may declare of them is checked by the catalog (`catalog.http_checks`), and their
`${NAME}` settings are read there (`catalog.secrets`).
"""

from concierge.sources.http.caller import Call, HttpCaller
from concierge.sources.http.client import ServiceError

__all__ = ["Call", "HttpCaller", "ServiceError"]
