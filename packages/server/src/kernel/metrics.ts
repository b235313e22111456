/**
 * Prometheus metrics (prom-client), derived from the structured {@link LogEntry} events the server already
 * emits, so no module counts anything itself. Every label value comes from a closed set (a route label, never
 * the raw path; a status code; a provider type), so an anonymous client cannot grow the series.
 *
 * Metrics: `gatehouse_http_requests_total{route,method,status}`,
 * `gatehouse_http_request_duration_seconds{route,method,status}` (histogram),
 * `gatehouse_authentications_total{scheme,result}`, `gatehouse_query_cost_refusals_total{limit}`,
 * `gatehouse_sign_ins_total{provider,outcome}`, `gatehouse_audit_entries_total{entity,action}`,
 * `gatehouse_store_errors_total{operation}`, `gatehouse_internal_errors_total`,
 * `gatehouse_configuration_reloads_total{result}`, the outbox's `gatehouse_mail_queued` (a gauge read from the store at each
 * scrape), `gatehouse_mails_sent_total`, `gatehouse_mail_failures_total{reason}` (each failed attempt),
 * `gatehouse_mails_given_up_total`, `gatehouse_mails_dropped_total{reason}` (left unsent because their sealed body does not
 * open here: `sealed_by_unknown_key`, `unreadable`) and `gatehouse_mails_refused_total{reason}` (not queued: the queue was full), plus prom-client's default process metrics
 * (`gatehouse_process_…`, `gatehouse_nodejs_…`).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PROVIDER_TYPES } from 'gatehouse-auth';
import type { LogEntry } from './logging.js';

/**
 * The metrics of one gatehouse server.
 *
 * @example
 * ```ts
 * const metrics = createMetrics();
 * metrics.observe({ level: 'info', event: 'request', method: 'GET', path: '/healthz', status: 200, ms: 1 });
 * await metrics.text(); // '# HELP gatehouse_http_requests_total …'
 * ```
 */
export interface GatehouseMetrics {
  /** The Prometheus text exposition media type. */
  readonly contentType: string;
  /** The current values, in Prometheus text format. */
  text(): Promise<string>;
  /** Counts what a log event says happened. */
  observe(entry: LogEntry): void;
  /** A request listener answering `GET /metrics` (404 for anything else), for a separate listen address. */
  readonly listener: (req: IncomingMessage, res: ServerResponse) => void;
  /** Sets where the `mail_queued` gauge reads the outbox's size at each scrape (the store's `outbox.count`). */
  mailQueueDepth(source: () => Promise<number>): void;
}

const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const PROVIDERS: ReadonlySet<string> = new Set(PROVIDER_TYPES);
const str = (entry: LogEntry, key: string): string => {
  const value = entry[key];
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
};

/** A label value from a closed set of at most `max` distinct values seen, else `other`. */
function bounded(max: number): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (seen.has(value)) return value;
    if (seen.size >= max) return 'other';
    seen.add(value);
    return value;
  };
}

/**
 * Creates the metrics of one server, in their own registry.
 *
 * @param prefix - Metric name prefix. Default `gatehouse_`.
 * @returns The metrics.
 *
 * @example
 * ```ts
 * const metrics = createMetrics();
 * createServer(metrics.listener).listen(9464, '127.0.0.1');
 * ```
 */
