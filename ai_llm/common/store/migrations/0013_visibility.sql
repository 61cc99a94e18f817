-- Who may read a chunk (ai_llm/common/identity.py): its document's owner and visibility — `private` (the
-- owner), `team:<name>` (that team's members) or `everyone`. Chunks indexed before this column are everyone's.
-- Every search function takes the viewer and filters inside SQL, so no hidden chunk is ever scored into an
-- answer; a caller that names no viewer sees only `everyone` (fail closed).
ALTER TABLE document_chunks ADD COLUMN IF NOT EXISTS owner_id text;
ALTER TABLE document_chunks ADD COLUMN IF NOT EXISTS visibility text NOT NULL DEFAULT 'everyone';

CREATE OR REPLACE FUNCTION chunk_visible(p_all boolean, p_viewer text, p_teams text[], p_owner text,
                                         p_visibility text)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT p_all OR p_visibility = 'everyone' OR (p_viewer IS NOT NULL AND p_owner = p_viewer)
           OR (p_visibility LIKE 'team:%' AND substr(p_visibility, 6) = ANY (coalesce(p_teams, '{}')));
$$;

DROP FUNCTION IF EXISTS match_documents(vector, float, int);
CREATE FUNCTION match_documents(query_embedding vector, match_threshold float, match_count int,
                                p_all boolean DEFAULT false, p_viewer text DEFAULT NULL,
                                p_teams text[] DEFAULT '{}')
RETURNS TABLE (id bigint, storage_ref text, chunk_index integer, file_name text, file_id text, file_url text,
               content text, pages integer[], similarity float, source_kind text, location jsonb)
LANGUAGE sql STABLE AS $$
    SELECT c.id, c.storage_ref, c.chunk_index, c.file_name, c.file_id, c.file_url, c.content, c.pages,
           (1 - (c.embedding <=> query_embedding))::float AS similarity, c.source_kind, c.location
    FROM document_chunks c
    WHERE 1 - (c.embedding <=> query_embedding) > match_threshold
      AND chunk_visible(p_all, p_viewer, p_teams, c.owner_id, c.visibility)
    ORDER BY c.embedding <=> query_embedding
    LIMIT match_count;
$$;

DROP FUNCTION IF EXISTS term_match_documents(text[], int);
CREATE FUNCTION term_match_documents(p_terms text[], per_term int, p_all boolean DEFAULT false,
                                     p_viewer text DEFAULT NULL, p_teams text[] DEFAULT '{}')
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
          AND chunk_visible(p_all, p_viewer, p_teams, c.owner_id, c.visibility)
        ORDER BY rank DESC, c.id
        LIMIT per_term
    ) m
    ORDER BY m.id, m.rank DESC;
$$;

-- Statistics over the chunks the viewer may read (a hidden document's words do not shape the ranking).
DROP FUNCTION IF EXISTS term_statistics(text[]);
CREATE FUNCTION term_statistics(p_terms text[], p_all boolean DEFAULT false, p_viewer text DEFAULT NULL,
                                p_teams text[] DEFAULT '{}')
RETURNS TABLE (term text, df bigint, n bigint, avgdl float)
LANGUAGE sql STABLE AS $$
    WITH visible AS (SELECT c.fts, c.token_count FROM document_chunks c
                     WHERE chunk_visible(p_all, p_viewer, p_teams, c.owner_id, c.visibility)),
         corpus AS (SELECT count(*) AS n, coalesce(avg(token_count), 0)::float AS avgdl FROM visible)
    SELECT t, (SELECT count(*) FROM visible v
               WHERE plainto_tsquery('simple', t)::text <> '' AND v.fts @@ plainto_tsquery('simple', t)),
           corpus.n, corpus.avgdl
    FROM unnest(p_terms) AS t, corpus;
$$;

CREATE OR REPLACE FUNCTION replace_document_chunks(p_storage_ref text, p_chunks jsonb)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE inserted integer;
BEGIN
    DELETE FROM document_chunks WHERE storage_ref = p_storage_ref;
    INSERT INTO document_chunks (storage_ref, chunk_index, file_name, file_id, file_url, content, pages, tokens,
                                 embedding, content_hash, analysis_version, source_kind, location, owner_id,
                                 visibility)
    SELECT p_storage_ref, r.chunk_index, coalesce(r.file_name, ''), r.file_id, r.file_url, r.content,
           coalesce(r.pages, '{}'), coalesce(r.tokens, ''), r.embedding::vector, r.content_hash,
           coalesce(r.analysis_version, '1'), coalesce(r.source_kind, 'upload'), r.location, r.owner_id,
           coalesce(r.visibility, 'everyone')
    FROM jsonb_to_recordset(p_chunks) AS r(chunk_index integer, file_name text, file_id text, file_url text,
                                           content text, pages integer[], tokens text, embedding text,
                                           content_hash text, analysis_version text, source_kind text,
                                           location jsonb, owner_id text, visibility text);
    GET DIAGNOSTICS inserted = ROW_COUNT;
    RETURN inserted;
END;
$$;

-- A document's owner may change who sees it without re-indexing.
CREATE OR REPLACE FUNCTION set_document_visibility(p_storage_ref text, p_visibility text)
RETURNS integer LANGUAGE sql AS $$
    WITH changed AS (UPDATE document_chunks SET visibility = p_visibility WHERE storage_ref = p_storage_ref
                     RETURNING 1)
    SELECT count(*)::integer FROM changed;
$$;
