-- The quoted passages of an answer (text, file, location), kept with the turn so a reopened conversation
-- can still open each quote in the document viewer.
ALTER TABLE messages ADD COLUMN IF NOT EXISTS quotes jsonb NOT NULL DEFAULT '[]';
