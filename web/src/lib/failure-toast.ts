import { toast } from "sonner";
import type { ExternalToast } from "sonner";

/**
 * How many of each action's toasts have left (or begun to leave) the screen: the toast on screen
 * is `${id}:${generation}`.
 */
const generations = new Map<string, number>();

const onScreen = (id: string) => `${id}:${generations.get(id) ?? 0}`;

/** Retires shown, the sonner id of a toast that has begun to leave, so the next show is new. */
function retire(id: string, shown: string) {
  if (onScreen(id) === shown) {
    generations.set(id, (generations.get(id) ?? 0) + 1);
  }
}

/**
 * The error toast of one action (signing in, verifying a code, resetting a password), under a
 * fixed id: a second failure replaces the first rather than stacking, and the action's success
 * dismisses it. Otherwise a "Verification failed" from a mistyped code was still on screen over
 * the dashboard that the right code had just opened.
 *
 * Replaced only while it is on screen. Sonner animates a toast out for 200 ms after its time is
 * up (or it is closed), and an update under its id in that moment went to the leaving toast: a
 * press then showed nothing at all. So once a toast begins to leave (onAutoClose, onDismiss), the
 * action's next failure is shown under a new id, as a toast of its own.
 */
export function failureToast(id: string) {
  return {
    show: (title: string, options?: Omit<ExternalToast, "id">) => {
      const shown = onScreen(id);
      return toast.error(title, {
        ...options,
        id: shown,
        onAutoClose: (t) => {
          retire(id, shown);
          options?.onAutoClose?.(t);
        },
        onDismiss: (t) => {
          retire(id, shown);
          options?.onDismiss?.(t);
        },
      });
    },
    dismiss: () => {
      toast.dismiss(onScreen(id));
    },
  };
}
