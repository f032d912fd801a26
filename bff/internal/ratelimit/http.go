package ratelimit

import (
	"errors"
	"net/http"

	"connectrpc.com/connect"
)

// The BFF's file endpoints in the policy table: they are plain HTTP, not Connect procedures,
// so they are keyed by their mux pattern.
const (
	StatementEndpoint      = "GET /api/statement"
	ProofOfPaymentEndpoint = "GET /api/transfers/{id}/proof-of-payment.pdf"
)

// HTTP limits a plain HTTP endpoint by the policy keyed endpoint (a panic at start-up when
// there is none: a typo must not leave an endpoint unlimited). A refusal answers 429 with
// Retry-After and the same message as a refused RPC.
func (l *Limiter) HTTP(endpoint string, next http.Handler) http.Handler {
	p := l.policies[endpoint]
	if p == nil {
		panic("ratelimit: no policy for " + endpoint)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := l.check(r.Context(), p, r.RemoteAddr, r.Header, nil); err != nil {
			var cerr *connect.Error
			if errors.As(err, &cerr) {
				w.Header().Set("Retry-After", cerr.Meta().Get("Retry-After"))
				http.Error(w, cerr.Message(), http.StatusTooManyRequests)
				return
			}
			http.Error(w, "Too many attempts. Please try again later.", http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, r)
	})
}
