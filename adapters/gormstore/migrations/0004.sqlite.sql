-- Migration 4: the partner's look-ups (sqlite). Frozen: never edit a released migration.
-- GET /v1/reports and GET /v1/reports/{id} read one partner's rows in id
-- order: all of them, by credit number, or by Idempotency-Key. A date range
-- uses ix_staging_user_received (migration 1).
CREATE INDEX ix_staging_user_id ON partner_disbursement_staging (partner_user, id);

CREATE INDEX ix_staging_user_credit ON partner_disbursement_staging (partner_user, numero_credito, id);

CREATE INDEX ix_staging_user_key ON partner_disbursement_staging (partner_user, idempotency_key, id);
