"""The chat page for staff: sign-in, streamed answers, tables, charts, confirmed writes."""

from concierge.web.app import create_app

__all__ = ["create_app"]
