/**
 * Zod, configured for this app: every schema module imports `z` from here, not from "zod".
 *
 * jitless: Zod's first parse of an object schema probes whether it may compile a fast parser
 * with `new Function`. The BFF's Content Security Policy (no 'unsafe-eval') refuses that, so
 * every page with a form logged a CSP violation (and would report one wherever reports are
 * collected). Zod falls back to its interpreted parser either way; jitless skips the probe.
 * Kept out of the landing page's bundle: only the form modules import it.
 */
import { z } from "zod";

z.config({ jitless: true });

export { z };
