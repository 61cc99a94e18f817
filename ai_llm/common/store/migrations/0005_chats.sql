-- Chat history kept by the backend: one row per conversation (its id is the A2A context_id sent to the
-- orchestrator) and one row per turn.
CREATE TABLE IF NOT EXISTS conversations (
    id          text PRIMARY KEY,
    title       text NOT NULL DEFAULT '',
    language    text NOT NULL DEFAULT 'ko',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS messages (
    id               bigserial PRIMARY KEY,
    conversation_id  text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    role             text NOT NULL CHECK (role IN ('user', 'assistant')),
    text             text NOT NULL,
    intent           text,
    sources          jsonb NOT NULL DEFAULT '[]'::jsonb,
    steps            jsonb NOT NULL DEFAULT '[]'::jsonb,
    created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS messages_conversation_idx ON messages (conversation_id, id);
