"""Beyond one machine, on Ray: builds embedded by a cluster, corpora served as shards (needs the ``ray`` extra)."""
