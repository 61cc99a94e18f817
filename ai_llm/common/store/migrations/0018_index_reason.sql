-- The catalog key of the message a record's `index_error` holds (`files.index_no_text`, `files.index_waiting`, …):
-- `index_error` is that message in the hub's language (UI_LANGUAGE, for the log and the A2A replies), and the
-- backend says it again in each reader's own language from this key. NULL: no message, or one from before this key.
ALTER TABLE file_records ADD COLUMN IF NOT EXISTS index_reason text;
