"""Databases: connections (`database`), concierge's own state tables, their migrations, and what lives there."""
