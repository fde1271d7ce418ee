/**
 * @module storage/migrations/01-06
 * Schema migrations 1–6: API keys, credit usage, scrapes and the page cache; stored files; crawl and batch jobs
 * and their tasks; browser profiles; the webhook outbox; change-tracking history.
 * Only the order matters: storage/migrations.ts concatenates the files in order and storage/database.ts applies
 * the list by position (the migration at index N sets `user_version` to N+1). Never edit, reorder or remove a
 * migration that has shipped.
 */

export const MIGRATIONS_01_06: readonly string[] = [
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
  // 3: crawl and batch jobs and their pages (leases, results, errors), robots-blocked URLs, per-host pacing.
  `
  CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,               -- crawl | batch
    key_id TEXT NOT NULL,
    status TEXT NOT NULL,             -- scraping | completed | failed | cancelled
    url TEXT,                         -- crawl start URL
    options TEXT NOT NULL,            -- JSON of the normalised request (crawler and scrape options, webhook, …)
    public_base_url TEXT NOT NULL,    -- base for next links and file URLs, from the creating request
    max_concurrency INTEGER,          -- per-job page concurrency (maxConcurrency)
    total INTEGER NOT NULL DEFAULT 0,
    completed INTEGER NOT NULL DEFAULT 0,
    credits_used INTEGER NOT NULL DEFAULT 0,
    idempotency_key TEXT,
    error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    completed_at INTEGER,
    expires_at INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX jobs_idempotency ON jobs (key_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
  CREATE INDEX jobs_key_status ON jobs (key_id, status);
  CREATE INDEX jobs_expires ON jobs (expires_at);
  CREATE TABLE tasks (
    id TEXT PRIMARY KEY,              -- also the page's scrapeId
    job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,               -- page | kickoff
    seq INTEGER NOT NULL,             -- enqueue order within the job
    url TEXT NOT NULL,
    source_url TEXT,                  -- the URL as the client wrote it (metadata.sourceURL), when it differs
    dedup_key TEXT NOT NULL,
    depth INTEGER NOT NULL DEFAULT 0,
    host TEXT NOT NULL,
    status TEXT NOT NULL,             -- queued | active | done | failed | cancelled
    not_before INTEGER NOT NULL,      -- earliest start (delay, Retry-After, backoff)
    attempts INTEGER NOT NULL DEFAULT 0,
    stalls INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_expires_at INTEGER,
    result TEXT,                      -- Document JSON of a done page
    result_bytes INTEGER,
    error TEXT,                       -- JSON {code, message} of a failed page
    done_seq INTEGER,                 -- completion order, for result pagination
    created_at INTEGER NOT NULL,
    finished_at INTEGER,
    UNIQUE (job_id, dedup_key)
  );
  CREATE INDEX tasks_claim ON tasks (status, created_at, seq);
  CREATE INDEX tasks_job_done ON tasks (job_id, done_seq);
  CREATE INDEX tasks_job_status ON tasks (job_id, status);
  CREATE TABLE job_robots_blocked (
    job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    PRIMARY KEY (job_id, url)
  );
  CREATE TABLE job_hosts (
    job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    host TEXT NOT NULL,
    next_at INTEGER NOT NULL,         -- politeness: no request to this host for this job before then
    failures INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (job_id, host)
  );
  `,
  // 4: browser profiles (`profile: {name, saveChanges}`): cookies and web storage per API key and name.
  `
  CREATE TABLE browser_profiles (
    key_id TEXT NOT NULL,
    name TEXT NOT NULL,
    state TEXT NOT NULL,              -- JSON: {cookies, localStorage: {origin: {k: v}}, sessionStorage: {…}}
    version INTEGER NOT NULL,         -- bumped by every save
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (key_id, name)
  );
  `,
  // 5: the webhook outbox (src/webhooks). One row per event, written in the transaction of the job change it
  // announces; the body is serialised once so every attempt sends the same bytes. Each attempt is logged.
  `
  CREATE TABLE webhook_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, -- enqueue order; a job's events are delivered in seq order
    id TEXT NOT NULL UNIQUE,          -- webhookId (UUID): payload field and webhook-id header, same on every attempt
    job_id TEXT NOT NULL,
    key_id TEXT NOT NULL,             -- owner of the job; only this key sees the deliveries
    type TEXT NOT NULL,               -- crawl.page, batch_scrape.completed, ...
    url TEXT NOT NULL,
    headers TEXT NOT NULL,            -- JSON object of the caller's custom headers
    body TEXT,                        -- the payload as sent; NULL once delivered or failed for good
    state TEXT NOT NULL,              -- pending | delivered | failed
    failures INTEGER NOT NULL DEFAULT 0, -- failed attempts so far; picks the next retry delay
    created_at INTEGER NOT NULL,
    next_attempt_at INTEGER,          -- pending: not sent before this time (ms); NULL once settled
    settled_at INTEGER,               -- when delivered or marked failed
    last_error TEXT
  );
  CREATE INDEX webhook_events_job ON webhook_events (job_id, state, seq);
  CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at) WHERE state = 'pending';
  CREATE INDEX webhook_events_settled ON webhook_events (settled_at) WHERE state <> 'pending';
  CREATE TABLE webhook_attempts (
    event_seq INTEGER NOT NULL REFERENCES webhook_events (seq) ON DELETE CASCADE,
    attempt INTEGER NOT NULL,         -- 1-based
    started_at INTEGER NOT NULL,
    finished_at INTEGER,              -- NULL while in flight (or the process died; marked interrupted at start)
    status_code INTEGER,              -- the receiver's HTTP status, when it answered
    error TEXT,                       -- timeout, network, redirect, HTTP status, egress refusal, interrupted
    duration_ms INTEGER,
    PRIMARY KEY (event_seq, attempt)
  );
  `,
  // 6: change-tracking history (src/change-tracking): every scrape with the changeTracking format stores its
  // markdown (and json when asked) per key, URL and tag; and the URL set of each crawl that tracked changes, so
  // that the next crawl of the same start URL can re-check pages it no longer links (visibility "hidden").
  `
  CREATE TABLE change_snapshots (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key_id TEXT NOT NULL,
    url TEXT NOT NULL,                -- the requested URL (fragment removed)
    tag TEXT NOT NULL,                -- '' when the request had no tag
    scraped_at INTEGER NOT NULL,
    status_code INTEGER NOT NULL,
    markdown TEXT NOT NULL,
    json TEXT                         -- JSON of the extracted data (json mode with a schema), if any
  );
  CREATE INDEX change_snapshots_latest ON change_snapshots (key_id, url, tag, scraped_at DESC, id DESC);
  CREATE TABLE change_crawls (
    job_id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    start_url TEXT NOT NULL,
    tag TEXT NOT NULL,
    urls TEXT NOT NULL,               -- JSON array of the page URLs the crawl scraped
    finished_at INTEGER NOT NULL
  );
  CREATE INDEX change_crawls_latest ON change_crawls (key_id, start_url, tag, finished_at DESC);
  `,
];
