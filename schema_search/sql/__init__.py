"""SQL an agent wrote, judged before anything runs it: one read-only query, names the catalog holds, built-in functions."""
