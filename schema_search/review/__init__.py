"""The review queue: answers that rested on public sources, rewritten for a reviewer, approved into a corpus."""
