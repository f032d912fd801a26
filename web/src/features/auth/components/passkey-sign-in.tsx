import { ConnectError } from "@connectrpc/connect";
import { useTransport } from "@connectrpc/connect-query";
import { KeyRound } from "lucide-react";
import { useEffect, useEffectEvent, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import type { FinishPasskeySignInResponse } from "@/gen/thumela/bff/v1/bff_pb";
import { identify } from "@/lib/analytics";
import { errorMessage } from "@/lib/errors";
import { useStoreSession } from "../api/session";
import {
  PasskeyCancelledError,
  cancelPasskeyPrompt,
  passkeyAutofillSupported,
  passkeysSupported,
  signInWithPasskey,
} from "@/lib/passkeys";
import { SIGN_IN_FAILED } from "../lib/failure-toasts";
import { safeRedirect } from "../lib/safe-redirect";

const PASSKEY_FALLBACK = "We couldn't sign you in with a passkey. Please try again or use your password.";

/**
 * The login page's passkey sign-in: a 'Sign in with a passkey' button and, where the browser
 * has it, passkeys offered in the e-mail field's autofill (the field's autocomplete must end
 * in "webauthn"). Renders nothing in a browser without passkeys.
 */
export function PasskeySignIn() {
  const transport = useTransport();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const storeSession = useStoreSession();
  const [busy, setBusy] = useState(false);
  const [supported] = useState(passkeysSupported);
  const signedIn = async (session: FinishPasskeySignInResponse) => {
    await storeSession(session);
    if (session.user) identify(session.user);
    SIGN_IN_FAILED.dismiss();
    navigate(safeRedirect(searchParams.get("redirect")), { replace: true });
  };
  // The latest success handler, for the autofill request started once on mount.
  const autofillSignedIn = useEffectEvent(signedIn);

  useEffect(() => {
    if (!supported) return;
    let active = true;
    void (async () => {
      if (!(await passkeyAutofillSupported()) || !active) return;
      try {
        const session = await signInWithPasskey(transport, { autofill: true });
        if (active) await autofillSignedIn(session);
      } catch (error) {
        // Replaced by the button's prompt, or the page went away: nothing to say. A refusal
        // from the server is worth a toast.
        if (active && error instanceof ConnectError) {
          SIGN_IN_FAILED.show("Login failed", { description: errorMessage(error, PASSKEY_FALLBACK) });
        }
      }
    })();
    return () => {
      active = false;
      cancelPasskeyPrompt();
    };
  }, [supported, transport]);

  if (!supported) return null;

  const onClick = async () => {
    setBusy(true);
    try {
      await signedIn(await signInWithPasskey(transport));
    } catch (error) {
      if (error instanceof PasskeyCancelledError) {
        toast.info("Passkey sign-in cancelled", { description: "You can try again or log in with your password." });
      } else {
        SIGN_IN_FAILED.show("Login failed", { description: errorMessage(error, PASSKEY_FALLBACK) });
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="space-y-4">
      <div className="flex items-center gap-3 text-sm text-slate-500 dark:text-slate-400" aria-hidden="true">
        <span className="h-px flex-1 bg-slate-200 dark:bg-slate-700" />
        or
        <span className="h-px flex-1 bg-slate-200 dark:bg-slate-700" />
      </div>
      <Button type="button" variant="outline" size="lg" className="w-full" busy={busy} onClick={() => void onClick()}>
        {!busy && <KeyRound aria-hidden="true" className="size-5" />}
        {busy ? "Waiting for your passkey..." : "Sign in with a passkey"}
      </Button>
    </div>
  );
}
