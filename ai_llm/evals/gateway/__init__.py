"""`hub bench gateway`: the search gateway's cache, depth and query-pair benchmarks."""
