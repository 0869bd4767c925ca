"""Bringing a company's own database: introspect it, draft a catalog, write the settings (`concierge init`)."""
