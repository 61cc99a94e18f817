-- People with accounts (backend/accounts.py): users with argon2 password hashes (NULL for a person a trusted
-- proxy authenticates), their teams, and server-side sessions (the SHA-256 of the cookie's token only).
CREATE TABLE IF NOT EXISTS users (
    id             text PRIMARY KEY,
    username       text NOT NULL UNIQUE,
    password_hash  text,
    is_admin       boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS user_teams (
    user_id  text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    team     text NOT NULL,
    PRIMARY KEY (user_id, team)
);

CREATE TABLE IF NOT EXISTS sessions (
    token_hash  text PRIMARY KEY,
    user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_user_idx ON sessions (user_id);

-- Each conversation belongs to the person who started it (NULL: the service credential, or a hub without
-- accounts); nobody else reads it, continues it or finds it in a list.
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS owner_id text REFERENCES users (id) ON DELETE CASCADE;
CREATE INDEX IF NOT EXISTS conversations_owner_idx ON conversations (owner_id, updated_at DESC);
