"""Read-only execution: a database URL's target, the engines in the sandbox's child, PostgreSQL's role check, and the run."""
