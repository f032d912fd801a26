// Package postgres will store the paymentmethods service's data in its own schema; for now it only
// carries the schema's migrations.
package postgres

import (
	"embed"
	"io/fs"

	platformpg "github.com/thumela/thumela/services/platform/postgres"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is the paymentmethods schema's own migration set.
var Migrations = platformpg.MigrationSet{Name: "paymentmethods", FS: mustSub(migrationFiles, "migrations")}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // embedded at build time
	}
	return sub
}
