package bus

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Stream names.
const (
	StreamEvents        = "THUMELA_EVENTS"
	StreamNotifications = "THUMELA_NOTIFICATIONS"
	StreamAnalytics     = "THUMELA_ANALYTICS"
)

// DuplicateWindow is how long JetStream remembers a Nats-Msg-Id. The outbox relay may
// re-publish a message after a crash between publish and commit; the window must outlast the
// relay's restart so the copy is dropped.
const DuplicateWindow = 10 * time.Minute

type streamOptions struct{ replicas int }

// StreamOption tunes StreamConfigs and EnsureStreams.
type StreamOption func(*streamOptions)

// WithReplicas sets the replica count of every stream: 1 for a single local server, 3 for the
// production cluster.
func WithReplicas(n int) StreamOption { return func(o *streamOptions) { o.replicas = n } }

// StreamConfigs returns the configuration of Thumela's streams. Every stream keeps the outbox's
// duplicate window, since every one of them is fed through an outbox.
func StreamConfigs(opts ...StreamOption) []jetstream.StreamConfig {
	o := streamOptions{replicas: 1}
	for _, opt := range opts {
		opt(&o)
	}
	return []jetstream.StreamConfig{
		{
			Name:        StreamEvents,
			Description: "Domain events of the services, per user",
			Subjects: []string{
				Root + "." + DomainIdentity + ".>",
				Root + "." + DomainProfiles + ".>",
				Root + "." + DomainPaymentMethods + ".>",
				Root + "." + DomainTransfers + ".>",
			},
			Storage:    jetstream.FileStorage,
			Retention:  jetstream.LimitsPolicy,
			MaxAge:     7 * 24 * time.Hour,
			Duplicates: DuplicateWindow,
			Replicas:   o.replicas,
		},
		{
			Name:        StreamNotifications,
			Description: "SMS and e-mail to send",
			Subjects:    []string{Root + "." + DomainNotifications + ".>"},
			Storage:     jetstream.FileStorage,
			Retention:   jetstream.LimitsPolicy,
			MaxAge:      7 * 24 * time.Hour,
			Duplicates:  DuplicateWindow,
			Replicas:    o.replicas,
		},
		{
			Name:        StreamAnalytics,
			Description: "Product analytics; oldest data is dropped first when full",
			Subjects:    []string{Root + "." + DomainAnalytics + ".>"},
			Storage:     jetstream.FileStorage,
			Retention:   jetstream.LimitsPolicy,
			MaxAge:      30 * 24 * time.Hour,
			MaxBytes:    1 << 30,
			Discard:     jetstream.DiscardOld,
			Duplicates:  DuplicateWindow,
			Replicas:    o.replicas,
		},
	}
}

// EnsureStreams creates Thumela's streams or updates them to StreamConfigs. It is idempotent
// and every service may call it at start, so no start order between services is needed.
func EnsureStreams(ctx context.Context, js jetstream.JetStream, opts ...StreamOption) error {
	for _, cfg := range StreamConfigs(opts...) {
		if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("bus: ensure stream %s: %w", cfg.Name, err)
		}
	}
	return nil
}
