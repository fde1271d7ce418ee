/**
 * @module storage/migrations
 * The schema, as an append-only list: migration N brings `user_version` from N to N+1. Never edit a migration
 * that has shipped; add a new one.
 */

export const MIGRATIONS: readonly string[] = [
  // 1: API keys, credit usage, scrape results and the page cache.
  `
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,              -- short public id shown by "keys list"
    hash TEXT NOT NULL UNIQUE,        -- hex SHA-256 of the key; the key itself is never stored
    name TEXT NOT NULL DEFAULT '',
    prefix TEXT NOT NULL,             -- first characters of the key, to recognise it
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    credit_quota INTEGER              -- NULL = the configured default
  );
  CREATE TABLE credit_usage (
    key_id TEXT NOT NULL,             -- api_keys.id, or "env:<hash prefix>" for CRAWLBOX_API_KEYS, or "anonymous"
    day TEXT NOT NULL,                -- UTC date, YYYY-MM-DD
    credits INTEGER NOT NULL DEFAULT 0,
    tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, day)
  );
  CREATE TABLE scrapes (
    id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    url TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    document TEXT NOT NULL            -- JSON of the returned Document
  );
  CREATE INDEX scrapes_expires ON scrapes (expires_at);
  CREATE TABLE page_cache (
    cache_key TEXT PRIMARY KEY,       -- hex SHA-256 of URL + the options that change what is fetched
    url TEXT NOT NULL,
    cached_at INTEGER NOT NULL,
    meta TEXT NOT NULL,               -- JSON: status, headers, final URL, content type, charset, engine
    body BLOB NOT NULL                -- the fetched bytes, so any format can be rendered from a hit
  );
  CREATE INDEX page_cache_cached_at ON page_cache (cached_at);
  `,
  // 2: stored files (screenshots, action PDFs, audio) served from /v2/files/{id} until they expire.
  `
  CREATE TABLE files (
    id TEXT PRIMARY KEY,              -- 32 hex characters (128 random bits): the URL is the capability
    key_id TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX files_expires ON files (expires_at);
  `,
];
