"""Language knowledge shared by every layer: dates, numerals, scripts, replies; word lists under `words/`."""
