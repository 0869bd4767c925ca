"""A first catalog drafted from what a database says about itself (`onboarding.introspect`). Never a write tool.

Per table or view, a read tool with optional filters (`read_tool`, `filters`, `conditions`); where a table
has a date or something to group by, a summary that counts and sums by a chosen group (`summary_tool`,
`groups`), through the rows its foreign keys reach (`paths`); the planner's keywords (`intents`) and the
labels of every figure in words (`labels`), in English and Japanese. `catalog` puts the tools of a schema
together; `writing` writes the file without losing a person's edits.

Any name the database has is named in the SQL as its dialect quotes it (`columns.Dialect.q`): a space, a
quote, ``%(x)s``, a colon, any script, a reserved word. A column whose name is not a plain SQL word
(``a b``, ``it's``, ``名前``) keeps it in the labels and is given one in words in the result (``t."a b" AS
a_b``). On SQLite a name with a colon that begins a word (``a :b``) cannot be written without being read
as a parameter: such a table or column is left out, and the draft's header says so. No identifier is ever
taken from a parameter. Every text drafted is listed in the catalog's `review:` list, so `concierge
catalog check` can tell a person what to read.
"""

from concierge.onboarding.draft.catalog import Draft, draft_catalog
from concierge.onboarding.draft.filters import REF_ENUM_ROWS
from concierge.onboarding.draft.writing import HEADER, Written, edited, with_header, write_draft

__all__ = ["HEADER", "REF_ENUM_ROWS", "Draft", "Written", "draft_catalog", "edited", "with_header", "write_draft"]
