-- The embedding of every line of a chunk, computed once when the chunk is indexed (float16, one row of the
-- model's dimension per non-empty line, in order). The RAG agent weighs candidate sentences by their similarity
-- to the question; with the vectors stored, a question no longer sends its 20-odd candidate lines to the
-- embedding server. NULL (chunks indexed before this column, or by the Supabase adapter): computed per question.
ALTER TABLE document_chunks ADD COLUMN IF NOT EXISTS line_vectors bytea;
