package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
)

// EventsConfig says how the live-event latency is measured.
type EventsConfig struct {
	// Streams is how many WatchEvents streams are open, spread round-robin over the users.
	Streams int
	// OpenParallel bounds the streams being opened at once.
	OpenParallel int
	// Transfers are created at Rate per second, round-robin over the users, while the streams
	// are open; each should go pending → processing → completed.
	Transfers int
	Rate      float64
	// Wait is how long, after the last transfer was created, to wait for the last status.
	Wait time.Duration
	// WhileOpen, when set, is called once every stream is live, before any transfer is made
	// (the bench reads memory there).
	WhileOpen func()
	// NatsURL, when set, is tapped (a plain subscription to the transfers' status subjects) to
	// split each latency at the moment the event reached NATS.
	NatsURL string
	// NatsSeedFile is the observer's NKey seed (stack.Ready's NatsObserverSeedFile).
	NatsSeedFile string
}

// EventsResult is what the live-event phase measured.
type EventsResult struct {
	Streams     int     `json:"streams"`
	OpenSeconds float64 `json:"open_seconds"`
	OpenErrors  int     `json:"open_errors"`
	Created     int     `json:"transfers_created"`
	// Observed is the number of status changes that reached at least one of their user's
	// streams; Expected is three per created transfer (pending, processing, a final status).
	Observed int `json:"status_changes_observed"`
	Expected int `json:"status_changes_expected"`
	// Latency is from the transfer's updated_at in the event (the transfers service's wall
	// clock at the status change) to the event's first arrival on one of the user's streams
	// (the bench's wall clock; same host, same clock).
	Latency Summary `json:"latency_updated_at_to_first_arrival"`
	// LatencyAllStreams is to the arrival on the last of the user's streams.
	LatencyAllStreams Summary `json:"latency_updated_at_to_last_arrival"`
	// ByStatus splits Latency by the status reached.
	ByStatus map[string]Summary `json:"by_status"`
	// FromSend is, for the pending status, from the moment the bench sent CreateTransfer to the
	// event's first arrival (the bench's monotonic clock only).
	FromSend Summary `json:"pending_from_create_sent"`
	// ToNATS is from updated_at to the event's arrival at a plain NATS subscriber in this
	// process (the database commit and the service's outbox relay); FromNATS is from there to
	// the first stream (JetStream's consumers, the BFF, the Connect stream).
	ToNATS       Summary  `json:"updated_at_to_nats"`
	FromNATS     Summary  `json:"nats_to_first_arrival"`
	CreateErrors int      `json:"create_errors"`
	ErrorSamples []string `json:"error_samples,omitempty"`
	Negative     int      `json:"negative_latencies_clamped"`
}

type obsKey struct {
	id     string
	status bffv1.TransferStatus
}

type observation struct {
	first, last time.Time
	updatedAt   time.Time
	user        int
	streams     int
}

