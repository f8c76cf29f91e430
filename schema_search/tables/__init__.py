"""Tables: the Catalog model, table documents, join-graph stages, candidates, DDL rendering, diagnose."""
