package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/postgres"
)

const tracerName = "github.com/thumela/thumela/services/platform/outbox"

// Relay defaults.
const (
	DefaultBatchSize        = 256
	DefaultFallbackInterval = 5 * time.Second
	DefaultPublishTimeout   = 5 * time.Second
	DefaultMaxBackoff       = 2 * time.Second
	DefaultPruneInterval    = time.Hour
	DefaultRetention        = 24 * time.Hour

	minBackoff       = 50 * time.Millisecond
	maxListenBackoff = 5 * time.Second
	pruneChunk       = 10_000
)

// ErrNATSUnavailable is reported (in logs) while the NATS connection is not established.
var ErrNATSUnavailable = errors.New("outbox: NATS connection not established")

// ErrAlreadyRunning is returned by Run when the Relay is already running.
var ErrAlreadyRunning = errors.New("outbox: relay already running")

type relayConfig struct {
	batchSize      int
	fallback       time.Duration
	publishTimeout time.Duration
	maxBackoff     time.Duration
	pruneInterval  time.Duration
	retention      time.Duration
	meterProvider  metric.MeterProvider
}

// RelayOption tunes NewRelay.
type RelayOption func(*relayConfig)

// WithBatchSize sets how many rows one drain transaction locks and publishes (default 256).
func WithBatchSize(n int) RelayOption { return func(c *relayConfig) { c.batchSize = n } }

// WithFallbackInterval sets how often the relay drains without a wake-up (default 5 s).
// Wake-ups carry the hot path (in memory from Write in this process, NOTIFY from elsewhere);
// the timer only catches rows a missed wake-up left behind (relay down at commit, LISTEN
// connection being re-established).
func WithFallbackInterval(d time.Duration) RelayOption {
	return func(c *relayConfig) { c.fallback = d }
}

// WithPublishTimeout bounds the wait for JetStream's acks of one batch (default 5 s).
func WithPublishTimeout(d time.Duration) RelayOption {
	return func(c *relayConfig) { c.publishTimeout = d }
}

// WithMaxBackoff caps the retry delay while publishing fails (default 2 s): the first events
// after NATS returns are at most this late.
func WithMaxBackoff(d time.Duration) RelayOption { return func(c *relayConfig) { c.maxBackoff = d } }

// WithPruning sets how often published rows are deleted and how long they are kept
// (defaults 1 h and 24 h; kept rows help investigate "was it sent?"). interval <= 0 disables
// pruning by this relay.
func WithPruning(interval, retention time.Duration) RelayOption {
	return func(c *relayConfig) { c.pruneInterval, c.retention = interval, retention }
}

// WithMeterProvider sets where the relay's metrics go (default: the global MeterProvider, which
// telemetry.Setup installs): thumela.outbox.published, thumela.outbox.publish.duration,
// thumela.outbox.lag and thumela.outbox.pending, each with the schema attribute.
func WithMeterProvider(mp metric.MeterProvider) RelayOption {
	return func(c *relayConfig) { c.meterProvider = mp }
}

// Relay publishes a schema's outbox rows to JetStream. Run one per process: replicas of a
// service may all run theirs, and every row is still published by exactly one of them (and
// published again only after a crash between publish and mark, which JetStream drops as a
// duplicate of the same Nats-Msg-Id).
type Relay struct {
	pool    *pgxpool.Pool
	js      jetstream.JetStream
	logger  *slog.Logger
	cfg     relayConfig
	tracer  trace.Tracer
	table   string // quoted "<schema>"."outbox"
	channel string
	lockKey int64
	metrics *relayMetrics

	wake    chan struct{} // capacity 1: wake-ups that arrive during a drain coalesce
	running atomic.Bool

	outageSince time.Time // owned by the Run goroutine
}

