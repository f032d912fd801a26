package bench

import (
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// Config is what a run measures and how long: thumela-bench's flags, which say what each field
// means. The report keeps it (its options), durations written as text.
type Config struct {
	Root             string        `json:"-"`
	Out              string        `json:"-"`
	Clients          int           `json:"clients"`
	Duration         time.Duration `json:"duration"`
	Warmup           time.Duration `json:"warmup"`
	Levels           []int         `json:"levels"`
	LevelDuration    time.Duration `json:"level_duration"`
	LevelWarmup      time.Duration `json:"level_warmup"`
	LevelPgbench     bool          `json:"level_pgbench"`
	PgbenchDuration  time.Duration `json:"pgbench_duration"`
	PgbenchThreads   int           `json:"pgbench_threads"`
	RowsPerUser      int           `json:"pgbench_rows_per_user"`
	Idle             time.Duration `json:"idle"`
	SignIns          int           `json:"sign_ins"`
	Streams          int           `json:"streams"`
	StreamLevels     []int         `json:"stream_levels"`
	LevelTransfers   int           `json:"level_event_transfers"`
	StreamUsers      int           `json:"stream_users"`
	EventTransfers   int           `json:"event_transfers"`
	EventRate        float64       `json:"event_rate"`
	EventWait        time.Duration `json:"event_wait"`
	DrainTimeout     time.Duration `json:"drain_timeout"`
	SandboxDelay     string        `json:"sandbox_delay"`
	LogLevel         string        `json:"log_level"`
	Codec            string        `json:"codec"`
	StreamsProtocol  string        `json:"streams_protocol"`
	NotifyBaseline   bool          `json:"notify_baseline"`
	NATSMaxConsumers int           `json:"nats_max_consumers"`
	Sustained        time.Duration `json:"sustained_duration"`
	HeavySenders     int           `json:"heavy_senders"`
	HeavyHistory     int           `json:"heavy_history"`
	HeavyDuration    time.Duration `json:"heavy_duration"`
	Env              []string      `json:"extra_env"`
}

// Validate says which value, if any, no run can be made with.
func (c Config) Validate() error {
	if c.Clients < 1 || c.Streams < 1 {
		return errors.New("-clients and -streams must be at least 1")
	}
	if c.Codec != "json" && c.Codec != "proto" {
		return errors.New("-codec must be json or proto")
	}
	if c.StreamsProtocol != "h2c" && c.StreamsProtocol != "http1" {
		return errors.New("-streams-protocol must be h2c or http1")
	}
	return nil
}

// completed fills in what the phases count on: pgbench runs as long as the load phases unless
// told otherwise; the target level comes first in Levels and StreamLevels, the others after it,
// ascending; and there are enough users for every level's senders to be users of their own (so
// that no user nears the daily limit), all of them among the stream users, plus one who only
// signs in.
func (c Config) completed() Config {
	if c.PgbenchDuration <= 0 {
		c.PgbenchDuration = c.Duration
	}
	c.Levels = append([]int{c.Clients}, otherLevels(c.Levels, c.Clients)...)
	c.StreamLevels = append([]int{c.Streams}, otherLevels(c.StreamLevels, c.Streams)...)
	need := c.Clients + 2*c.HeavySenders
	for _, n := range c.Levels[1:] {
		need += n
	}
	c.StreamUsers = max(c.StreamUsers, need+1)
	return c
}

// otherLevels is the levels other than the target level, ascending and without repeats: the
// target level is measured as the phase it always was (-clients, -streams).
func otherLevels(levels []int, target int) []int {
	out := []int{}
	for _, n := range levels {
		if n != target && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// eventOrder is the order of the live-event levels, lowest first; levels is completed's
// StreamLevels (the target first).
func eventOrder(levels []int, target int) []int {
	return slices.Concat(slices.DeleteFunc(slices.Clone(levels[1:]), func(n int) bool { return n > target }), []int{target},
		slices.DeleteFunc(slices.Clone(levels[1:]), func(n int) bool { return n < target }))
}

// MarshalJSON writes the config with durations as text ("10s"), not nanoseconds.
func (c Config) MarshalJSON() ([]byte, error) {
	type plain Config
	raw, err := json.Marshal(plain(c))
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k, d := range map[string]time.Duration{
		"duration": c.Duration, "warmup": c.Warmup, "level_duration": c.LevelDuration, "level_warmup": c.LevelWarmup, "pgbench_duration": c.PgbenchDuration, "idle": c.Idle,
		"event_wait": c.EventWait, "drain_timeout": c.DrainTimeout, "sustained_duration": c.Sustained, "heavy_duration": c.HeavyDuration,
	} {
		m[k] = d.String()
	}
	return json.Marshal(m)
}
