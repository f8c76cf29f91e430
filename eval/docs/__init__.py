"""The documents eval: page recall of our corpus search next to peers, on committed question sets."""