// NewRelay returns a relay for the outbox in schema. It does not touch the database or NATS
// until Run.
func NewRelay(pool *pgxpool.Pool, js jetstream.JetStream, schema string, logger *slog.Logger, opts ...RelayOption) (*Relay, error) {
	if err := postgres.ValidateSchema(schema); err != nil {
		return nil, err
	}
	// NOTIFY channels are identifiers: longer names would be truncated and never match.
	if len(Channel(schema)) > 63 {
		return nil, fmt.Errorf("outbox: schema %q too long for a NOTIFY channel", schema)
	}
	if pool == nil || js == nil {
		return nil, errors.New("outbox: NewRelay needs a pool and a JetStream context")
	}
	if logger == nil {
		logger = slog.Default()
	}
	cfg := relayConfig{
		batchSize:      DefaultBatchSize,
		fallback:       DefaultFallbackInterval,
		publishTimeout: DefaultPublishTimeout,
		maxBackoff:     DefaultMaxBackoff,
		pruneInterval:  DefaultPruneInterval,
		retention:      DefaultRetention,
	}
	for _, opt := range opts {
		opt(&cfg)
	}
	if cfg.batchSize <= 0 || cfg.fallback <= 0 || cfg.publishTimeout <= 0 || cfg.maxBackoff <= 0 {
		return nil, errors.New("outbox: batch size, fallback interval, publish timeout and max backoff must be positive")
	}
	if cfg.meterProvider == nil {
		cfg.meterProvider = otel.GetMeterProvider()
	}
	metrics, err := newRelayMetrics(cfg.meterProvider, schema)
	if err != nil {
		return nil, err
	}
	return &Relay{
		pool:    pool,
		js:      js,
		logger:  logger.With("component", "outbox.relay", "schema", schema),
		cfg:     cfg,
		tracer:  otel.Tracer(tracerName),
		table:   pgx.Identifier{schema, "outbox"}.Sanitize(),
		channel: Channel(schema),
		lockKey: postgres.AdvisoryKey("thumela.outbox." + schema),
		metrics: metrics,
		wake:    make(chan struct{}, 1),
	}, nil
}

// Run publishes until ctx is cancelled, then returns nil. It never gives up on a failure of
// PostgreSQL or NATS: it logs once per outage, backs off and retries, and unpublished rows
// simply wait. It drains on start, whenever Write in this process commits (an in-memory
// wake-up), on every NOTIFY on the outbox's channel (Write's fallback, after the writer's
// commit), and on the fallback timer. While it runs, it reports the backlog gauges.
func (r *Relay) Run(ctx context.Context) error {
	if !r.running.CompareAndSwap(false, true) {
		return ErrAlreadyRunning
	}
	defer r.running.Store(false)

	// Only a running relay reports the backlog: a stopped replica's series then goes stale
	// instead of repeating its last value.
	if reg, err := r.metrics.meter.RegisterCallback(r.observeBacklog, r.metrics.lag, r.metrics.pending); err != nil {
		r.logger.Warn("outbox backlog gauges unavailable", "error", err)
	} else {
		defer func() { _ = reg.Unregister() }()
	}

	// From here on Write in this process wakes this relay in memory instead of notifying.
	registerLocal(r)
	defer unregisterLocal(r)

	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Go(func() { r.listen(ctx) })
	if r.cfg.pruneInterval > 0 {
		wg.Go(func() { r.pruneLoop(ctx) })
	}

	fallback := time.NewTimer(0) // drain at once: rows may have been written while we were down
	defer fallback.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.wake:
		case <-fallback.C:
		}
		r.drain(ctx)
		fallback.Reset(r.cfg.fallback)
	}
}

func (r *Relay) notify() {
	select {
	case r.wake <- struct{}{}:
	default: // a wake-up is already pending; the drain it triggers will see this row too
	}
}

// drain publishes batches until one comes back short, retrying failures with capped
// exponential backoff. Wake-ups arriving meanwhile coalesce into one pending drain, which
// starts after they were sent and so sees every row committed before them.
func (r *Relay) drain(ctx context.Context) {
	backoff := minBackoff
	for ctx.Err() == nil {
		full, err := r.drainBatch(ctx)
		if err == nil {
			r.recovered()
			if !full {
				return
			}
			backoff = minBackoff
			continue
		}
		if ctx.Err() != nil {
			return
		}
		r.failed(err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, r.cfg.maxBackoff)
	}
}

func (r *Relay) failed(err error) {
	if r.outageSince.IsZero() {
		r.outageSince = time.Now()
		r.logger.Warn("outbox relay cannot publish; events stay in the outbox and are retried", "error", err)
	}
}

