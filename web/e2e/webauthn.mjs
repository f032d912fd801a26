// Chromium's virtual authenticator for the browser tests: a platform passkey provider (like
// Touch ID or Windows Hello) that answers navigator.credentials without a person, reached
// through the DevTools protocol's WebAuthn domain over a playwright CDP session.
//
// The authenticator belongs to one page (one DevTools target): it survives navigations within
// that page, but a new page (a new tab) needs its own. Credentials live in the authenticator,
// so a passkey registered on a page can sign in on that same page after a sign-out.

/**
 * Attaches a virtual authenticator to `page` and resolves to a handle:
 *   - authenticatorId: the DevTools id
 *   - credentials(): the passkeys it holds ([{credentialId, rpId, userHandle, signCount, isResidentCredential}])
 *   - setUserVerified(bool): whether the next ceremonies pass user verification (default true)
 *   - clear(): forgets every credential (as if the user deleted the passkey on the device)
 *   - remove(): detaches the authenticator and the CDP session
 *
 * Defaults: CTAP2, internal transport (a platform authenticator), resident keys (discoverable
 * credentials, needed for 'Sign in with a passkey' and the autofill UI), user verification
 * supported and passing, and automatic presence so no prompt waits for a touch.
 * `options` overrides any VirtualAuthenticatorOptions field of the protocol.
 *
 * @param {import("playwright-core").Page} page
 * @param {Record<string, unknown>} [options]
 */
export async function addVirtualAuthenticator(page, options = {}) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
      ...options,
    },
  });
  return {
    authenticatorId,
    cdp,
    async credentials() {
      const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
      return credentials;
    },
    async setUserVerified(isUserVerified) {
      await cdp.send("WebAuthn.setUserVerified", { authenticatorId, isUserVerified });
    },
    async clear() {
      await cdp.send("WebAuthn.clearCredentials", { authenticatorId });
    },
    async remove() {
      await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
      await cdp.send("WebAuthn.disable");
      await cdp.detach();
    },
  };
}
