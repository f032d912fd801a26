// Package postgres is the shared PostgreSQL plumbing of Thumela's services: a traced
// connection pool bound to the service's own schema, embedded SQL migrations that are safe
// when several replicas start at once, a transaction helper, and the translation of
// PostgreSQL error codes that repositories need to turn into domain errors.
//
// Every service owns exactly one schema (identity, profiles, …) and never reads another's
// tables; Open pins search_path to that schema so unqualified names in queries and
// migrations always land in the right place.
package postgres