func (r *Relay) recovered() {
	if !r.outageSince.IsZero() {
		r.logger.Info("outbox relay publishing again", "outage", time.Since(r.outageSince).Round(time.Millisecond))
		r.outageSince = time.Time{}
	}
}

type row struct {
	seq     int64
	id      uuid.UUID
	subject string
	payload []byte
	headers map[string]string
}

// drainBatch publishes one batch in one transaction and marks the acknowledged rows. It
// reports whether the batch was full (more rows may be waiting). Rows whose publish failed
// stay unpublished for the next attempt; a row published but not marked (crash, failed
// commit) is published again with the same Nats-Msg-Id and dropped by JetStream.
//
// The transaction-scoped advisory lock makes replicas take turns rather than split the
// backlog: this keeps events in commit order on the stream (a consumer must not see
// "completed" before "processing"). SKIP LOCKED keeps a row locked by anything else from
// stalling the relay.
//
// The lock is waited for, never tried, and that is what makes Write's in-memory wake-up
// enough with replicas, where it reaches only the relay of the writer's process. Say replica
// A is mid-batch when replica B's process commits a row and wakes B. A's SELECT ran before
// that commit, so A will not publish the row, and no NOTIFY tells A about it. B's drain
// queues here until A's batch transaction ends, then its SELECT takes a fresh READ COMMITTED
// snapshot, taken after the row's commit (the wake-up came after it), so B publishes the row
// right after A's batch rather than at the next fallback sweep. A try-lock that gave up when
// the lock is busy would strand exactly that row until the sweep. PostgreSQL grants the lock
// in request order, so B also goes before A's next batch of a long backlog. The price is one
// pooled connection waiting in the lock queue per waiting replica.
func (r *Relay) drainBatch(ctx context.Context) (full bool, err error) {
	if nc := r.js.Conn(); nc == nil || nc.Status() != nats.CONNECTED {
		return false, ErrNATSUnavailable
	}
	var (
		pubErr  error
		started time.Time // set once there are rows: the batch's publish duration starts here
		acked   []int64
	)
	err = postgres.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", r.lockKey); err != nil {
			return fmt.Errorf("outbox: lock: %w", err)
		}
		started = time.Now()
		rows, err := tx.Query(ctx, `SELECT seq, id, subject, payload, headers FROM `+r.table+`
			WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`, r.cfg.batchSize)
		if err != nil {
			return fmt.Errorf("outbox: select: %w", err)
		}
		batch, err := pgx.CollectRows(rows, func(cr pgx.CollectableRow) (row, error) {
			var rw row
			err := cr.Scan(&rw.seq, &rw.id, &rw.subject, &rw.payload, &rw.headers)
			return rw, err
		})
		if err != nil {
			return fmt.Errorf("outbox: select: %w", err)
		}
		if len(batch) == 0 {
			started = time.Time{} // an empty drain is not a publish
			return nil
		}
		full = len(batch) == r.cfg.batchSize

		acked, pubErr = r.publish(ctx, batch)
		if len(acked) > 0 {
			// The wall clock at the ack (clock_timestamp), not now(): now() is the transaction's
			// start, before the advisory lock was waited for, and would read as published before
			// some rows were created. Ephemeral rows (notification requests, whose sealed secrets
			// need not outlive their delivery to JetStream) are deleted instead of kept.
			if _, err := tx.Exec(ctx, markPublishedSQL(r.table), acked); err != nil {
				return fmt.Errorf("outbox: mark published: %w", err)
			}
		}
		// Commit even after a partial failure, so what was acknowledged is not sent again.
		return nil
	})
	if !started.IsZero() {
		// A batch whose transaction failed was still an attempt worth timing; its rows are
		// not counted as published, since they will be published (and counted) again.
		r.metrics.duration.Record(ctx, time.Since(started).Seconds(), r.metrics.schema)
		if err == nil && len(acked) > 0 {
			r.metrics.published.Add(ctx, int64(len(acked)), r.metrics.schema)
		}
	}
	if err == nil {
		err = pubErr
	}
	return full && err == nil, err
}

