"""The one path of every call: access → guard → execute (through `concierge.sources`) → shape → audit."""
