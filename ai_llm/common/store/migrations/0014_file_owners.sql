-- Every stored file has an owner (a user id; NULL for files the service credential stored) and a visibility:
-- private, team:<name> or everyone (ai_llm/common/identity.py). Files stored before this column are everyone's.
ALTER TABLE file_records ADD COLUMN IF NOT EXISTS owner_id text;
ALTER TABLE file_records ADD COLUMN IF NOT EXISTS visibility text NOT NULL DEFAULT 'everyone';
