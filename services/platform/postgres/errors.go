package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATE codes the adapters translate into domain errors
// (https://www.postgresql.org/docs/current/errcodes-appendix.html).
const (
	codeUniqueViolation      = "23505"
	codeForeignKeyViolation  = "23503"
	codeSerializationFailure = "40001"
	codeDuplicateSchema      = "42P06"
)

// IsUniqueViolation reports whether err is a unique_violation and, if so, which constraint
// was violated, so a repository can tell "e-mail already registered" from "duplicate id".
func IsUniqueViolation(err error) (constraint string, ok bool) {
	return constraintOf(err, codeUniqueViolation)
}

// IsForeignKeyViolation reports whether err is a foreign_key_violation and which constraint,
// e.g. deleting a payment method that a transfer still references.
func IsForeignKeyViolation(err error) (constraint string, ok bool) {
	return constraintOf(err, codeForeignKeyViolation)
}

// IsSerializationFailure reports whether err is a serialization_failure: the transaction
// lost a race under REPEATABLE READ or SERIALIZABLE and is safe to retry from the start.
func IsSerializationFailure(err error) bool {
	return isCode(err, codeSerializationFailure)
}

func constraintOf(err error, code string) (string, bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == code {
		return pgErr.ConstraintName, true
	}
	return "", false
}

func isCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}
