// Command natsauth renders NATS's authorization from the permission table
// (services/platform/bus/permissions.go) and makes the NKeys of an environment.
//
//	natsauth conf          the include of the production nats.conf, keys from the server's
//	                       environment (NATS_NKEY_<NAME>): deploy/kubernetes/base/nats/auth.conf
//	natsauth keys <dir>    a fresh NKey per service and for the streams administrator:
//	                       <dir>/<name>.nk (the seed, for the Secret <name>-nats) and, on
//	                       stdout, NATS_NKEY_<NAME>=<public key> lines for the Secret nats-nkeys
//	                       of the NATS servers
//	natsauth streams       as the streams administrator, create the streams missing and change
//	                       those that differ from this release's configuration: NATS_URL,
//	                       NATS_NKEY_SEED_FILE (the streams seed), NATS_CA_FILE and
//	                       STREAM_REPLICAS (default 3) from the environment
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/config"
)

// streamsTimeout bounds natsauth streams: a deploy step fails rather than hangs.
const streamsTimeout = time.Minute

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "natsauth:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	switch {
	case len(args) == 1 && args[0] == "conf":
		_, err := fmt.Print(bus.AuthConf(bus.Deployed(), func(name string) string { return "$" + bus.NKeyVar(name) }))
		return err
	case len(args) == 2 && args[0] == "keys":
		ks, err := bus.GenerateKeys(args[1], bus.Deployed())
		if err != nil {
			return err
		}
		for _, id := range bus.Deployed() {
			fmt.Printf("%s=%s\n", bus.NKeyVar(id.Name), ks.Key(id.Name))
		}
		return nil
	case len(args) == 1 && args[0] == "streams":
		return streams()
	default:
		return fmt.Errorf("usage: natsauth conf | natsauth keys <dir> | natsauth streams")
	}
}

// streamsConfig is natsauth streams' environment, named as a service's (service.Base).
type streamsConfig struct {
	NatsURL        string `env:"NATS_URL,noprefix" required:"true"`
	StreamReplicas int    `env:"STREAM_REPLICAS,noprefix" default:"3"`
	// NATS is the streams administrator's seed (NATS_NKEY_SEED_FILE) and the CA (NATS_CA_FILE).
	NATS bus.Credentials
}

// streams applies StreamConfigs as the streams administrator, configured from the environment
// like a service.
func streams() error {
	var cfg streamsConfig
	if err := config.Load("NATSAUTH", &cfg); err != nil {
		return err
	}
	if cfg.StreamReplicas < 1 {
		return fmt.Errorf("STREAM_REPLICAS: %d is not a positive number", cfg.StreamReplicas)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, streamsTimeout)
	defer cancel()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := bus.AdministerStreams(ctx, cfg.NatsURL, cfg.NATS, logger, bus.WithReplicas(cfg.StreamReplicas)); err != nil {
		return err
	}
	logger.Info("streams applied", "streams", len(bus.StreamConfigs()), "replicas", cfg.StreamReplicas)
	return nil
}
