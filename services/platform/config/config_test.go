package config_test

import (
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/platform/config"
)

type nested struct {
	PoolSize int `env:"POOL_SIZE" default:"4"`
}

type testConfig struct {
	Addr        string        `env:"GRPC_ADDR" default:":9090"`
	DatabaseURL string        `env:"DATABASE_URL,noprefix" required:"true"`
	SigningKey  string        `env:"SIGNING_KEY" secret:"true"`
	Port        int           `env:"PORT" default:"8080"`
	MaxBytes    int64         `env:"MAX_BYTES"`
	Dev         bool          `env:"DEV" default:"false"`
	CodeTTL     time.Duration `env:"CODE_TTL" default:"10m"`
	Origins     []string      `env:"ORIGINS"`
	Pool        nested
	internal    string //nolint:unused // proves unexported fields are skipped
}

func TestLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    testConfig
		wantErr []string // variables named in the error, in order
		is      error
	}{
		{
			name: "defaults and noprefix",
			env:  map[string]string{"DATABASE_URL": "postgres://localhost/thumela"},
			want: testConfig{Addr: ":9090", DatabaseURL: "postgres://localhost/thumela", Port: 8080,
				CodeTTL: 10 * time.Minute, Pool: nested{PoolSize: 4}},
		},
		{
			name: "every type set",
			env: map[string]string{
				"DATABASE_URL": "postgres://db", "ID_GRPC_ADDR": "127.0.0.1:1", "ID_SIGNING_KEY": "k",
				"ID_PORT": "81", "ID_MAX_BYTES": "9000000000", "ID_DEV": "true", "ID_CODE_TTL": "90s",
				"ID_ORIGINS": " https://a.example , ,https://b.example", "ID_POOL_SIZE": "16",
			},
			want: testConfig{Addr: "127.0.0.1:1", DatabaseURL: "postgres://db", SigningKey: "k", Port: 81,
				MaxBytes: 9000000000, Dev: true, CodeTTL: 90 * time.Second,
				Origins: []string{"https://a.example", "https://b.example"}, Pool: nested{PoolSize: 16}},
		},
		{
			name: "empty counts as unset",
			env:  map[string]string{"DATABASE_URL": "x", "ID_PORT": ""},
			want: testConfig{Addr: ":9090", DatabaseURL: "x", Port: 8080, CodeTTL: 10 * time.Minute,
				Pool: nested{PoolSize: 4}},
		},
		{
			name:    "missing required",
			env:     map[string]string{},
			wantErr: []string{"DATABASE_URL is required"},
			is:      config.ErrMissing,
		},
		{
			name: "every problem reported at once",
			env: map[string]string{"ID_PORT": "eighty", "ID_DEV": "yes please", "ID_CODE_TTL": "10",
				"ID_MAX_BYTES": "1.5"},
			wantErr: []string{"DATABASE_URL is required", "ID_PORT is invalid", "ID_MAX_BYTES is invalid",
				"ID_DEV is invalid", "ID_CODE_TTL is invalid"},
			is: config.ErrInvalid,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got testConfig
			err := config.LoadWith(config.MapLookup(tt.env), "ID", &got)
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("LoadWith: %v", err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("got %+v\nwant %+v", got, tt.want)
				}
				return
			}
			var cerr *config.Error
			if !errors.As(err, &cerr) {
				t.Fatalf("want *config.Error, got %v", err)
			}
			if len(cerr.Vars) != len(tt.wantErr) {
				t.Fatalf("got %d problems (%v), want %d", len(cerr.Vars), err, len(tt.wantErr))
			}
			for i, want := range tt.wantErr {
				if !strings.HasPrefix(cerr.Vars[i].Error(), want) {
					t.Errorf("problem %d = %q, want prefix %q", i, cerr.Vars[i].Error(), want)
				}
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
			}
		})
	}
}

