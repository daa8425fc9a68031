-- Migration 8: one order per table (mysql). Frozen: never edit a released migration.
-- The partner's look-ups (GET /v1/reports) and support's (reports list)
-- read one partner's rows in one order, (received_at, id), through
-- migration 6's indexes, support's backwards; ?status= joins the
-- partner's (received_at, id) index instead of having one of its own.
-- Nothing reads migration 4's id-ordered indexes or migration 7's status
-- index any more, and every index on this table is paid by every report:
-- the staging table keeps 6 secondary indexes (numero_credito, file_name,
-- received_at, and the three of migration 6).
-- A run stopped half-way is run again (an index already gone counts as dropped).
DROP INDEX ix_staging_user_id ON partner_disbursement_staging;
DROP INDEX ix_staging_user_credit ON partner_disbursement_staging;
DROP INDEX ix_staging_user_key ON partner_disbursement_staging;
DROP INDEX ix_staging_user_status_received ON partner_disbursement_staging;
