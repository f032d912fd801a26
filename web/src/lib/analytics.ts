/**
 * First-party analytics (DECISIONS.md): `track(name, props)` queues an event with its timestamp
 * and the page's URL; the queue is sent in batches to the BFF's AnalyticsService.Track, which
 * publishes them on the event bus. Nothing is sent to any third party.
 *
 * - Only the event names the BFF accepts are sent (ANALYTICS_EVENT_NAMES); anything else is
 *   dropped here with a console warning, because one unknown name makes the BFF refuse the
 *   whole batch.
 * - Batches leave ANALYTICS_FLUSH_DELAY_MS after the first queued event, at once when
 *   ANALYTICS_MAX_BATCH events are waiting, and when the page is hidden or closed (then with
 *   `fetch(..., { keepalive: true })`, so the request outlives the page).
 * - The browser's anonymous id lives in localStorage; `identify(user)` after sign-in records
 *   `$identify` with the user's id and e-mail (the spec), `resetAnalytics()` on sign-out records
 *   `$reset` and starts a new anonymous id.
 * - `installAnalytics()` (called once by the root layout) adds `$pageleave` and
 *   'Application Closed' on pagehide, and reports uncaught errors (js_error) and unhandled
 *   promise rejections. Page views are recorded by `useAnalyticsPageViews` (analytics-react.ts).
 *
 * Safe to call from anywhere: it never throws and never blocks the UI. A batch that cannot be
 * delivered (offline, service down) is dropped after one attempt rather than piling up. The
 * request is a plain Connect-protocol JSON POST, so no RPC runtime is needed on the landing page.
 */

export type AnalyticsValue = string | number | boolean | null;
export type AnalyticsProps = Record<string, AnalyticsValue | undefined>;

export interface AnalyticsEventInit {
  name: string;
  properties: Record<string, AnalyticsValue>;
  timestampMs: number;
  url: string;
}

export interface AnalyticsSendOptions {
  /** The page is going away: the request must survive it. */
  keepalive?: boolean;
}

/** Delivers one batch. Replaced in tests with `setAnalyticsSender`. */
export type AnalyticsSender = (
  anonymousId: string,
  events: AnalyticsEventInit[],
  options?: AnalyticsSendOptions,
) => Promise<void>;

/** The names the BFF accepts (bff/internal/handlers/analytics.go): the spec's plus four of the analytics layer. */
export const ANALYTICS_EVENT_NAMES = [
  "transaction_started",
  "transaction_completed",
  "transaction_failed",
  "transaction_step_completed",
  "user_logged_in",
  "user_signed_up",
  "user_logged_out",
  "password_reset_requested",
  "profile_updated",
  "Application Closed",
  "landing_page_viewed",
  "clicked_features_section",
  "js_error",
  "unhandled_promise_rejection",
  "$pageview",
  "$pageleave",
  "$identify",
  "$reset",
] as const;
export type AnalyticsEventName = (typeof ANALYTICS_EVENT_NAMES)[number];

export const ANALYTICS_FLUSH_DELAY_MS = 2000;
/** Events per request; the BFF accepts at most 50. */
export const ANALYTICS_MAX_BATCH = 20;
/** Events kept while none can be sent; the oldest go first. */
export const ANALYTICS_MAX_QUEUE = 500;
/** Longest text kept in a property (stack traces: STACK_LIMIT); the BFF refuses events over 8 KiB. */
export const ANALYTICS_MAX_TEXT = 1000;
const STACK_LIMIT = 3000;
/** Errors reported per page load, so a render loop cannot flood the service. */
export const ANALYTICS_MAX_ERRORS = 20;

export const ANONYMOUS_ID_KEY = "thumela_anonymous_id";
const TRACK_PATH = "/thumela.bff.v1.AnalyticsService/Track";
const ALLOWED = new Set<string>(ANALYTICS_EVENT_NAMES);
const ANONYMOUS_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

export function isAllowedEventName(name: string): name is AnalyticsEventName {
  return ALLOWED.has(name);
}

/** The BFF's Track method over the Connect protocol's JSON encoding (timestamps as RFC 3339). */
export const fetchAnalyticsSender: AnalyticsSender = async (anonymousId, events, options = {}) => {
  const response = await fetch(TRACK_PATH, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" },
    credentials: "same-origin",
    keepalive: options.keepalive ?? false,
    body: JSON.stringify({
      anonymousId,
      events: events.map((event) => ({
        name: event.name,
        properties: event.properties,
        timestamp: new Date(event.timestampMs).toISOString(),
        url: event.url,
      })),
    }),
  });
  if (!response.ok) throw new Error(`analytics: HTTP ${response.status}`);
};

