"""Count, filter and group: header fields as a table per corpus, a catalog as tables, guarded SQL, placeholders."""
