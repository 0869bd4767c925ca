"""Where a tool runs: one executor per kind of source (`sql`, `http`), found through `executors`."""
