"""The catalog: tools declared in files, their model (`model`), loading and checking (`loader`)."""
