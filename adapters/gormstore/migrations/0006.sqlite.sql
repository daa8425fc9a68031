-- Migration 6: keyset pages of the partner's look-ups (sqlite). Frozen: never edit a released migration.
-- GET /v1/reports lists one partner's rows in (received_at, id) order: all
-- of them, by credit number, or by Idempotency-Key, each optionally within
-- a date range. Each index below holds one of those lists in that order, so
-- a page is one range of it, read from the cursor on (contract §10).
-- (partner_user, received_at, id) takes the place of migration 1's
-- (partner_user, received_at), which it covers.
CREATE INDEX ix_staging_user_received_id ON partner_disbursement_staging (partner_user, received_at, id);

CREATE INDEX ix_staging_user_credit_received ON partner_disbursement_staging (partner_user, numero_credito, received_at, id);

CREATE INDEX ix_staging_user_key_received ON partner_disbursement_staging (partner_user, idempotency_key, received_at, id);

DROP INDEX ix_staging_user_received;
