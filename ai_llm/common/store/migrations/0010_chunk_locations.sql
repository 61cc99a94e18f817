-- Where a chunk is, as a person finds it: {"kind": "page"|"slide"|"sheet"|"heading", page|slide|sheet+rows|heading}
-- (ai_llm/internal_rag_agent/formats/structure.py). NULL for chunks indexed before this column: their `pages`
-- still locate them. The search functions return it, so they are recreated.
ALTER TABLE document_chunks ADD COLUMN IF NOT EXISTS location jsonb;

DROP FUNCTION IF EXISTS match_documents(vector, float, int);
CREATE FUNCTION match_documents(query_embedding vector, match_threshold float, match_count int)
RETURNS TABLE (id bigint, storage_ref text, chunk_index integer, file_name text, file_id text, file_url text,
               content text, pages integer[], similarity float, source_kind text, location jsonb)
LANGUAGE sql STABLE AS $$
    SELECT c.id, c.storage_ref, c.chunk_index, c.file_name, c.file_id, c.file_url, c.content, c.pages,
           (1 - (c.embedding <=> query_embedding))::float AS similarity, c.source_kind, c.location
    FROM document_chunks c
    WHERE 1 - (c.embedding <=> query_embedding) > match_threshold
    ORDER BY c.embedding <=> query_embedding
    LIMIT match_count;
$$;

DROP FUNCTION IF EXISTS term_match_documents(text[], int);
CREATE FUNCTION term_match_documents(p_terms text[], per_term int)
RETURNS TABLE (id bigint, storage_ref text, chunk_index integer, file_name text, file_id text, file_url text,
               content text, pages integer[], tokens text, rank float, source_kind text, location jsonb)
LANGUAGE sql STABLE AS $$
    SELECT DISTINCT ON (m.id) m.id, m.storage_ref, m.chunk_index, m.file_name, m.file_id, m.file_url, m.content,
           m.pages, m.tokens, m.rank, m.source_kind, m.location
    FROM unnest(p_terms) AS t,
    LATERAL (
        SELECT c.id, c.storage_ref, c.chunk_index, c.file_name, c.file_id, c.file_url, c.content, c.pages, c.tokens,
               ts_rank(c.fts, plainto_tsquery('simple', t))::float AS rank, c.source_kind, c.location
        FROM document_chunks c
        WHERE plainto_tsquery('simple', t)::text <> '' AND c.fts @@ plainto_tsquery('simple', t)
        ORDER BY rank DESC, c.id
        LIMIT per_term
    ) m
    ORDER BY m.id, m.rank DESC;
$$;

CREATE OR REPLACE FUNCTION replace_document_chunks(p_storage_ref text, p_chunks jsonb)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE inserted integer;
BEGIN
    DELETE FROM document_chunks WHERE storage_ref = p_storage_ref;
    INSERT INTO document_chunks (storage_ref, chunk_index, file_name, file_id, file_url, content, pages, tokens,
                                 embedding, content_hash, analysis_version, source_kind, location)
    SELECT p_storage_ref, r.chunk_index, coalesce(r.file_name, ''), r.file_id, r.file_url, r.content,
           coalesce(r.pages, '{}'), coalesce(r.tokens, ''), r.embedding::vector, r.content_hash,
           coalesce(r.analysis_version, '1'), coalesce(r.source_kind, 'upload'), r.location
    FROM jsonb_to_recordset(p_chunks) AS r(chunk_index integer, file_name text, file_id text, file_url text,
                                           content text, pages integer[], tokens text, embedding text,
                                           content_hash text, analysis_version text, source_kind text,
                                           location jsonb);
    GET DIAGNOSTICS inserted = ROW_COUNT;
    RETURN inserted;
END;
$$;
