-- Term search for BM25 scoring: `tokens` now holds the terms of ai_llm.common.text_analysis (English stems,
-- identifiers, Korean morphemes from Kiwi), space-joined in reading order. The caller scores candidates with
-- BM25 from the statistics below (Postgres' ts_rank has no inverse document frequency, and rare exact terms
-- must win). Chunks indexed before this migration keep their old tokens until `hub reindex` re-analyses them.
ALTER TABLE document_chunks
    ADD COLUMN IF NOT EXISTS token_count integer
        GENERATED ALWAYS AS (coalesce(array_length(string_to_array(nullif(tokens, ''), ' '), 1), 0)) STORED;
ALTER TABLE document_chunks ADD COLUMN IF NOT EXISTS analysis_version text NOT NULL DEFAULT '1';
-- Where a document came from: a person's upload (`upload`) or a report the hub wrote (`report`); retrieval
-- ranks originals above the hub's own reports, so a report never becomes the source of its own answer.
ALTER TABLE document_chunks ADD COLUMN IF NOT EXISTS source_kind text NOT NULL DEFAULT 'upload';

-- The bigram-era keyword function is replaced by term search.
DROP FUNCTION IF EXISTS keyword_match_documents(text, int);

-- Document frequency of each term, the chunk count and the mean chunk length in terms (BM25's statistics).
CREATE OR REPLACE FUNCTION term_statistics(p_terms text[])
RETURNS TABLE (term text, df bigint, n bigint, avgdl float)
LANGUAGE sql STABLE AS $$
    WITH corpus AS (SELECT count(*) AS n, coalesce(avg(token_count), 0)::float AS avgdl FROM document_chunks)
    SELECT t, (SELECT count(*) FROM document_chunks c
               WHERE plainto_tsquery('simple', t)::text <> '' AND c.fts @@ plainto_tsquery('simple', t)),
           corpus.n, corpus.avgdl
    FROM unnest(p_terms) AS t, corpus;
$$;

-- Vector search also returns the source kind (a new column, so the function is recreated).
DROP FUNCTION IF EXISTS match_documents(vector, float, int);
CREATE FUNCTION match_documents(query_embedding vector, match_threshold float, match_count int)
RETURNS TABLE (id bigint, storage_ref text, chunk_index integer, file_name text, file_id text, file_url text,
               content text, pages integer[], similarity float, source_kind text)
LANGUAGE sql STABLE AS $$
    SELECT c.id, c.storage_ref, c.chunk_index, c.file_name, c.file_id, c.file_url, c.content, c.pages,
           (1 - (c.embedding <=> query_embedding))::float AS similarity, c.source_kind
    FROM document_chunks c
    WHERE 1 - (c.embedding <=> query_embedding) > match_threshold
    ORDER BY c.embedding <=> query_embedding
    LIMIT match_count;
$$;

-- Candidates: for each term, the chunks holding it (best ts_rank first, at most `per_term`), merged.
CREATE OR REPLACE FUNCTION term_match_documents(p_terms text[], per_term int)
RETURNS TABLE (id bigint, storage_ref text, chunk_index integer, file_name text, file_id text, file_url text,
               content text, pages integer[], tokens text, rank float, source_kind text)
LANGUAGE sql STABLE AS $$
    SELECT DISTINCT ON (m.id) m.id, m.storage_ref, m.chunk_index, m.file_name, m.file_id, m.file_url, m.content,
           m.pages, m.tokens, m.rank, m.source_kind
    FROM unnest(p_terms) AS t,
    LATERAL (
        SELECT c.id, c.storage_ref, c.chunk_index, c.file_name, c.file_id, c.file_url, c.content, c.pages, c.tokens,
               ts_rank(c.fts, plainto_tsquery('simple', t))::float AS rank, c.source_kind
        FROM document_chunks c
        WHERE plainto_tsquery('simple', t)::text <> '' AND c.fts @@ plainto_tsquery('simple', t)
        ORDER BY rank DESC, c.id
        LIMIT per_term
    ) m
    ORDER BY m.id, m.rank DESC;
$$;

-- The RPC write path records the analysis version and the source kind too.
CREATE OR REPLACE FUNCTION replace_document_chunks(p_storage_ref text, p_chunks jsonb)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE inserted integer;
BEGIN
    DELETE FROM document_chunks WHERE storage_ref = p_storage_ref;
    INSERT INTO document_chunks (storage_ref, chunk_index, file_name, file_id, file_url, content, pages, tokens,
                                 embedding, content_hash, analysis_version, source_kind)
    SELECT p_storage_ref, r.chunk_index, coalesce(r.file_name, ''), r.file_id, r.file_url, r.content,
           coalesce(r.pages, '{}'), coalesce(r.tokens, ''), r.embedding::vector, r.content_hash,
           coalesce(r.analysis_version, '1'), coalesce(r.source_kind, 'upload')
    FROM jsonb_to_recordset(p_chunks) AS r(chunk_index integer, file_name text, file_id text, file_url text,
                                           content text, pages integer[], tokens text, embedding text,
                                           content_hash text, analysis_version text, source_kind text);
    GET DIAGNOSTICS inserted = ROW_COUNT;
    RETURN inserted;
END;
$$;
