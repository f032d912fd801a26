package bus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Stream names.
const (
	StreamEvents        = "THUMELA_EVENTS"
	StreamNotifications = "THUMELA_NOTIFICATIONS"
	// StreamNotificationsDead keeps the notification requests that can never be sent (a
	// payload that does not decode, secrets sealed under an unknown key, an unknown template),
	// with the reason, for someone to look at. Nothing consumes it automatically.
	StreamNotificationsDead = "THUMELA_NOTIFICATIONS_DEAD"
	StreamAnalytics         = "THUMELA_ANALYTICS"
)

// NotificationRetention is how long a notification request may wait on its stream: the
// notifications service retries a transient failure for up to 24 hours, and an hour more
// covers a consumer that was down when the last retry fell due.
const NotificationRetention = 25 * time.Hour

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
				Root + "." + DomainDeliveries + ".>",
			},
			Storage:    jetstream.FileStorage,
			Retention:  jetstream.LimitsPolicy,
			MaxAge:     7 * 24 * time.Hour,
			Duplicates: DuplicateWindow,
			Replicas:   o.replicas,
		},
		{
			// A work queue: the notifications service is its only consumer, and a request
			// leaves the stream when it is acknowledged, i.e. once it was sent or failed for good.
			Name:        StreamNotifications,
			Description: "SMS and e-mail to send (requests; secrets sealed for the notifications service)",
			Subjects:    []string{Root + "." + DomainNotifications + ".>"},
			Storage:     jetstream.FileStorage,
			Retention:   jetstream.WorkQueuePolicy,
			MaxAge:      NotificationRetention,
			Duplicates:  DuplicateWindow,
			Replicas:    o.replicas,
		},
		{
			Name:        StreamNotificationsDead,
			Description: "Notification requests that can never be sent, with the reason",
			Subjects:    []string{Root + "." + DomainNotificationsDead + ".>"},
			Storage:     jetstream.FileStorage,
			Retention:   jetstream.LimitsPolicy,
			MaxAge:      30 * 24 * time.Hour,
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
// and every service may call it at start, so no start order between services is needed. A
// connection with credentials (its inbox prefix names its identity, see Connect) ensures only
// the streams that identity publishes to, the only ones the permission table lets it create;
// a service that only consumes a stream waits for a publisher to create it. Without
// credentials (a server without authorization) it ensures them all.
func EnsureStreams(ctx context.Context, js jetstream.JetStream, opts ...StreamOption) error {
	owned := ownedStreams(js)
	for _, cfg := range StreamConfigs(opts...) {
		if owned != nil && !slices.Contains(owned, cfg.Name) {
			continue
		}
		if err := replaceLegacyNotifications(ctx, js, cfg); err != nil {
			return err
		}
		if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("bus: ensure stream %s: %w", cfg.Name, err)
		}
	}
	return nil
}

// ownedStreams returns the streams the connection's identity owns, nil when the connection
// names no identity of the table.
func ownedStreams(js jetstream.JetStream) []string {
	nc := js.Conn()
	if nc == nil {
		return nil
	}
	name, ok := strings.CutPrefix(nc.Opts.InboxPrefix, InboxPrefix(""))
	if !ok {
		return nil
	}
	id, ok := Lookup(name)
	if !ok {
		return nil
	}
	return append(id.OwnedStreams(), "") // non-nil even when empty
}

// replaceLegacyNotifications deletes a notifications stream of the first design (limits
// retention, 7 days), which JetStream cannot turn into a work queue in place. Its messages
// were never sent by anything (no delivery service existed) and carried PINs and codes in
// clear, so they are dropped rather than migrated.
func replaceLegacyNotifications(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) error {
	if cfg.Name != StreamNotifications {
		return nil
	}
	s, err := js.Stream(ctx, cfg.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bus: read stream %s: %w", cfg.Name, err)
	}
	if s.CachedInfo().Config.Retention == cfg.Retention {
		return nil
	}
	if err := js.DeleteStream(ctx, cfg.Name); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("bus: replace legacy stream %s: %w", cfg.Name, err)
	}
	return nil
}
