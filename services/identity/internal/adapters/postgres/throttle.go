package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/thumela/thumela/services/identity/internal/app"
)

// maxCountedFailures bounds the rows one FailureStats reads: the delay reaches its cap long
// before, so counting further changes no answer.
const maxCountedFailures = 1000

func (q queries) RecordFailure(ctx context.Context, f app.Failure) error {
	_, err := q.db.Exec(ctx, `INSERT INTO sign_in_attempts (kind, account, client_address, attempted_at)
		VALUES ($1, $2, $3, $4)`, string(f.Kind), f.Account, f.Address, f.At)
	if err != nil {
		return fmt.Errorf("record failure: %w", err)
	}
	return nil
}

func (q queries) FailureStats(ctx context.Context, fq app.FailureQuery) (app.FailureStats, error) {
	where, args := `account = $2 AND client_address = $3`, []any{string(fq.Kind), fq.Account, fq.Address}
	switch fq.By {
	case app.KeyPair:
	case app.KeyAddress:
		where, args = `client_address = $2`, []any{string(fq.Kind), fq.Address}
	case app.KeyAccount:
		where, args = `account = $2`, []any{string(fq.Kind), fq.Account}
	default:
		return app.FailureStats{}, fmt.Errorf("failure stats: unknown key %d", fq.By)
	}
	n := len(args)
	args = append(args, fq.Since, maxCountedFailures)
	var (
		count int
		last  *time.Time
	)
	err := q.db.QueryRow(ctx, `SELECT count(*), max(attempted_at) FROM (
		SELECT attempted_at FROM sign_in_attempts
		WHERE kind = $1 AND `+where+` AND attempted_at > $`+strconv.Itoa(n+1)+`
		ORDER BY attempted_at DESC LIMIT $`+strconv.Itoa(n+2)+`) recent`, args...).Scan(&count, &last)
	if err != nil {
		return app.FailureStats{}, fmt.Errorf("count failures: %w", err)
	}
	st := app.FailureStats{Count: count}
	if last != nil {
		st.Last = *last
	}
	return st, nil
}
