/**
 * @module storage/migrations/14-32
 * Schema migrations 14–32: agent traces, then later additions (monitor, task, file and mail columns; feedback;
 * deterministic extractors; the mail outbox and recipients; activity; parse uploads; batch append keys; task
 * queue groups; pending tasks). New migrations go at the end of this file (widen its range), or in a new file
 * after it once this one would pass 300 lines.
 * Only the order matters: storage/migrations.ts concatenates the files in order and storage/database.ts applies
 * the list by position (the migration at index N sets `user_version` to N+1). Never edit, reorder or remove a
 * migration that has shipped.
 */

export const MIGRATIONS_14_32: readonly string[] = [
  // 14: agent traces (`GET /v2/agent/{id}/trace`, src/agent/trace.ts): a run's events in order, and the artifacts
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
