package stack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// PrivatePostgres is a PostgreSQL cluster of one's own, run from the machine's server binaries:
// the dev stack's under its data folder, and the tests' (thumela-pg) under a temporary one.
// PostgreSQL refuses to run as root, so when we run as root the cluster belongs to, and runs
// as, the postgres user (Dir's parent must then be open to it).
type PrivatePostgres struct {
	Dir    string
	Port   int
	Logger *slog.Logger
	// Throwaway is for a cluster removed after its one run (the tests'): it skips fsync and
	// full-page writes, which spares the tests' many CREATE DATABASEs their disk flushes. A
	// crash of the machine may then corrupt it, which loses nothing that was to be kept.
	Throwaway bool
}

// postgresBinDir finds the server binaries: Debian keeps them under /usr/lib/postgresql/<v>/bin,
// off the PATH.
func postgresBinDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return "", errors.New("no PostgreSQL server binaries found (install Debian's postgresql package or set DATABASE_URL)")
	}
	// The highest version sorts last.
	return filepath.Dir(matches[len(matches)-1]), nil
}

// asPostgresUser makes a command that runs as the postgres user when we are root. The process
// itself changes user (no runuser/su in between), so the stop signal reaches PostgreSQL.
func asPostgresUser(name string, args ...string) (*exec.Cmd, error) {
	cmd := exec.Command(name, args...)
	if os.Geteuid() != 0 {
		return cmd, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("look up the postgres user: %w", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	cmd.Env = append(os.Environ(), "HOME="+u.HomeDir, "USER=postgres")
	return cmd, nil
}

func chownToPostgres(path string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("look up the postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return filepath.Walk(path, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid) //nolint:gosec // G122: our own new data folder, which no one else writes to
	})
}

// Init creates the cluster on first use.
func (p *PrivatePostgres) Init(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(p.Dir, "PG_VERSION")); err == nil {
		return nil
	}
	bin, err := postgresBinDir()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		return err
	}
	if err := chownToPostgres(p.Dir); err != nil {
		return err
	}
	p.Logger.InfoContext(ctx, "creating a private PostgreSQL cluster", "dir", p.Dir)
	cmd, err := asPostgresUser(filepath.Join(bin, "initdb"), "-D", p.Dir, "-U", "postgres",
		"--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
	if err != nil {
		return err
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	return nil
}

// Command returns the postgres server process, listening on loopback only.
func (p *PrivatePostgres) Command() (*exec.Cmd, error) {
	bin, err := postgresBinDir()
	if err != nil {
		return nil, err
	}
	args := []string{"-D", p.Dir, "-p", strconv.Itoa(p.Port), "-k", p.Dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300"}
	if p.Throwaway {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	return asPostgresUser(filepath.Join(bin, "postgres"), args...)
}

// URL is the address of one of the cluster's databases, as its superuser postgres.
func (p *PrivatePostgres) URL(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.Port, database)
}

// WaitForPostgres retries until the server at databaseURL accepts connections.
func WaitForPostgres(ctx context.Context, databaseURL string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		conn, err := pgx.Connect(ctx, databaseURL)
		if err == nil {
			return conn.Close(ctx)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("PostgreSQL did not accept connections within %s: %w", timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// withDatabase returns databaseURL pointing at another database of the same server.
func withDatabase(databaseURL, database string) (string, error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "", fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	u.Path = "/" + database
	return u.String(), nil
}

func databaseName(databaseURL string) (string, error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "", fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" {
		return "", errors.New("DATABASE_URL names no database")
	}
	return name, nil
}

// ensureDatabase creates the database named by databaseURL when it does not exist, connecting
// to the server's maintenance database to do so.
func ensureDatabase(ctx context.Context, databaseURL string) error {
	name, err := databaseName(databaseURL)
	if err != nil {
		return err
	}
	admin, err := withDatabase(databaseURL, "postgres")
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx) //nolint:errcheck // the statement has committed or failed already; its error is returned
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %q: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	return err
}

// dropDatabase removes a database made for one run (the browser tests' throw-away stack).
func dropDatabase(ctx context.Context, databaseURL string) error {
	name, err := databaseName(databaseURL)
	if err != nil {
		return err
	}
	admin, err := withDatabase(databaseURL, "postgres")
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx) //nolint:errcheck // the statement has committed or failed already; its error is returned
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	return err
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
