"""Before SQL runs: the checklist of what it assumes (slots, periods, probes), its verdict, and the gate that runs it only once approved."""
