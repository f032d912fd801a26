// Command cashout is the gateway of the ATM networks: it speaks ISO 8583 over TCP with the
// switches and collects vouchers from transfers as the atm-gateway service (docs/cashout.md).
package main

import "github.com/thumela/thumela/services/cashout/internal/gateway"

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() { gateway.Main(version) }
