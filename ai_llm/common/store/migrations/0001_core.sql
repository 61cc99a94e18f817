-- Core: pgvector. schema_migrations and hub_meta (embedding model + dimension) are created by the runner.
CREATE EXTENSION IF NOT EXISTS vector;
