/**
 * @module webhooks
 * Webhooks for crawl and batch jobs: an outbox written in the job store's own transaction
 * ({@link enqueueWebhookEvent}), delivered at least once, signed, in per-job order, with retries 1, 5 and
 * 15 minutes after a failure ({@link createWebhookDispatcher}), and queryable per job
 * ({@link listWebhookDeliveries}, `GET /v2/webhooks/deliveries`). docs/webhooks.md is the user-facing guide.
 */
export {
  enqueueWebhookEvent,
  webhookEventMatchesFilter,
  webhookPayload,
  type EnqueueOptions,
  type WebhookEventInput,
  type WebhookEventName,
  type WebhookJobKind,
  type WebhookPayload,
  type WebhookTarget,
} from "./outbox.ts";
export {
  createWebhookDispatcher,
  WEBHOOK_MAX_CONCURRENT,
  WEBHOOK_MAX_PER_DESTINATION,
  WEBHOOK_RETENTION_MS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_TIMEOUT_MS,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
  type WebhookFetch,
} from "./dispatcher.ts";
export {
  listWebhookDeliveries,
  MAX_DELIVERIES_PAGE_SIZE,
  type DeliveryPage,
  type WebhookDelivery,
  type WebhookDeliveryAttempt,
  type WaitingFor,
} from "./deliveries.ts";
export {
  firecrawlSignature,
  STANDARD_SECRET_PREFIX,
  standardWebhooksKey,
  standardWebhooksSignature,
  WebhookSecretError,
} from "./signing.ts";
