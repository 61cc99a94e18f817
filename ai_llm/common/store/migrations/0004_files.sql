-- File-management agent: one record per stored file. The bytes live in the document store (local
-- directory or Supabase Storage) under `stored_name`; `storage_ref` is the key of its RAG chunks.
CREATE TABLE IF NOT EXISTS file_records (
    id           uuid PRIMARY KEY,
    name         text NOT NULL,
    stored_name  text NOT NULL UNIQUE,
    size         bigint NOT NULL CHECK (size >= 0),
    content_type text NOT NULL,
    sha256       text NOT NULL,
    uploaded_at  timestamptz NOT NULL DEFAULT now(),
    index_status text NOT NULL DEFAULT 'indexing'
                 CHECK (index_status IN ('indexing', 'indexed', 'skipped', 'error')),
    index_error  text,
    chunks       integer NOT NULL DEFAULT 0,
    storage_ref  text NOT NULL UNIQUE
);
-- Display names are unique (case-insensitively): a duplicate gets a " (n)" suffix, never overwrites.
CREATE UNIQUE INDEX IF NOT EXISTS file_records_name_key ON file_records (lower(name));
CREATE INDEX IF NOT EXISTS file_records_uploaded_at_idx ON file_records (uploaded_at DESC);
CREATE INDEX IF NOT EXISTS file_records_sha256_idx ON file_records (sha256);
