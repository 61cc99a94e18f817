-- A file record may hold its document in more than one format: the record's own bytes (`stored_name`) are what
-- the viewer shows and what is indexed; `alternates` lists the same document in other formats, each stored beside
-- it in the document store (a report: Markdown, with its DOCX as an alternate). An entry is
-- {"format": "docx", "stored_name": "<hex id>.docx", "content_type": …, "size": …, "sha256": …}; it is served by
-- `GET /files/{id}/content?format=docx`, has the record's owner and visibility, and is deleted with the record.
ALTER TABLE file_records ADD COLUMN IF NOT EXISTS alternates jsonb NOT NULL DEFAULT '[]'::jsonb;

-- Tries in a row that the RAG agent could not finish for a reason that passes (the agent or its database away),
-- kept in the record so a restart of the file agent or of Postgres continues the count instead of restarting it;
-- a result (indexed, skipped, a verdict on the document) or a person's request to index sets it back to 0.
ALTER TABLE file_records ADD COLUMN IF NOT EXISTS index_attempts integer NOT NULL DEFAULT 0;

-- `not_indexed`: a file deliberately kept out of the index (a report, until its person adds it to the documents).
ALTER TABLE file_records DROP CONSTRAINT IF EXISTS file_records_index_status_check;
ALTER TABLE file_records ADD CONSTRAINT file_records_index_status_check
    CHECK (index_status IN ('indexing', 'indexed', 'skipped', 'error', 'not_indexed'));

-- Reports saved before this migration said `skipped` with a fixed English reason.
UPDATE file_records SET index_status = 'not_indexed', index_error = NULL
WHERE source_kind = 'report' AND index_status = 'skipped' AND index_error LIKE 'a report of the hub:%';

-- Files an earlier version left `error` because the RAG agent or the store could not be reached (its record
-- showed "indexing failed: <the error's text>") are queued again, as one try already made.
UPDATE file_records SET index_status = 'indexing', index_error = NULL, index_attempts = 1
WHERE index_status = 'error' AND index_error LIKE 'indexing failed: %';
