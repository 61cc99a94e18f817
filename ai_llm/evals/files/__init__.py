"""`hub eval files` (file-instruction accuracy) and `hub bench files` (upload throughput)."""
