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

// The conditions of FailureStats' keys: $2 (and $3) their values. The address's repeats the
// condition of its index, sign_in_attempts_address_idx, which holds only the attempts that came
// with an address (an address is counted only when there is one): the statement is prepared,
// and a generic plan, which cannot see $2, uses a partial index only when the statement implies
// the index's condition itself. Without it, the generic plan of an address's count walked every
// failure of the kind (on a new table through the account's index, on a populated one by a
// sequential scan), and PostgreSQL settles on the generic plan a new table gives it and keeps
// it as the table grows (TestFailureStatsPlansUseTheirKeysIndexes).
const (
	pairKey    = `account = $2 AND client_address = $3`
	addressKey = `client_address = $2 AND client_address <> ''`
	accountKey = `account = $2`
)

// failureStatsSQL counts the attempts of kind $1 matching where (whose values are $2 … $n)
// after $n+1, up to $n+2 of them.
func failureStatsSQL(where string, n int) string {
	return `SELECT count(*), max(attempted_at) FROM (
		SELECT attempted_at FROM sign_in_attempts
		WHERE kind = $1 AND ` + where + ` AND attempted_at > $` + strconv.Itoa(n+1) + `
		ORDER BY attempted_at DESC LIMIT $` + strconv.Itoa(n+2) + `) recent`
}

func (q queries) FailureStats(ctx context.Context, fq app.FailureQuery) (app.FailureStats, error) {
	where, args := pairKey, []any{string(fq.Kind), fq.Account, fq.Address}
	switch fq.By {
	case app.KeyPair:
	case app.KeyAddress:
		where, args = addressKey, []any{string(fq.Kind), fq.Address}
	case app.KeyAccount:
		where, args = accountKey, []any{string(fq.Kind), fq.Account}
	default:
		return app.FailureStats{}, fmt.Errorf("failure stats: unknown key %d", fq.By)
	}
	n := len(args)
	args = append(args, fq.Since, maxCountedFailures)
	var (
		count int
		last  *time.Time
	)
	err := q.db.QueryRow(ctx, failureStatsSQL(where, n), args...).Scan(&count, &last)
	if err != nil {
		return app.FailureStats{}, fmt.Errorf("count failures: %w", err)
	}
	st := app.FailureStats{Count: count}
	if last != nil {
		st.Last = *last
	}
	return st, nil
}
