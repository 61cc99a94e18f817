-- Internal-RAG document chunks: one row per chunk, pages it spans, embedding, Korean-friendly tokens.
-- `tokens` holds ai_llm.common.text.tokenize(content) joined by spaces (English words + Hangul bigrams), so
-- the 'simple' full-text configuration finds Korean written without spaces.
CREATE TABLE IF NOT EXISTS document_chunks (
    id           bigserial PRIMARY KEY,
    storage_ref  text        NOT NULL,
    chunk_index  integer     NOT NULL,
    file_name    text        NOT NULL DEFAULT '',
    file_id      text,
    file_url     text,
    content      text        NOT NULL,
    pages        integer[]   NOT NULL DEFAULT '{}',
    tokens       text        NOT NULL DEFAULT '',
    fts          tsvector    GENERATED ALWAYS AS (to_tsvector('simple', tokens)) STORED,
    embedding    vector({{EMBEDDING_DIM}}) NOT NULL,
    content_hash text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (storage_ref, chunk_index)
);

CREATE INDEX IF NOT EXISTS document_chunks_embedding_hnsw
    ON document_chunks USING hnsw (embedding vector_cosine_ops);
CREATE INDEX IF NOT EXISTS document_chunks_fts_gin ON document_chunks USING gin (fts);

-- Vector search: the contract a Supabase project serves through RPC (`rpc("match_documents")`).
CREATE OR REPLACE FUNCTION match_documents(query_embedding vector, match_threshold float, match_count int)
RETURNS TABLE (id bigint, storage_ref text, chunk_index integer, file_name text, file_id text, file_url text,
               content text, pages integer[], similarity float)
LANGUAGE sql STABLE AS $$
    SELECT c.id, c.storage_ref, c.chunk_index, c.file_name, c.file_id, c.file_url, c.content, c.pages,
           (1 - (c.embedding <=> query_embedding))::float AS similarity
    FROM document_chunks c
    WHERE 1 - (c.embedding <=> query_embedding) > match_threshold
    ORDER BY c.embedding <=> query_embedding
    LIMIT match_count;
$$;

-- Keyword search over the token column: OR of the query tokens, ranked by ts_rank (length-normalised).
CREATE OR REPLACE FUNCTION keyword_match_documents(query_tokens text, match_count int)
RETURNS TABLE (id bigint, storage_ref text, chunk_index integer, file_name text, file_id text, file_url text,
               content text, pages integer[], rank float)
LANGUAGE sql STABLE AS $$
    WITH q AS (
        SELECT string_agg(DISTINCT plainto_tsquery('simple', t)::text, ' | ') AS expr
        FROM unnest(string_to_array(query_tokens, ' ')) AS t
        WHERE plainto_tsquery('simple', t)::text <> ''
    )
    SELECT c.id, c.storage_ref, c.chunk_index, c.file_name, c.file_id, c.file_url, c.content, c.pages,
           ts_rank(c.fts, q.expr::tsquery, 1)::float AS rank
    FROM document_chunks c, q
    WHERE q.expr IS NOT NULL AND c.fts @@ q.expr::tsquery
    ORDER BY rank DESC, c.id
    LIMIT match_count;
$$;

-- Write side for clients that only speak RPC (Supabase): each call is one transaction.
CREATE OR REPLACE FUNCTION replace_document_chunks(p_storage_ref text, p_chunks jsonb)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE inserted integer;
BEGIN
    DELETE FROM document_chunks WHERE storage_ref = p_storage_ref;
    INSERT INTO document_chunks (storage_ref, chunk_index, file_name, file_id, file_url, content, pages, tokens,
                                 embedding, content_hash)
    SELECT p_storage_ref, r.chunk_index, coalesce(r.file_name, ''), r.file_id, r.file_url, r.content,
           coalesce(r.pages, '{}'), coalesce(r.tokens, ''), r.embedding::vector, r.content_hash
    FROM jsonb_to_recordset(p_chunks) AS r(chunk_index integer, file_name text, file_id text, file_url text,
                                           content text, pages integer[], tokens text, embedding text,
                                           content_hash text);
    GET DIAGNOSTICS inserted = ROW_COUNT;
    RETURN inserted;
END;
$$;

CREATE OR REPLACE FUNCTION delete_document_chunks(p_storage_ref text)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE deleted integer;
BEGIN
    DELETE FROM document_chunks WHERE storage_ref = p_storage_ref;
    GET DIAGNOSTICS deleted = ROW_COUNT;
    RETURN deleted;
END;
$$;

CREATE OR REPLACE FUNCTION update_document_meta(p_storage_ref text, p_file_name text, p_file_url text)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE updated integer;
BEGIN
    UPDATE document_chunks
       SET file_name = coalesce(p_file_name, file_name), file_url = coalesce(p_file_url, file_url),
           updated_at = now()
     WHERE storage_ref = p_storage_ref;
    GET DIAGNOSTICS updated = ROW_COUNT;
    RETURN updated;
END;
$$;

CREATE OR REPLACE FUNCTION document_content_hash(p_storage_ref text)
RETURNS text LANGUAGE sql STABLE AS $$
    SELECT content_hash FROM document_chunks WHERE storage_ref = p_storage_ref ORDER BY chunk_index LIMIT 1;
$$;
