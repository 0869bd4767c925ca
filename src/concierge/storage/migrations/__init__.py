"""Alembic migrations of concierge's own tables (`concierge.storage.state`), run by `concierge.storage.migrate`.

Revision 0001 is the layout of the releases before versioning; each later revision is one file in
`versions/`. The version is kept in the table ``concierge_alembic_version``, so that a business
database that has its own Alembic history (``alembic_version``) can also hold concierge's tables.
"""
