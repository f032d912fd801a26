// Package webhook is the HTTP listener for the SMS provider's delivery reports
// (POST /webhooks/bulksms/{token}) and the listener's health (GET /healthz).
//
// BulkSMS signs nothing: the registered URL holds an unguessable token, compared in constant
// time; a wrong one answers 404 as for any unknown path, and nothing about it is logged. A
// report is applied only to a message this service sent (by the provider's id, or by our own
// userSuppliedId for a delivery whose provider id was never recorded), so a forged report
// about anything else changes nothing.
package webhook

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/thumela/thumela/services/notifications/internal/adapters/bulksms"
	"github.com/thumela/thumela/services/notifications/internal/app"
	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/platform/listen"
)

// MaxBody bounds a report's body.
const MaxBody = 1 << 20

// Path is the reports' path pattern.
const Path = "/webhooks/bulksms/{token}"

// Handler serves the webhook.
type Handler struct {
	app    *app.Deliverer
	token  [sha256.Size]byte
	logger *slog.Logger
}

// New returns the handler; token is NOTIFICATIONS_WEBHOOK_TOKEN.
func New(deliverer *app.Deliverer, token string, logger *slog.Logger) *Handler {
	return &Handler{app: deliverer, token: sha256.Sum256([]byte(token)), logger: logger.With("component", "notifications.webhook")}
}

// ServeMux returns the routes.
func (h *Handler) ServeMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+Path, h.reports)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux
}

// validToken compares in constant time; hashing first makes the time independent of the
// length too.
func (h *Handler) validToken(token string) bool {
	got := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(got[:], h.token[:]) == 1
}

func (h *Handler) reports(w http.ResponseWriter, r *http.Request) {
	if !h.validToken(r.PathValue("token")) {
		http.NotFound(w, r)
		return
	}
	msgs, err := bulksms.DecodeReports(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "malformed reports", http.StatusBadRequest)
		return
	}
	reports := make([]app.ProviderReport, 0, len(msgs))
	for _, m := range msgs {
		reports = append(reports, app.ProviderReport{Report: m.Report(), UserSuppliedID: m.UserSuppliedID})
	}
	applied, ignored, err := h.app.ApplyReports(r.Context(), reports)
	if err != nil {
		// 5xx: the provider retries the whole batch; applying a report twice changes nothing.
		h.logger.ErrorContext(r.Context(), "delivery reports not applied", "error", err, "applied", applied)
		http.Error(w, "try again later", http.StatusServiceUnavailable)
		return
	}
	if ignored > 0 {
		h.logger.WarnContext(r.Context(), "delivery reports about no message of ours ignored", "ignored", ignored, "applied", applied)
	}
	w.WriteHeader(http.StatusOK)
}

// Component serves h on addr as a lifecycle component. The listener opens when it starts;
// an address in use fails the process's start.
func Component(addr string, h http.Handler, logger *slog.Logger) lifecycle.Component {
	// ReadTimeout bounds a request whole, body included: a client trickling a body (slow-loris)
	// is answered 400 and its connection closed at 15 s, before anything is applied. The
	// server's plain timeouts fit here, unlike the BFF's (bff/internal/server/limits.go): every
	// answer is short, and no handler wraps or closes the body, so net/http still sees a body
	// cut short and does not read its rest as another request.
	srv := &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	return lifecycle.Component{
		Name: "notifications-webhook",
		Start: func(ctx context.Context) error {
			ln, err := listen.TCP(addr)
			if err != nil {
				return fmt.Errorf("webhook listener on %s: %w", addr, err)
			}
			logger.InfoContext(ctx, "serving the SMS delivery-report webhook", "addr", ln.Addr().String())
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
		Stop: func(ctx context.Context) error {
			if err := srv.Shutdown(ctx); err != nil {
				_ = srv.Close()
			}
			return nil
		},
	}
}
