"""The `kind: sql` sources: a tool's parameterised SQL, bound and run on the business database."""