export function createMetrics(prefix = 'gatehouse_'): GatehouseMetrics {
  const registry = new Registry();
  // The process metrics start at the first scrape: a server nobody scrapes pays nothing for them.
  let processMetrics = false;
  const scrape = (): Promise<string> => {
    if (!processMetrics) {
      processMetrics = true;
      collectDefaultMetrics({ register: registry, prefix });
    }
    return registry.metrics();
  };
  const requests = new Counter({
    name: `${prefix}http_requests_total`,
    help: 'HTTP requests answered, by route label, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request, by route label, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const authentications = new Counter({
    name: `${prefix}authentications_total`,
    help: 'GraphQL API authentications, by scheme and result (ok or the refusal code).',
    labelNames: ['scheme', 'result'] as const,
    registers: [registry],
  });
  const costRefusals = new Counter({
    name: `${prefix}query_cost_refusals_total`,
    help: 'GraphQL requests refused by a cost limit (spec §8), by limit.',
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  const signIns = new Counter({
    name: `${prefix}sign_ins_total`,
    help: 'Sign-ins, by provider type and outcome (success or failure).',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const audits = new Counter({
    name: `${prefix}audit_entries_total`,
    help: 'Audit log entries recorded, by entity and action.',
    labelNames: ['entity', 'action'] as const,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: `${prefix}store_errors_total`,
    help: 'Store calls that failed (threw or rejected), by operation.',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const internalErrors = new Counter({
    name: `${prefix}internal_errors_total`,
    help: 'Requests answered 500 because a handler failed.',
    registers: [registry],
  });
  const reloads = new Counter({
    name: `${prefix}configuration_reloads_total`,
    help: 'Site configuration reloads, by result (reloaded or invalid).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  let mailQueueSource: (() => Promise<number>) | null = null;
  new Gauge({
    name: `${prefix}mail_queued`,
    help: 'Mails waiting in the outbox (claimed or not).',
    registers: [registry],
    async collect() {
      if (mailQueueSource === null) return;
      // an unreachable store leaves the last value; the scrape still answers
      const depth = await mailQueueSource().catch(() => null);
      if (depth !== null) this.set(depth);
    },
  });
  const mailsSent = new Counter({ name: `${prefix}mails_sent_total`, help: 'Mails the SMTP relay accepted.', registers: [registry] });
  const mailFailures = new Counter({
    name: `${prefix}mail_failures_total`,
    help: 'Failed attempts at sending a mail, by reason (nodemailer error code).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const mailsGivenUp = new Counter({ name: `${prefix}mails_given_up_total`, help: 'Mails given up after their last attempt.', registers: [registry] });
  const mailsDropped = new Counter({
    name: `${prefix}mails_dropped_total`,
    help: 'Mails dropped unsent because their sealed body does not open on this instance, by reason (sealed_by_unknown_key, unreadable).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const mailsRefused = new Counter({
    name: `${prefix}mails_refused_total`,
    help: 'Mails not queued, by reason (queue_full).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const mailReasonLabel = bounded(30);
  // Entity, action, operation and refusal codes come from the code, not from clients; still bounded.
  const auditLabel = bounded(200);
  const resultLabel = bounded(50);
  const operationLabel = bounded(100);
  const limitLabel = bounded(20);

  // The series of each label set, made at its first request and kept: the labels are closed sets (route labels,
  // methods, status codes, schemes, bounded results), so these maps stay as small as the metrics themselves.
  const requestSeries = new Map<string, { readonly inc: () => void; readonly observe: (seconds: number) => void }>();
  const authenticationSeries = new Map<string, () => void>();

  const observe = (entry: LogEntry): void => {
    switch (entry.event) {
      case 'request': {
        const rawMethod = str(entry, 'method');
        const method = METHODS.has(rawMethod) ? rawMethod : 'other';
        const rawStatus = entry['status'];
        const status =
          typeof rawStatus === 'number' && Number.isInteger(rawStatus) && rawStatus >= 100 && rawStatus <= 599
            ? String(rawStatus)
            : /^[1-5]\d\d$/u.test(str(entry, 'status'))
              ? str(entry, 'status')
              : 'other';
        // the route table's own path for the entry that answered (kernel/router.ts `routeLabelOf`): a closed set
        const rawRoute = str(entry, 'route');
        const route = rawRoute === '' ? 'other' : rawRoute;
        const key = `${route}\u0000${method}\u0000${status}`;
        let series = requestSeries.get(key);
        if (series === undefined) {
          const labels = { route, method, status };
          series = { inc: requests.labels(labels).inc, observe: duration.labels(labels).observe };
          requestSeries.set(key, series);
        }
        series.inc();
        const ms = entry['ms'];
        if (typeof ms === 'number' && Number.isFinite(ms)) series.observe(ms / 1000);
        return;
      }
      case 'authentication': {
        const scheme = str(entry, 'scheme');
        const result = resultLabel(str(entry, 'result'));
        const key = `${scheme}\u0000${result}`;
        let inc = authenticationSeries.get(key);
        if (inc === undefined) {
          inc = authentications.labels({ scheme, result }).inc;
          authenticationSeries.set(key, inc);
        }
        inc();
        return;
      }
      case 'query_cost_refused':
        costRefusals.inc({ limit: limitLabel(str(entry, 'limit')) });
        return;
      case 'audit': {
        const entity = str(entry, 'entity');
        const action = str(entry, 'action');
        audits.inc({ entity: auditLabel(entity), action: auditLabel(action) });
        if (entity === 'auth.session' && (action === 'signed_in' || action === 'failed')) {
          signIns.inc({ provider: signInProvider(entry), outcome: action === 'signed_in' ? 'success' : 'failure' });
        }
        return;
      }
      case 'store_error':
        storeErrors.inc({ operation: operationLabel(str(entry, 'operation')) });
        return;
      case 'internal_error':
        internalErrors.inc();
        return;
      case 'configuration_reloaded':
        reloads.inc({ result: 'reloaded' });
        return;
      case 'configuration_rejected':
        reloads.inc({ result: 'invalid' });
        return;
      case 'mail_sent':
        mailsSent.inc();
        return;
      case 'mail_failed':
        mailFailures.inc({ reason: mailReasonLabel(str(entry, 'reason')) });
        return;
      case 'mail_gave_up':
        mailsGivenUp.inc();
        return;
      case 'mail_dropped':
        mailsDropped.inc({ reason: mailReasonLabel(str(entry, 'reason')) });
        return;
      case 'mail_refused':
        mailsRefused.inc({ reason: mailReasonLabel(str(entry, 'reason')) });
        return;
      default:
        return;
    }
  };

  return {
    contentType: registry.contentType,
    text: scrape,
    observe,
    mailQueueDepth: (source) => {
      mailQueueSource = source;
    },
    listener: (req, res) => {
      const path = (req.url ?? '/').split('?', 1)[0];
      if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Not found.\n');
        return;
      }
      scrape().then(
        (text) => {
          res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
          res.end(req.method === 'HEAD' ? undefined : text);
        },
        () => {
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          res.end('Metrics unavailable.\n');
        },
      );
    },
  };
}

/**
 * The provider type of a sign-in audit entry: its `provider` detail, or `builtin` for the built-in password
 * form's entries (which name no provider).
 */
function signInProvider(entry: LogEntry): string {
  const provider = str(entry, 'provider');
  if (PROVIDERS.has(provider)) return provider;
  if (PROVIDERS.has(str(entry, 'reason'))) return str(entry, 'reason');
  return provider === '' ? 'builtin' : 'other';
}
