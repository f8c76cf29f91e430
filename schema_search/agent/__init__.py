"""What agents use: tools and their text, citations, SQL validation, read-only execution, the reference agent."""