// Unit tests never talk to a network: they install their own sender when they look at events.
let sender: AnalyticsSender | undefined = import.meta.env.MODE === "test" ? undefined : fetchAnalyticsSender;
let queue: AnalyticsEventInit[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;
let listening = false;
let errorsReported = 0;
let installed = false;
/** The anonymous id when local storage is blocked. */
let fallbackId = "anonymous";

/** Records a usage event. Properties that are undefined are left out; unknown names are dropped. */
export function track(name: string, props: AnalyticsProps = {}): void {
  try {
    if (!isAllowedEventName(name)) {
      console.warn(`analytics: "${name}" is not an accepted event name; not sent`);
      return;
    }
    queue.push({ name, properties: cleanProperties(props), timestampMs: Date.now(), url: currentUrl() });
    if (queue.length > ANALYTICS_MAX_QUEUE) queue = queue.slice(queue.length - ANALYTICS_MAX_QUEUE);
    listenForPageHide();
    if (queue.length >= ANALYTICS_MAX_BATCH) {
      void flushAnalytics();
    } else {
      timer ??= setTimeout(() => void flushAnalytics(), ANALYTICS_FLUSH_DELAY_MS);
    }
  } catch {
    // Analytics must never break the product.
  }
}

/**
 * Sends whatever is queued now, in batches of at most ANALYTICS_MAX_BATCH (also called when the
 * page is hidden or closed, with keepalive). Resolves when every batch was delivered or dropped.
 */
export async function flushAnalytics(options: AnalyticsSendOptions = {}): Promise<void> {
  if (timer !== undefined) {
    clearTimeout(timer);
    timer = undefined;
  }
  if (queue.length === 0 || !sender) return;
  const send = sender;
  const id = anonymousId(); // taken now: resetAnalytics() changes it right after flushing
  const batches: AnalyticsEventInit[][] = [];
  for (let i = 0; i < queue.length; i += ANALYTICS_MAX_BATCH) batches.push(queue.slice(i, i + ANALYTICS_MAX_BATCH));
  queue = [];
  // Every request starts now (synchronously), which matters when the page is about to go away.
  const sending = batches.map(async (batch) => {
    try {
      await send(id, batch, options);
    } catch {
      // Dropped: a lost usage event is better than an unbounded queue or a retry storm.
    }
  });
  await Promise.all(sending);
}

/** After sign-in: ties this browser's events to the user (the spec sends the id and e-mail). */
export function identify(user: { id: string; email?: string } | undefined): void {
  if (!user?.id) return;
  track("$identify", { user_id: user.id, email: user.email || undefined });
}

/**
 * After sign-out: records `$reset`, sends what is queued under the current anonymous id, then
 * starts a new anonymous id so the next visitor on this browser is not linked to the last user.
 */
export function resetAnalytics(): Promise<void> {
  try {
    track("$reset");
    const flushed = flushAnalytics();
    writeAnonymousId(newAnonymousId());
    return flushed;
  } catch {
    return Promise.resolve();
  }
}

/**
 * Installs the page-lifetime listeners once: `$pageleave` and 'Application Closed' on pagehide
 * (then a keepalive flush), a flush when the tab is hidden, js_error for uncaught errors and
 * unhandled_promise_rejection for rejected promises nobody handled.
 */
export function installAnalytics(): void {
  if (installed || typeof window === "undefined") return;
  installed = true;
  listenForPageHide();
  window.addEventListener("pagehide", () => {
    track("$pageleave");
    track("Application Closed");
    void flushAnalytics({ keepalive: true });
  });
  window.addEventListener("error", (event: ErrorEvent) => {
    const error: unknown = event.error;
    reportError("js_error", {
      message: event.message || errorText(error),
      source: event.filename || undefined,
      line: event.lineno || undefined,
      column: event.colno || undefined,
      stack: error instanceof Error ? error.stack : undefined,
    });
  });
  window.addEventListener("unhandledrejection", (event: PromiseRejectionEvent) => {
    const reason: unknown = event.reason;
    reportError("unhandled_promise_rejection", {
      message: errorText(reason),
      stack: reason instanceof Error ? reason.stack : undefined,
    });
  });
}
/** Replaces the delivery (tests; `undefined` turns sending off). Clears the queue and counters. */
export function setAnalyticsSender(next: AnalyticsSender | undefined): void {
  sender = next;
  queue = [];
  errorsReported = 0;
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
}

/** The events waiting to be sent (tests and debugging). */
export function pendingAnalyticsEvents(): readonly AnalyticsEventInit[] {
  return queue;
}

function reportError(name: "js_error" | "unhandled_promise_rejection", props: AnalyticsProps) {
  if (errorsReported >= ANALYTICS_MAX_ERRORS) return;
  errorsReported += 1;
  track(name, props);
}

function errorText(value: unknown): string {
  if (value instanceof Error) return value.message || value.name;
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Keeps what JSON (and protobuf's Struct) can carry; long text is cut. */
function cleanProperties(props: AnalyticsProps): Record<string, AnalyticsValue> {
  const properties: Record<string, AnalyticsValue> = {};
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined) continue;
    if (typeof value === "string") {
      properties[key] = value.slice(0, key === "stack" ? STACK_LIMIT : ANALYTICS_MAX_TEXT);
    } else if (typeof value === "number") {
      properties[key] = Number.isFinite(value) ? value : null;
    } else {
      properties[key] = value;
    }
  }
  return properties;
}

function currentUrl(): string {
  return typeof window === "undefined" ? "" : window.location.href;
}

/** The browser's anonymous id, kept in local storage (the spec's local-storage persistence). */
export function anonymousId(): string {
  try {
    const existing = window.localStorage.getItem(ANONYMOUS_ID_KEY);
    if (existing && ANONYMOUS_ID_PATTERN.test(existing)) return existing;
    const created = newAnonymousId();
    writeAnonymousId(created);
    return created;
  } catch {
    return fallbackId;
  }
}
function writeAnonymousId(id: string) {
  fallbackId = id;
  try {
    window.localStorage.setItem(ANONYMOUS_ID_KEY, id);
  } catch {
    // Storage blocked: this page keeps the id in memory.
  }
}

function newAnonymousId(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  // randomUUID needs a secure context; getRandomValues does not.
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function listenForPageHide() {
  if (listening || typeof document === "undefined") return;
  listening = true;
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") void flushAnalytics({ keepalive: true });
  });
}
