"""Tools that call web APIs: the `kind: http` sources and tools of a catalog (docs/catalog.md).

- `settings`: a source's values read from the environment (`${NAME}`), kept apart from the catalog model;
- `auth`: the headers of each authentication kind (bearer, header, switchbot);
- `request`: a tool's request built from its typed arguments;
- `answer`: rows, one object and columns out of a JSON answer; the status mapping;
- `client`: sending a request (timeouts and connection errors as `ServiceError`);
- `enums`: enum values read from a service, cached for their ttl;
- `caller`: `HttpCaller`, what the pipeline calls for an http tool.
"""

from concierge.services.caller import Call, HttpCaller
from concierge.services.client import ServiceError
from concierge.services.settings import ResolvedSource, resolve_sources

__all__ = ["Call", "HttpCaller", "ResolvedSource", "ServiceError", "resolve_sources"]
