"""Storage: the Postgres pool and migrations, the conversation store, JSONL helpers."""
