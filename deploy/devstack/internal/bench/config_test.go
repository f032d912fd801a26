package bench

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLevels(t *testing.T) {
	t.Parallel()
	if got := otherLevels([]int{8, 1, 32, 8}, 32); !slices.Equal(got, []int{1, 8}) {
		t.Fatalf("otherLevels = %v, want [1 8]", got)
	}
	for n, want := range map[int]string{1: "1 sender", 8: "8 senders", 1000: "1,000 senders", 1234567: "1,234,567 senders"} {
		if got := Count(n, "sender"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCompletedPutsTheTargetLevelFirstAndCountsTheUsers(t *testing.T) {
	t.Parallel()
	c := Config{Clients: 32, Levels: []int{8, 1, 32}, Streams: 1000, StreamLevels: []int{10000, 1, 1000},
		HeavySenders: 8, StreamUsers: 10, Duration: 10 * time.Second}.completed()
	if !slices.Equal(c.Levels, []int{32, 1, 8}) || !slices.Equal(c.StreamLevels, []int{1000, 1, 10000}) {
		t.Errorf("levels %v and %v, want [32 1 8] and [1000 1 10000]", c.Levels, c.StreamLevels)
	}
	// 32 target senders, 2 × 8 heavy and new, 1 + 8 at the other levels, and the sign-in user.
	if c.StreamUsers != 32+16+9+1 {
		t.Errorf("StreamUsers = %d, want 58", c.StreamUsers)
	}
	if c.PgbenchDuration != c.Duration {
		t.Errorf("PgbenchDuration = %s, want -duration's %s", c.PgbenchDuration, c.Duration)
	}
	if again := c.completed(); !slices.Equal(again.Levels, c.Levels) || again.StreamUsers != c.StreamUsers {
		t.Errorf("completing twice changed the config: %v %d", again.Levels, again.StreamUsers)
	}
	if got := eventOrder(c.StreamLevels, c.Streams); !slices.Equal(got, []int{1, 1000, 10000}) {
		t.Errorf("eventOrder = %v, want [1 1000 10000]", got)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	good := Config{Clients: 1, Streams: 1, Codec: "json", StreamsProtocol: "h2c"}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Clients = 0 },
		func(c *Config) { c.Streams = 0 },
		func(c *Config) { c.Codec = "xml" },
		func(c *Config) { c.StreamsProtocol = "h3" },
	} {
		c := good
		bad(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestConfigWritesDurationsAsText(t *testing.T) {
	t.Parallel()
	data, err := json.Marshal(Config{Root: "/repo", Duration: 10 * time.Second, Levels: []int{32, 1}})
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !strings.Contains(s, `"duration":"10s"`) || !strings.Contains(s, `"levels":[32,1]`) || strings.Contains(s, "/repo") {
		t.Errorf("options = %s", s)
	}
}