// observeBacklog reports the lag and pending gauges. Both come from one query on the partial
// index of unpublished rows (outbox_unpublished_idx), so a scrape costs the same whether the
// table holds a hundred rows or ten million published ones: the oldest unpublished row is the
// first index entry, and the count stops at PendingCountCap. Age is measured on the database's
// clock, the one created_at comes from (the writer's transaction start). When the database
// cannot answer, the gauges are left out of this collection (no value beats a wrong one).
func (r *Relay) observeBacklog(ctx context.Context, o metric.Observer) error {
	ctx, cancel := context.WithTimeout(ctx, backlogQueryTimeout)
	defer cancel()
	var (
		lag     float64
		pending int64
	)
	err := r.pool.QueryRow(ctx, `SELECT
		coalesce((SELECT greatest(extract(epoch FROM clock_timestamp() - created_at), 0)::float8
			FROM `+r.table+` WHERE published_at IS NULL ORDER BY seq LIMIT 1), 0),
		(SELECT count(*) FROM (SELECT FROM `+r.table+` WHERE published_at IS NULL LIMIT $1) AS backlog)`,
		PendingCountCap).Scan(&lag, &pending)
	if err != nil {
		r.logger.Debug("outbox backlog gauges: query failed", "error", err)
		return nil
	}
	o.ObserveFloat64(r.metrics.lag, lag, r.metrics.schema)
	o.ObserveInt64(r.metrics.pending, pending, r.metrics.schema)
	return nil
}

// publish sends the batch with async publishes (one round trip for the whole batch rather
// than one per message) and returns the seqs JetStream acknowledged, duplicates included.
func (r *Relay) publish(ctx context.Context, batch []row) (acked []int64, firstErr error) {
	type pending struct {
		seq  int64
		paf  jetstream.PubAckFuture
		span trace.Span
	}
	fail := func(span trace.Span, err error) {
		span.RecordError(err)
		span.SetStatus(codes.Error, "publish failed")
		span.End()
		if firstErr == nil {
			firstErr = err
		}
	}
	inflight := make([]pending, 0, len(batch))
	for _, rw := range batch {
		// Continue the writer's trace: the publish span is a child of the span that wrote the
		// row, and consumers become children of the publish span.
		parent := otel.GetTextMapPropagator().Extract(ctx, propagation.MapCarrier(rw.headers))
		pctx, span := r.tracer.Start(parent, "outbox.publish",
			trace.WithSpanKind(trace.SpanKindProducer),
			trace.WithAttributes(
				attribute.String("messaging.system", "nats"),
				attribute.String("messaging.operation.type", "send"),
				attribute.String("messaging.destination.name", rw.subject),
				attribute.String("messaging.message.id", rw.id.String()),
				attribute.Int("messaging.message.body.size", len(rw.payload)),
			))
		msg := nats.NewMsg(rw.subject)
		msg.Data = rw.payload
		for k, v := range rw.headers {
			msg.Header.Set(k, v)
		}
		bus.InjectTrace(pctx, msg.Header)
		paf, err := r.js.PublishMsgAsync(msg, jetstream.WithMsgID(rw.id.String()))
		if err != nil {
			fail(span, fmt.Errorf("outbox: publish %s: %w", rw.id, err))
			continue
		}
		inflight = append(inflight, pending{seq: rw.seq, paf: paf, span: span})
	}

	deadline := time.NewTimer(r.cfg.publishTimeout)
	defer deadline.Stop()
	expired := false
	for _, p := range inflight {
		if expired {
			// Past the deadline: take what has already arrived, fail the rest.
			select {
			case <-p.paf.Ok():
				p.span.End()
				acked = append(acked, p.seq)
			default:
				fail(p.span, fmt.Errorf("outbox: publish %s: %w", p.paf.Msg().Header.Get(jetstream.MsgIDHeader), jetstream.ErrAsyncPublishTimeout))
			}
			continue
		}
		select {
		case ack := <-p.paf.Ok():
			if ack != nil && ack.Duplicate {
				p.span.SetAttributes(attribute.Bool("outbox.duplicate", true))
			}
			p.span.End()
			acked = append(acked, p.seq)
		case err := <-p.paf.Err():
			fail(p.span, fmt.Errorf("outbox: publish %s: %w", p.paf.Msg().Header.Get(jetstream.MsgIDHeader), err))
		case <-deadline.C:
			expired = true
			fail(p.span, fmt.Errorf("outbox: publish %s: %w", p.paf.Msg().Header.Get(jetstream.MsgIDHeader), jetstream.ErrAsyncPublishTimeout))
		case <-ctx.Done():
			expired = true
			fail(p.span, ctx.Err())
		}
	}
	return acked, firstErr
}

