import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { EventsService, WatchEventsResponseSchema } from "@/gen/thumela/bff/v1/bff_pb";
import type { WatchEventsRequest, WatchEventsResponse } from "@/gen/thumela/bff/v1/bff_pb";

type EventInit = MessageInitShape<typeof WatchEventsResponseSchema>;

/**
 * A fake EventsService.WatchEvents for tests: `push` sends an event down every open stream,
 * `fail` ends the open streams with an error, `requests` lists what each (re)connection asked.
 */
export function liveFeed() {
  const requests: WatchEventsRequest[] = [];
  const streams = new Set<{ queue: Array<WatchEventsResponse | Error>; wake: () => void }>();

  function broadcast(item: WatchEventsResponse | Error) {
    for (const stream of streams) {
      stream.queue.push(item);
      stream.wake();
    }
  }

  return {
    requests,
    get open() {
      return streams.size;
    },
    push(event: EventInit) {
      broadcast(create(WatchEventsResponseSchema, event));
    },
    fail(error: Error) {
      broadcast(error);
    },
    register(router: ConnectRouter) {
      router.service(EventsService, {
        async *watchEvents(request, context) {
          requests.push(request);
          const stream = { queue: [] as Array<WatchEventsResponse | Error>, wake: () => {} };
          streams.add(stream);
          try {
            while (!context.signal.aborted) {
              const next = stream.queue.shift();
              if (next instanceof Error) throw next;
              if (next) {
                yield next;
                continue;
              }
              await new Promise<void>((resolve) => {
                stream.wake = resolve;
                context.signal.addEventListener("abort", () => resolve(), { once: true });
              });
            }
          } finally {
            streams.delete(stream);
          }
        },
      });
    },
  };
}
