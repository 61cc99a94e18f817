"""`hub eval rag` (page recall, evidence and no-answer handling on real PDFs) and `hub bench rag` (indexing
throughput, batched insert, multi-query latency, HNSW vs exact scan), each in a temporary RAG stack
(`evaluation.rag_environment`)."""