// listen keeps a dedicated connection LISTENing on the channel and turns every notification
// into a wake-up. Writes through postgres.InTx in this process wake the relay in memory and
// send no NOTIFY; the channel carries Write's fallback: transactions InTx did not start, and
// processes without a relay of their own. A dropped connection is re-established with
// backoff; the fallback timer covers the gap, and a drain is triggered on every reconnect.
func (r *Relay) listen(ctx context.Context) {
	backoff := minBackoff
	down := false
	for ctx.Err() == nil {
		connected, err := r.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if connected {
			backoff = minBackoff
			down = false
		}
		if !down {
			down = true
			r.logger.Warn("outbox LISTEN connection lost; reconnecting (fallback timer covers the gap)", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, maxListenBackoff)
	}
}

func (r *Relay) listenOnce(ctx context.Context) (connected bool, err error) {
	cfg := r.pool.Config().ConnConfig.Copy()
	cfg.Tracer = nil // one span per wake-up wait would only be noise
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{r.channel}.Sanitize()); err != nil {
		return false, err
	}
	r.notify() // rows committed while nobody listened
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return true, err
		}
		r.notify()
	}
}

func (r *Relay) pruneLoop(ctx context.Context) {
	ticker := time.NewTicker(r.cfg.pruneInterval)
	defer ticker.Stop()
	for {
		if n, err := r.Prune(ctx, r.cfg.retention); err != nil && ctx.Err() == nil {
			r.logger.Warn("outbox prune failed", "error", err)
		} else if n > 0 {
			r.logger.Debug("outbox pruned", "rows", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// Prune deletes rows published more than olderThan ago and returns how many. It deletes in
// chunks so a large backlog never holds locks or bloats one transaction; unpublished rows
// are never touched.
func (r *Relay) Prune(ctx context.Context, olderThan time.Duration) (int64, error) {
	var total int64
	for {
		tag, err := r.pool.Exec(ctx, pruneSQL(r.table), olderThan.Microseconds(), pruneChunk)
		if err != nil {
			return total, fmt.Errorf("outbox: prune: %w", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < pruneChunk {
			return total, nil
		}
	}
}

// markPublishedSQL marks the rows of table (quoted) whose seqs are $1 published, or deletes them
// when they are ephemeral: both through the primary key, on a new table too
// (TestRelayStatementPlansUseTheIndexes).
func markPublishedSQL(table string) string {
	return `WITH gone AS (DELETE FROM ` + table + ` WHERE seq = ANY($1) AND ephemeral)
		UPDATE ` + table + ` SET published_at = clock_timestamp() WHERE seq = ANY($1) AND NOT ephemeral`
}

// pruneSQL deletes from table (quoted) up to $2 rows published more than $1 microseconds ago:
// the chunk's seqs are read from the primary key in seq order, then deleted through it.
//
// The seqs go as an array (= ANY(ARRAY(…))), not as "seq IN (SELECT …)": pgx prepares the
// statement, and the generic plan PostgreSQL made of the IN form on a new, empty outbox (as on a
// fresh deploy) was a hash semi-join whose outer side scanned the whole table, once per chunk,
// and was kept as the table grew. An array of keys is looked up in the primary key, as the
// relay's own "seq = ANY($1)" is, new table or not (TestRelayStatementPlansUseTheIndexes).
func pruneSQL(table string) string {
	return `DELETE FROM ` + table + ` WHERE seq = ANY(ARRAY(
			SELECT seq FROM ` + table + `
			WHERE published_at < now() - $1::bigint * interval '1 microsecond'
			ORDER BY seq LIMIT $2))`
}
