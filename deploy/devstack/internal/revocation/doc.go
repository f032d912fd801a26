// Package revocation proves that a session revoked through one BFF replica stops working on
// another within a second: its calls answer Unauthenticated and its open live stream ends. Its
// test runs the stack with two BFFs (stacktest) and revokes in each way identity offers: a
// sign-out, "sign out" of one session, "sign out all other sessions" and a password change.
// docs/security-sessions.md describes the mechanism.
package revocation
