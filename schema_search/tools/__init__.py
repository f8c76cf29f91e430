"""What agents are handed and the text they read: table, document, collection and execute tools, citations, fences."""
