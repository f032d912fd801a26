// Command natsauth renders NATS's authorization from the permission table
// (services/platform/bus/permissions.go) and makes the NKeys of an environment.
//
//	natsauth conf          the include of the production nats.conf, keys from the server's
//	                       environment (NATS_NKEY_<NAME>): deploy/kubernetes/base/nats/auth.conf
//	natsauth keys <dir>    a fresh NKey per service: <dir>/<name>.nk (the seed, for the
//	                       service's Secret <name>-nats) and, on stdout, NATS_NKEY_<NAME>=<public
//	                       key> lines for the Secret nats-nkeys of the NATS servers
package main

import (
	"fmt"
	"os"

	"github.com/thumela/thumela/services/platform/bus"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "natsauth:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	switch {
	case len(args) == 1 && args[0] == "conf":
		_, err := fmt.Print(bus.AuthConf(bus.Services(), func(name string) string { return "$" + bus.NKeyVar(name) }))
		return err
	case len(args) == 2 && args[0] == "keys":
		ks, err := bus.GenerateKeys(args[1], bus.Services())
		if err != nil {
			return err
		}
		for _, id := range bus.Services() {
			fmt.Printf("%s=%s\n", bus.NKeyVar(id.Name), ks.Key(id.Name))
		}
		return nil
	default:
		return fmt.Errorf("usage: natsauth conf | natsauth keys <dir>")
	}
}
