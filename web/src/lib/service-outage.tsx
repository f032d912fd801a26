import { Code, ConnectError } from "@connectrpc/connect";
import type { Transport } from "@connectrpc/connect";
import { createContext, use, useSyncExternalStore } from "react";
import type { ReactNode } from "react";

/**
 * What a person is told while the payment system cannot be reached (issue 18): the BFF answers
 * Unavailable with this same sentence. The banner shows it from here rather than from the
 * answer, so a proxy's 503 (which Connect also reads as Unavailable) says it too.
 */
export const PAYMENT_SYSTEM_UNREACHABLE =
  "We can't reach our payment system right now. Your money is safe; try again in a minute.";

/**
 * Which of the BFF's services (by type name, e.g. thumela.bff.v1.PaymentMethodsService) last
 * answered Unavailable. An outage is shown while any of them has not answered since, so that a
 * call to another service that still works (the session, the limits) does not hide it; it ends
 * when the failed service answers again, or when the person dismisses it, until the next
 * Unavailable.
 */
export class ServiceOutage {
  readonly #down = new Set<string>();
  readonly #listeners = new Set<() => void>();
  #dismissed = false;

  /** A call to `service` answered Unavailable. */
  unreachable(service: string): void {
    this.#down.add(service);
    this.#dismissed = false;
    this.#emit();
  }

  /** A call to `service` was answered (successfully, or with any other error: it is reachable). */
  reached(service: string): void {
    if (this.#down.delete(service)) this.#emit();
  }

  dismiss(): void {
    this.#dismissed = true;
    this.#emit();
  }

  /** Whether the outage is to be shown now. */
  readonly isShown = (): boolean => this.#down.size > 0 && !this.#dismissed;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  #emit(): void {
    for (const listener of this.#listeners) listener();
  }
}

// Codes that carry no answer from a service: the browser's own failure to get any (Unknown),
// the caller giving up (Canceled) or the deadline passing (DeadlineExceeded).
const NO_ANSWER = new Set([Code.Unknown, Code.Canceled, Code.DeadlineExceeded]);

/**
 * `transport`, telling `outage` how each unary call went: Unavailable marks its service
 * unreachable, any answer from it (a result, or an error such as NotFound) reachable. Streams
 * are left out: the live events stream reconnects on its own and says nothing about whether a
 * payment can be made.
 */
export function reportingOutages(transport: Transport, outage: ServiceOutage): Transport {
  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const service = method.parent.typeName;
      try {
        const response = await transport.unary(method, signal, timeoutMs, header, input, contextValues);
        outage.reached(service);
        return response;
      } catch (error) {
        const code = error instanceof ConnectError ? error.code : Code.Unknown;
        if (code === Code.Unavailable) outage.unreachable(service);
        else if (!NO_ANSWER.has(code)) outage.reached(service);
        throw error;
      }
    },
    stream(method, signal, timeoutMs, header, input, contextValues) {
      return transport.stream(method, signal, timeoutMs, header, input, contextValues);
    },
  };
}

// Outside a provider (a component rendered on its own) nothing is ever unreachable.
const ServiceOutageContext = createContext(new ServiceOutage());

export function ServiceOutageProvider({ outage, children }: { outage: ServiceOutage; children: ReactNode }) {
  return <ServiceOutageContext value={outage}>{children}</ServiceOutageContext>;
}

/** Whether the payment system is unreachable now, and how to dismiss the notice. */
export function useServiceOutage(): { shown: boolean; dismiss: () => void } {
  const outage = use(ServiceOutageContext);
  const shown = useSyncExternalStore(outage.subscribe, outage.isShown);
  return { shown, dismiss: () => outage.dismiss() };
}
