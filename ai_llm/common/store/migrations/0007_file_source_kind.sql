-- What a stored file is: `upload` (a person's document) or `report` (written by the hub's report agent from
-- earlier answers). The kind travels to the RAG index call (`documents[].source_kind`), so retrieval can rank
-- original documents above the hub's own reports and never cite a report as the source of its own answer.
ALTER TABLE file_records ADD COLUMN IF NOT EXISTS source_kind text NOT NULL DEFAULT 'upload';
DO $$
BEGIN
    ALTER TABLE file_records ADD CONSTRAINT file_records_source_kind_check CHECK (source_kind IN ('upload', 'report'));
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
