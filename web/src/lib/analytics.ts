/**
 * First-party analytics (DECISIONS.md): `track(name, props)` queues an event with its timestamp
 * and the page's URL; the queue is sent in batches to the BFF's AnalyticsService.Track, which
 * publishes them on the event bus. Nothing is sent anywhere else.
 *
 * Safe to call from anywhere: it never throws, never blocks the UI, and a batch that cannot be
 * delivered (offline, service not deployed yet) is dropped after one failed attempt rather than
 * piling up. The Connect runtime and the generated API are imported only when the first batch
 * leaves, so calling `track` costs the landing page nothing up front.
 */

export type AnalyticsValue = string | number | boolean | null;
export type AnalyticsProps = Record<string, AnalyticsValue | undefined>;

export interface AnalyticsEventInit {
  name: string;
  properties: Record<string, AnalyticsValue>;
  timestampMs: number;
  url: string;
}

/** Delivers one batch. Replaced in tests with `setAnalyticsSender`. */
export type AnalyticsSender = (anonymousId: string, events: AnalyticsEventInit[]) => Promise<void>;

export const ANALYTICS_FLUSH_DELAY_MS = 2000;
export const ANALYTICS_MAX_BATCH = 20;
const ANONYMOUS_ID_KEY = "thumela_anonymous_id";

const sendWithConnect: AnalyticsSender = async (anonymousId, events) => {
  const [{ createClient }, { timestampFromMs }, { AnalyticsService }, { transport }] = await Promise.all([
    import("@connectrpc/connect"),
    import("@bufbuild/protobuf/wkt"),
    import("@/gen/thumela/bff/v1/bff_pb"),
    import("./transport"),
  ]);
  await createClient(AnalyticsService, transport).track({
    anonymousId,
    events: events.map((event) => ({
      name: event.name,
      properties: event.properties,
      timestamp: timestampFromMs(event.timestampMs),
      url: event.url,
    })),
  });
};

// Unit tests never talk to a network: they install their own sender when they look at events.
let sender: AnalyticsSender | undefined = import.meta.env.MODE === "test" ? undefined : sendWithConnect;
let queue: AnalyticsEventInit[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;
let listening = false;

/** Records a usage event. Properties that are undefined are left out. */
export function track(name: string, props: AnalyticsProps = {}): void {
  try {
    const properties: Record<string, AnalyticsValue> = {};
    for (const [key, value] of Object.entries(props)) {
      if (value !== undefined) properties[key] = value;
    }
    queue.push({ name, properties, timestampMs: Date.now(), url: currentUrl() });
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

/** Sends whatever is queued now (also called when the page is hidden or closed). */
export async function flushAnalytics(): Promise<void> {
  if (timer !== undefined) {
    clearTimeout(timer);
    timer = undefined;
  }
  if (queue.length === 0) return;
  const batch = queue.slice(0, ANALYTICS_MAX_BATCH);
  queue = queue.slice(batch.length);
  if (queue.length > 0) timer = setTimeout(() => void flushAnalytics(), 0);
  if (!sender) return;
  try {
    await sender(anonymousId(), batch);
  } catch {
    // Dropped: a lost usage event is better than an unbounded queue or a retry storm.
  }
}

/** Replaces the delivery (tests; `undefined` turns sending off). Clears the queue. */
export function setAnalyticsSender(next: AnalyticsSender | undefined): void {
  sender = next;
  queue = [];
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
}

function currentUrl(): string {
  return typeof window === "undefined" ? "" : window.location.href;
}

/** The browser's anonymous id, kept in local storage (the spec's local-storage persistence). */
function anonymousId(): string {
  try {
    const existing = window.localStorage.getItem(ANONYMOUS_ID_KEY);
    if (existing) return existing;
    const created = crypto.randomUUID();
    window.localStorage.setItem(ANONYMOUS_ID_KEY, created);
    return created;
  } catch {
    return "anonymous";
  }
}

function listenForPageHide() {
  if (listening || typeof document === "undefined") return;
  listening = true;
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") void flushAnalytics();
  });
}