func TestLoadDoesNotEchoValues(t *testing.T) {
	t.Parallel()
	var cfg testConfig
	err := config.LoadWith(config.MapLookup(map[string]string{
		"DATABASE_URL": "x", "ID_PORT": "hunter2", "ID_CODE_TTL": "hunter2",
	}), "ID", &cfg)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error must not repeat the value: %v", err)
	}
}

func TestLoadRejectsBadTargets(t *testing.T) {
	t.Parallel()
	var unsupported struct {
		F float64 `env:"F"`
	}
	var badOption struct {
		S string `env:"S,sometimes"`
	}
	var notStruct int
	tests := []struct {
		name string
		dst  any
	}{
		{"nil", nil},
		{"not a pointer", testConfig{}},
		{"pointer to non-struct", &notStruct},
		{"unsupported type", &unsupported},
		{"unknown tag option", &badOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := config.LoadWith(config.MapLookup(nil), "X", tt.dst)
			if !errors.Is(err, config.ErrTarget) {
				t.Fatalf("got %v, want ErrTarget", err)
			}
		})
	}
}

func TestMaskPassword(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"postgres://thumela:s3cret@db:5432/thumela?sslmode=disable", "postgres://thumela:*****@db:5432/thumela?sslmode=disable"},
		{"postgres://thumela@db/thumela", "postgres://thumela@db/thumela"},
		{"nats://sometoken@nats:4222", "nats://*****@nats:4222"},
		{"nats://u:p@nats:4222", "nats://u:*****@nats:4222"},
		{"https://api.example/v1?api_key=abc&region=za", "https://api.example/v1?api_key=*****&region=za"},
		{"host=db user=thumela password=s3cret dbname=x", "host=db user=thumela password=***** dbname=x"},
		{"host=db password='a b' sslmode=disable", "host=db password=***** sslmode=disable"},
		{"postgres://u:p@[::1/x", "postgres://*****"},
		{":9090", ":9090"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := config.MaskPassword(tt.in); got != tt.want {
				t.Fatalf("MaskPassword(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	cfg := testConfig{
		Addr:        ":9090",
		DatabaseURL: "postgres://thumela:s3cret@db/thumela",
		SigningKey:  "very-secret",
		Port:        8080,
		CodeTTL:     10 * time.Minute,
		Origins:     []string{"https://a.example", "nats://tok@n:4222"},
		Pool:        nested{PoolSize: 4},
	}
	tests := []struct {
		name string
		cfg  any
		want map[string]string
	}{
		{
			name: "secrets and passwords masked",
			cfg:  &cfg,
			want: map[string]string{
				"GRPC_ADDR":    ":9090",
				"DATABASE_URL": "postgres://thumela:*****@db/thumela",
				"SIGNING_KEY":  config.Masked,
				"PORT":         "8080",
				"MAX_BYTES":    "0",
				"DEV":          "false",
				"CODE_TTL":     "10m0s",
				"ORIGINS":      "https://a.example,nats://*****@n:4222",
				"POOL_SIZE":    "4",
			},
		},
		{
			name: "unset secret shows empty",
			cfg:  testConfig{},
			want: map[string]string{"SIGNING_KEY": "", "DATABASE_URL": ""},
		},
		{name: "not a struct", cfg: 42, want: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := map[string]string{}
			for _, a := range config.Describe(tt.cfg) {
				got[a.Key] = a.Value.String()
			}
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("%s = %q, want %q", k, got[k], want)
				}
			}
			for _, v := range got {
				if strings.Contains(v, "s3cret") || strings.Contains(v, "very-secret") || strings.Contains(v, "tok@") {
					t.Errorf("secret leaked: %q", v)
				}
			}
		})
	}
	// The attributes render through a real handler without leaking either.
	var sb strings.Builder
	slog.New(slog.NewJSONHandler(&sb, nil)).Info("configuration", "config", slog.GroupValue(config.Describe(cfg)...))
	if strings.Contains(sb.String(), "s3cret") || !strings.Contains(sb.String(), `"PORT":8080`) {
		t.Fatalf("unexpected log line: %s", sb.String())
	}
}
