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
  // 7: adding tasks reads the job's highest `seq`; without this index that was a scan of every task of the job on
  // each completed page, so crawls slowed down as they grew.
  `
  CREATE INDEX tasks_job_seq ON tasks (job_id, seq);
  `,
  // 8: cached page bodies move out of SQLite into files (<dataDir>/cache/): writing ~100 KB blobs through the
  // WAL, and again at every checkpoint, cost more than rendering the page. The cache is only a cache: its old
  // rows are dropped.
  `
  DROP TABLE page_cache;
  CREATE TABLE page_cache (
    cache_key TEXT PRIMARY KEY,       -- hex SHA-256 of URL + the options that change what is fetched
    url TEXT NOT NULL,
    cached_at INTEGER NOT NULL,
    meta TEXT NOT NULL,               -- JSON: status, headers, final URL, content type, charset, engine
    size INTEGER NOT NULL             -- bytes of the body file <dataDir>/cache/<cache_key>
  );
  CREATE INDEX page_cache_cached_at ON page_cache (cached_at);
  `,
  // 9: cached bodies are appended to segment files instead of one file each (creating a file cost ≈ 0.25 ms of
  // kernel time per page, storage/page-cache.ts). The rows now say where the bytes are; old rows are dropped
  // (a cache), and the next prune deletes their files.
  `
  DROP TABLE page_cache;
  CREATE TABLE page_cache (
    cache_key TEXT PRIMARY KEY,       -- hex SHA-256 of URL + the options that change what is fetched
    url TEXT NOT NULL,
    cached_at INTEGER NOT NULL,
    meta TEXT NOT NULL,               -- JSON: status, headers, final URL, content type, charset, engine
    segment TEXT NOT NULL,            -- body segment file under <dataDir>/cache/
    offset INTEGER NOT NULL,          -- where the body starts in it
    size INTEGER NOT NULL             -- body bytes
  );
  CREATE INDEX page_cache_cached_at ON page_cache (cached_at);
  CREATE INDEX page_cache_segment ON page_cache (segment);
  `,
  // 10: the `Idempotency-Key` header of POST /v2/scrape, /v2/crawl and /v2/batch/scrape (src/idempotency): the
  // first request's hash and, once it succeeded, its response, kept 24 h so a retry is answered without running
  // the request again.
  `
  CREATE TABLE idempotency_keys (
    key_id TEXT NOT NULL,             -- the API key the header was sent with; keys never see each other's
    idem_key TEXT NOT NULL,           -- the header's value
    request_hash TEXT NOT NULL,       -- hex SHA-256 of method, path and the canonical JSON body
    state TEXT NOT NULL,              -- in-flight | done
    claim TEXT NOT NULL,              -- random id of the request that claimed the key; only it may settle the row
    status INTEGER,                   -- done: the HTTP status answered
    response TEXT,                    -- done: the body answered; NULL when it was not kept (zeroDataRetention)
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (key_id, idem_key)
  );
  CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
  `,
  // 11: extract jobs (`POST /v2/extract`, src/extract): the validated request, then the answer. A job left
  // `processing` by a stopped server is run again when `crawlbox serve` starts.
  `
  CREATE TABLE extract_jobs (
    id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    status TEXT NOT NULL,             -- processing | completed | failed
    owner TEXT,                       -- the process running it (a random id per start); only it may finish it
    attempts INTEGER NOT NULL DEFAULT 0, -- runs started; a job that stopped the server 3 times is failed
    request TEXT NOT NULL,            -- JSON of the validated request
    data TEXT,                        -- completed: JSON of the extracted data
    sources TEXT,                     -- completed with showSources: JSON list of the pages used
    warning TEXT,
    error TEXT,                       -- failed: why
    tokens INTEGER NOT NULL DEFAULT 0,
    credits INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL       -- counted from the end; a processing job never expires
  );
  CREATE INDEX extract_jobs_expires ON extract_jobs (expires_at);
  CREATE INDEX extract_jobs_processing ON extract_jobs (status) WHERE status = 'processing';
  `,  // 12: agent runs (`POST /v2/agent`, src/agent): the validated request, then the answer. Runs of one thread share
  // its id and are numbered by turn. A run left `processing` by a stopped server is run again at the next start.
  `
  CREATE TABLE agent_jobs (
    id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    turn INTEGER NOT NULL,            -- 1-based position in the thread
    status TEXT NOT NULL,             -- processing | completed | failed | cancelled
    owner TEXT,                       -- the process running it (a random id per start); only it may finish it
    attempts INTEGER NOT NULL DEFAULT 0,
    request TEXT NOT NULL,            -- JSON of the validated request
    data TEXT,                        -- completed, extract mode: JSON of the answer
    message TEXT,                     -- completed, chat mode: the answer's text
    sources TEXT,                     -- JSON list of the pages read
    warning TEXT,
    error TEXT,                       -- failed: why
    tokens INTEGER NOT NULL DEFAULT 0,
    credits INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    expires_at INTEGER NOT NULL,      -- counted from the end; a processing run never expires
    UNIQUE (thread_id, turn)
  );
  CREATE INDEX agent_jobs_key_created ON agent_jobs (key_id, created_at);
  CREATE INDEX agent_jobs_expires ON agent_jobs (expires_at);
  CREATE INDEX agent_jobs_processing ON agent_jobs (status) WHERE status = 'processing';
  `,  // 13: monitors (`/v2/monitor`, src/monitor): scheduled checks of pages for changes. A check has one row per page
  // it looked at; the pages' previous versions are change-tracking history (tag `monitor:<id>:<target>`).
  `
  CREATE TABLE monitors (
    id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,             -- active | paused (deleted monitors are removed)
    schedule TEXT NOT NULL,           -- JSON {cron, text?, timezone}
    targets TEXT NOT NULL,            -- JSON of the validated scrape targets
    webhook TEXT,                     -- JSON of the normalised webhook
    retention_days INTEGER NOT NULL,
    goal TEXT,
    judge_enabled INTEGER NOT NULL DEFAULT 0,
    last_run_at INTEGER,
    current_check_id TEXT,
    last_summary TEXT,                -- JSON of the last finished check's summary
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX monitors_key ON monitors (key_id, created_at);
  CREATE TABLE monitor_checks (
    id TEXT PRIMARY KEY,
    monitor_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    status TEXT NOT NULL,             -- (queued, since 15) running | completed | partial | failed | skipped_overlap | skipped_no_credits
    trigger TEXT NOT NULL,            -- scheduled | manual
    scheduled_for INTEGER,
    started_at INTEGER,
    finished_at INTEGER,
    credits INTEGER NOT NULL DEFAULT 0,
    summary TEXT NOT NULL,            -- JSON {totalPages, same, changed, new, removed, error}
    target_results TEXT,              -- JSON {targetId: {crawlId} | {resultCount, matches, …}} per crawl or search target
    error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX monitor_checks_monitor ON monitor_checks (monitor_id, created_at);
  CREATE INDEX monitor_checks_running ON monitor_checks (status) WHERE status = 'running';
  CREATE TABLE monitor_pages (
    id TEXT PRIMARY KEY,
    check_id TEXT NOT NULL,
    seq INTEGER NOT NULL,             -- order within the check
    target_id TEXT NOT NULL,
    url TEXT NOT NULL,
    status TEXT NOT NULL,             -- same | new | changed | removed | error
    scrape_id TEXT,
    status_code INTEGER,
    error TEXT,
    diff TEXT,                        -- JSON {text, json} when changed
    judgment TEXT,                    -- JSON of the model's judgment (judgeEnabled) when changed
    credits INTEGER NOT NULL DEFAULT 0, -- what the page's scrape cost
    created_at INTEGER NOT NULL
  );
  CREATE INDEX monitor_pages_check ON monitor_pages (check_id, seq);
  `,  // 14: agent traces (`GET /v2/agent/{id}/trace`, src/agent/trace.ts): a run's events in order, and the artifacts
  // (its answer) they point to (`GET /v2/agent/{id}/snapshots/{snapshotId}`). Deleted with their run.
  `
  CREATE TABLE agent_events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,             -- producerSequence
    event TEXT NOT NULL,              -- JSON of the event (the SDK's AgentTraceEvent)
    PRIMARY KEY (run_id, seq)
  );
  CREATE TABLE agent_snapshots (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    content TEXT NOT NULL,            -- the artifact as the snapshot endpoint returns it (JSON text or markdown)
    created_at INTEGER NOT NULL
  );
  CREATE INDEX agent_snapshots_run ON agent_snapshots (run_id);
  `,
  // 15: monitor checks wait `queued` for a place before they run; a monitor page keeps the previous check's scrape id
  // of its URL (`previousScrapeId`) and its current JSON extraction (`snapshot`).
  `
  ALTER TABLE monitor_pages ADD COLUMN previous_scrape_id TEXT;
  ALTER TABLE monitor_pages ADD COLUMN snapshot TEXT;   -- JSON {json} of the page's extraction, when it asked for one
  DROP INDEX monitor_checks_running;
  CREATE INDEX monitor_checks_open ON monitor_checks (status) WHERE status IN ('queued', 'running');
  `,
  // 16: URLs added to a batch later (`appendToId`) are scraped with the options of the request that added them: the
  // job's options keep them (`appended`), and each such task the index of its set.
  `
  ALTER TABLE tasks ADD COLUMN options_index INTEGER;
  `,
  // 17: a crawl's or batch page's files (screenshots, action PDFs, audio) belong to its job and live as long as its
  // results (storage/files.ts).
  `
  ALTER TABLE files ADD COLUMN job_id TEXT;
  CREATE INDEX files_job ON files (job_id) WHERE job_id IS NOT NULL;
  `,
  // 18: a stored scrape keeps what an interact session needs to bring its page back to the state the scrape saw
  // (its actions), so that the session does not start from the bare URL.
  `
  ALTER TABLE scrapes ADD COLUMN replay TEXT;        -- JSON {actions} of the scrape, when it had any
  `,
  // 19: whether a monitor has seen a URL before (monitor/store.ts lastPage) without reading its whole history: a URL
  // new to a monitor of 1,000 checks took ~7.5 ms per look-up, on the event loop, for each new page of a check.
  `
  CREATE INDEX monitor_pages_url ON monitor_pages (url, target_id);
  `,
  // 20: feedback on a job's results (`/v2/feedback`, `/v2/search/{id}/feedback`), one per key, endpoint and job.
  `
  CREATE TABLE feedback (
    id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    endpoint TEXT NOT NULL,     -- search | scrape | parse | map
    job_id TEXT NOT NULL,
    rating TEXT NOT NULL,       -- good | partial | bad
    body TEXT NOT NULL,         -- JSON: the request as received, validated
    created_at INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX feedback_job ON feedback (key_id, endpoint, job_id);
  CREATE INDEX feedback_created ON feedback (created_at);
  `,
  // 21: the extractors an LLM wrote for the `deterministicJson` format (llm/deterministic/store.ts), one per API key,
  // URL, schema, prompt and model, reused so that the same page gives the same JSON without asking the model again.
  `
  CREATE TABLE deterministic_extractors (
    key TEXT PRIMARY KEY,       -- sha256 of version, API key, model, URL, schema and prompt
    key_id TEXT NOT NULL,       -- the API key it was written for (extractors are per key)
    url TEXT NOT NULL,
    model TEXT NOT NULL,
    code TEXT NOT NULL,         -- the function's source
    created_at INTEGER NOT NULL,
    used_at INTEGER NOT NULL
  );
  CREATE INDEX deterministic_extractors_used ON deterministic_extractors (used_at);
  CREATE INDEX deterministic_extractors_key ON deterministic_extractors (key_id, used_at);
  `,
  // 22: monitors' email notifications (`notification.email`), and the mail outbox they are sent from
  // (mail/outbox.ts): written with the check's end, sent by the dispatcher, retried with backoff.
  `
  ALTER TABLE monitors ADD COLUMN notification TEXT;   -- JSON {email: {enabled, recipients, includeDiffs}}
  CREATE TABLE mail_outbox (
    id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    recipients TEXT NOT NULL,   -- JSON array of addresses
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    sent_at INTEGER,
    failed_at INTEGER,          -- given up (a permanent refusal, or the last retry)
    last_error TEXT
  );
  CREATE INDEX mail_outbox_due ON mail_outbox (next_at) WHERE sent_at IS NULL AND failed_at IS NULL;
  `,
  // 23: monitor email recipients' opt-in (mail/recipients.ts), and extra headers of a queued message
  // (List-Unsubscribe).
  `
  CREATE TABLE mail_recipients (
    key_id TEXT NOT NULL,                 -- the API key whose monitors may mail the address
    email TEXT NOT NULL,                  -- lower-cased
    status TEXT NOT NULL,                 -- pending | confirmed | unsubscribed
    confirm_token TEXT NOT NULL UNIQUE,   -- the confirmation link's capability
    unsubscribe_token TEXT NOT NULL UNIQUE,
    asked_at INTEGER,                     -- when the confirmation email was queued (null: not yet)
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (key_id, email)
  );
  CREATE INDEX mail_recipients_email ON mail_recipients (email, asked_at);
  ALTER TABLE mail_outbox ADD COLUMN headers TEXT;   -- JSON {name: value} of extra headers
  `,
  // 24: which monitor check a queued notification email reports (a check's notificationStatus; a deleted monitor's
  // unsent emails are cancelled).
  `
  ALTER TABLE mail_outbox ADD COLUMN monitor_id TEXT;
  ALTER TABLE mail_outbox ADD COLUMN check_id TEXT;
  CREATE INDEX mail_outbox_check ON mail_outbox (check_id) WHERE check_id IS NOT NULL;
  CREATE INDEX mail_outbox_monitor ON mail_outbox (monitor_id) WHERE monitor_id IS NOT NULL AND sent_at IS NULL AND failed_at IS NULL;
  `,
  // 25: each key's recent API activity, for GET /v2/team/activity (auth/activity.ts; the last 24 hours are kept).
  `
  CREATE TABLE activity (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, -- newest last; the listing's cursor
    key_id TEXT NOT NULL,
    id TEXT NOT NULL,                      -- the job's id, for its GET route
    endpoint TEXT NOT NULL,                -- scrape, crawl, batch_scrape, search, extract, map, agent, browser, interact
    api_version TEXT NOT NULL,             -- v2, or v1 for a request through the /v1 API
    target TEXT,                           -- the URL, query or prompt asked about (cut)
    created_at INTEGER NOT NULL
  );
  CREATE INDEX activity_key ON activity (key_id, seq);
  CREATE INDEX activity_created ON activity (created_at);
  `,
  // 26: a job's pending webhook events still on their first try, in order (webhooks/dispatcher.ts: what holds an
  // event back). Without it each due event's check read every earlier event waiting for a retry: 10,000 retries and
  // 10,000 unsent events took 13-27 s a query; with it, 32 ms.
  `
  CREATE INDEX webhook_events_first_try ON webhook_events (job_id, state, failures, seq);
  `,
  // 27: what a change snapshot's `json` was extracted with (change-tracking/history.ts `jsonKey`): a later scrape
  // asking with another schema, prompt or model extracts the previous version again instead of comparing answers to
  // different questions. Rows from before have NULL: their json is extracted again when next compared.
  `
  ALTER TABLE change_snapshots ADD COLUMN json_key TEXT;
  `,
  // 28: the upload flow of POST /v2/parse (parse/upload-refs.ts): a reserved upload URL (only the SHA-256 of its id
  // is kept: the URL is the credential), then the file it received (in the file store) until it expires.
  `
  CREATE TABLE parse_uploads (
    ref TEXT PRIMARY KEY,            -- the uploadRef its key parses it by
    id_hash TEXT NOT NULL UNIQUE,    -- SHA-256 of the upload URL's id
    key_id TEXT NOT NULL,
    filename TEXT NOT NULL,
    content_type TEXT NOT NULL,      -- declared, else the PUT's; '' = from the file name
    max_bytes INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,     -- the URL's; a received file lives UPLOADED_FILE_TTL_MS after received_at
    state TEXT NOT NULL,             -- pending, receiving (a PUT is reading its body), received
    claimed_at INTEGER,
    file_id TEXT,
    received_at INTEGER
  );
  CREATE INDEX parse_uploads_expires ON parse_uploads (expires_at);
  `,
  // 29: the x-idempotency-key of each appendToId request (jobs/sqlite-store.ts): a retried append is a 409 instead of
  // its URLs queued twice, for as long as the batch is kept (as the key that created a job, jobs.idempotency_key).
  `
  CREATE TABLE batch_append_keys (
    key_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (key_id, idempotency_key)
  );
  CREATE INDEX batch_append_keys_job ON batch_append_keys (job_id);
  `,
  // 30: what a monitor check ran with (monitor/rows.ts CheckRow): its targets and the credits it was estimated at, so
  // an old check's estimatedCredits and targetResults stay what they were after the monitor's targets are changed.
  // Checks from before have NULL: they are answered from the monitor's current targets, as they were until now.
  `
  ALTER TABLE monitor_checks ADD COLUMN targets TEXT;              -- JSON [{id, type}] of the targets the check ran
  ALTER TABLE monitor_checks ADD COLUMN estimated_credits INTEGER; -- the targets' pages at 1 credit each (api/monitor-targets.ts monitorPages)
  `,
  // 31: each queued task's (job, host) group, so that a claim can read the queue group by group when its head is all
  // busy (jobs/task-leases.ts oldestRunnable): one site's 100,000 queued pages made every claim read them all.
  `
  ALTER TABLE tasks ADD COLUMN queue_group TEXT GENERATED ALWAYS AS (job_id || ' ' || host) VIRTUAL;
  CREATE INDEX tasks_queued_group ON tasks (queue_group, created_at, seq) WHERE status = 'queued';
  `,
  // 32: tasks accepted with their job but queued later, a chunk per transaction (jobs/pending-tasks.ts): inserting a
  // 100,000-URL batch's tasks in one transaction held the event loop for seconds.
  `
  CREATE TABLE job_pending_tasks (
    seq INTEGER PRIMARY KEY,          -- load order
    token TEXT NOT NULL UNIQUE,       -- names the row in the in-memory cache of parsed lists
    job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    tasks TEXT NOT NULL,              -- JSON [[kind, url, sourceUrl, dedupKey, depth, notBefore, optionsIndex], ...]
    task_count INTEGER NOT NULL,      -- the list's length (counted in the job's total and the queue status)
    next_index INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL       -- when the tasks were accepted: their place in the queue
  );
  CREATE INDEX job_pending_tasks_job ON job_pending_tasks (job_id);
  `,
];
