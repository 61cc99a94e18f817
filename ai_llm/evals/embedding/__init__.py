"""`hub bench embedding`: the embedding server's throughput against the bare model."""
