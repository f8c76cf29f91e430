"""Documents: readers per format, chunking, chunk documents, corpus search with citable source IDs."""