// Events opens the streams, waits until each has its first message (the heartbeat that says it
// is live), creates the transfers and times their status changes to the streams.
func Events(ctx context.Context, users []*User, cfg EventsConfig) (EventsResult, error) {
	res := EventsResult{Streams: cfg.Streams}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var mu sync.Mutex
	obs := map[obsKey]*observation{}
	// openOf counts each user's streams that are live (have had their first message).
	openOf := make([]int, len(users))

	// Tap NATS.
	natsAt := map[obsKey]time.Time{}
	if cfg.NatsURL != "" {
		creds, err := bus.Credentials{NKeySeedFile: cfg.NatsSeedFile, Identity: bus.IdentityObserver}.Options()
		if err != nil {
			return res, fmt.Errorf("tap NATS: %w", err)
		}
		nc, err := nats.Connect(cfg.NatsURL, append(creds, nats.Name("thumela-bench"))...)
		if err != nil {
			return res, fmt.Errorf("tap NATS: %w", err)
		}
		defer nc.Close()
		if _, err := nc.Subscribe("thumela.transfers.*.status", func(m *nats.Msg) {
			now := time.Now()
			var ev transfersv1.TransferStatusChanged
			if proto.Unmarshal(m.Data, &ev) != nil {
				return
			}
			key := obsKey{ev.GetTransfer().GetId(), bffv1.TransferStatus(ev.GetTransfer().GetStatus())}
			mu.Lock()
			if _, ok := natsAt[key]; !ok {
				natsAt[key] = now
			}
			mu.Unlock()
		}); err != nil {
			return res, fmt.Errorf("tap NATS: %w", err)
		}
		if err := nc.Flush(); err != nil {
			return res, fmt.Errorf("tap NATS: %w", err)
		}
	}

	// Open the streams.
	began := time.Now()
	sem := make(chan struct{}, max(1, cfg.OpenParallel))
	var ready, openErrors atomic.Int64
	var sampler errorSampler
	var samplerMu sync.Mutex
	var streams sync.WaitGroup
	for k := range cfg.Streams {
		ui := k % len(users)
		u := users[ui]
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return res, ctx.Err()
		}
		streams.Add(1)
		go func() {
			defer streams.Done()
			released := false
			release := func() {
				if !released {
					released = true
					<-sem
				}
			}
			defer release()
			stream, err := u.Events.WatchEvents(ctx, &bffv1.WatchEventsRequest{})
			if err != nil {
				openErrors.Add(1)
				samplerMu.Lock()
				sampler.add(err)
				samplerMu.Unlock()
				return
			}
			defer stream.Close() //nolint:errcheck // the stream is only read; its Close error says nothing
			seen := map[obsKey]bool{}
			first := true
			for stream.Receive() {
				now := time.Now()
				if first {
					first = false
					ready.Add(1)
					mu.Lock()
					openOf[ui]++
					mu.Unlock()
					release()
				}
				t := stream.Msg().GetTransferUpdated().GetTransfer()
				if t == nil {
					continue
				}
				key := obsKey{t.GetId(), t.GetStatus()}
				if seen[key] {
					continue // the voucher's event repeats the completed transfer
				}
				seen[key] = true
				mu.Lock()
				o := obs[key]
				if o == nil {
					o = &observation{first: now, updatedAt: t.GetUpdatedAt().AsTime(), user: ui}
					obs[key] = o
				}
				o.last = now
				o.streams++
				mu.Unlock()
			}
			if err := stream.Err(); err != nil && ctx.Err() == nil {
				if first {
					openErrors.Add(1)
				}
				samplerMu.Lock()
				sampler.add(err)
				samplerMu.Unlock()
			}
		}()
	}
	for ready.Load()+openErrors.Load() < int64(cfg.Streams) {
		if time.Since(began) > 2*time.Minute {
			return res, fmt.Errorf("only %d of %d streams opened within 2 minutes", ready.Load(), cfg.Streams)
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	res.OpenSeconds = time.Since(began).Seconds()
	res.OpenErrors = int(openErrors.Load()) // reported; the streams that opened are measured
	if res.OpenErrors == cfg.Streams {
		return res, fmt.Errorf("no stream opened: %v", sampler.samples)
	}
	// The senders confirm it is them (StepUp) before their transfers, untimed: each event's
	// latency runs from its create, which passes transfers' step-up check.
	if err := StepUpAll(ctx, users[:min(len(users), cfg.Transfers)], 8); err != nil {
		return res, err
	}
	// Let the consumers settle before the first event.
	time.Sleep(500 * time.Millisecond)
	if cfg.WhileOpen != nil {
		cfg.WhileOpen()
	}

	// Create the transfers at the given rate.
	type sentAt struct {
		id   string
		sent time.Time
	}
	var createMu sync.Mutex
	var sent []sentAt
	var creates sync.WaitGroup
	interval := time.Duration(float64(time.Second) / cfg.Rate)
	start := time.Now()
	for i := range cfg.Transfers {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return res, ctx.Err()
			}
		}
		u := users[i%len(users)]
		creates.Add(1)
		go func() {
			defer creates.Done()
			t0 := time.Now()
			r, err := u.Transfers.CreateTransfer(ctx, TransferRequest(u))
			createMu.Lock()
			defer createMu.Unlock()
			if err != nil {
				res.CreateErrors++
				samplerMu.Lock()
				sampler.add(err)
				samplerMu.Unlock()
				return
			}
			sent = append(sent, sentAt{r.GetTransfer().GetId(), t0})
		}()
	}
	creates.Wait()
	res.Created = len(sent)
	res.Expected = 3 * res.Created

	// Wait for every transfer's final status on all of its user's streams.
	final := func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range sent {
			done := false
			for _, st := range []bffv1.TransferStatus{bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED, bffv1.TransferStatus_TRANSFER_STATUS_FAILED} {
				if o := obs[obsKey{s.id, st}]; o != nil && o.streams >= openOf[o.user] {
					done = true
				}
			}
			if !done {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(cfg.Wait)
	for !final() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // stragglers of the last fan-out
	cancel()
	streams.Wait()

	// Compute.
	mu.Lock()
	defer mu.Unlock()
	ours := map[string]time.Time{}
	for _, s := range sent {
		ours[s.id] = s.sent
	}
	var first, all, fromSend, toNATS, fromNATS []time.Duration
	byStatus := map[string][]time.Duration{}
	for key, o := range obs {
		sentTime, ok := ours[key.id]
		if !ok {
			continue
		}
		res.Observed++
		d := o.first.Sub(o.updatedAt)
		if d < 0 {
			res.Negative++
			d = 0
		}
		first = append(first, d)
		name := statusName(key.status)
		byStatus[name] = append(byStatus[name], d)
		if o.streams >= openOf[o.user] {
			all = append(all, max(0, o.last.Sub(o.updatedAt)))
		}
		if at, ok := natsAt[key]; ok {
			toNATS = append(toNATS, max(0, at.Sub(o.updatedAt)))
			fromNATS = append(fromNATS, max(0, o.first.Sub(at)))
		}
		if key.status == bffv1.TransferStatus_TRANSFER_STATUS_PENDING {
			fromSend = append(fromSend, o.first.Sub(sentTime))
		}
	}
	res.Latency = Summarize(first, 0, 0, nil)
	res.LatencyAllStreams = Summarize(all, 0, 0, nil)
	res.FromSend = Summarize(fromSend, 0, 0, nil)
	res.ToNATS = Summarize(toNATS, 0, 0, nil)
	res.FromNATS = Summarize(fromNATS, 0, 0, nil)
	res.ByStatus = map[string]Summary{}
	for k, v := range byStatus {
		res.ByStatus[k] = Summarize(v, 0, 0, nil)
	}
	res.ErrorSamples = sampler.samples
	return res, nil
}

func statusName(s bffv1.TransferStatus) string {
	switch s {
	case bffv1.TransferStatus_TRANSFER_STATUS_PENDING:
		return "pending"
	case bffv1.TransferStatus_TRANSFER_STATUS_PROCESSING:
		return "processing"
	case bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED:
		return "completed"
	case bffv1.TransferStatus_TRANSFER_STATUS_FAILED:
		return "failed"
	}
	return s.String()
}
