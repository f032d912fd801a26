import { toast } from "sonner";
import type { ExternalToast } from "sonner";

/**
 * The error toast of one action (signing in, verifying a code, resetting a password), under a
 * fixed id: a second failure replaces the first rather than stacking, and the action's success
 * dismisses it. Otherwise a "Verification failed" from a mistyped code was still on screen over
 * the dashboard that the right code had just opened.
 */
export function failureToast(id: string) {
  return {
    show: (title: string, options?: Omit<ExternalToast, "id">) => toast.error(title, { ...options, id }),
    dismiss: () => {
      toast.dismiss(id);
    },
  };
}
