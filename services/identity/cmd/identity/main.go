// Command identity runs Thumela's identity service: users, passwords, sessions, one-time codes
// and the keys that sign access tokens.
package main

import (
	"github.com/thumela/thumela/services/platform/service"

	"github.com/thumela/thumela/services/identity/internal/server"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	var cfg server.Config
	service.Main(service.Spec{
		Name:       "identity",
		Version:    version,
		Config:     &cfg,
		Migrations: server.Migrations,
		Setup:      server.Setup(&cfg),
	})
}
