-- The paymentmethods schema (created by the migrator) starts empty: its tables arrive with the change
-- that implements the service. The outbox table is migrated beside it by the platform.
SELECT 1;
