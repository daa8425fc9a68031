-- Migration 7: decisions, events and webhooks (sqlite). Frozen: never edit a released migration.
-- A report's state (contract §11): received when it is stored, then
-- accepted or rejected once by the lender, with who decided and when.
-- SQLite adds a column with a constant default without rewriting the
-- rows: rows stored before read as received. Its columns take any length;
-- the bounds are the domain's (and mysql's types).
ALTER TABLE partner_disbursement_staging ADD COLUMN status VARCHAR(16) NOT NULL DEFAULT 'received';

ALTER TABLE partner_disbursement_staging ADD COLUMN decided_at DATETIME NULL;

ALTER TABLE partner_disbursement_staging ADD COLUMN decided_by VARCHAR(100) NULL;

ALTER TABLE partner_disbursement_staging ADD COLUMN reason_code VARCHAR(64) NULL;

ALTER TABLE partner_disbursement_staging ADD COLUMN reason TEXT NULL;

-- GET /v1/reports?status= lists one partner's reports in one state in the
-- list's order (received_at, id): one range of this index (contract §10).
-- It is the staging table's only new index: every index is paid by every
-- report.
CREATE INDEX ix_staging_user_status_received ON partner_disbursement_staging (partner_user, status, received_at, id);

-- Events: one row per state a report entered, written in the transaction
-- of the state itself (the outbox). The receipt an event carries is read
-- from the report's row. created_at is the report's received_at for
-- report.received and its decided_at for the others; with id it makes the
-- public id and the list's order. dispatched: 1 once its deliveries are
-- made.
CREATE TABLE report_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  partner_user VARCHAR(64) NOT NULL,
  report_id BIGINT NOT NULL,
  type VARCHAR(32) NOT NULL,
  created_at DATETIME NOT NULL,
  dispatched INTEGER NOT NULL DEFAULT 0
);

-- GET /v1/events reads a partner's events of each type in (created_at, id)
-- order: a page of one type is one range of this index, a page of every
-- type the three types' ranges.
CREATE INDEX ix_report_events_user_type ON report_events (partner_user, type, created_at, id);

-- The dispatcher reads the events not yet dispatched, by id.
CREATE INDEX ix_report_events_dispatched ON report_events (dispatched, id);

-- A partner's webhook endpoints; event_types is a comma list, "" for every
-- type. Secrets are kept as issued, since they sign; previous_secret signs
-- beside secret until previous_until.
CREATE TABLE webhook_endpoints (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  public_id CHAR(27) NOT NULL,
  partner_user VARCHAR(64) NOT NULL,
  url TEXT NOT NULL,
  event_types VARCHAR(200) NOT NULL,
  description TEXT NOT NULL,
  status VARCHAR(16) NOT NULL,
  disabled_reason TEXT NULL,
  secret VARCHAR(100) NOT NULL,
  previous_secret VARCHAR(100) NULL,
  previous_until DATETIME NULL,
  created_at DATETIME NOT NULL,
  last_success_at DATETIME NULL
);

CREATE UNIQUE INDEX ux_webhook_endpoints_public_id ON webhook_endpoints (public_id);

CREATE INDEX ix_webhook_endpoints_user ON webhook_endpoints (partner_user, id);

-- How many endpoints each partner has, changed in the transaction that
-- adds or removes one by a conditional UPDATE (the maximum's one row).
CREATE TABLE webhook_endpoint_counts (
  partner_user VARCHAR(64) NOT NULL PRIMARY KEY,
  endpoints INTEGER NOT NULL
);

-- One event to one endpoint; next_at and lease_until are Unix nanoseconds.
-- A lease is a replica's claim while it attempts the delivery, taken by a
-- conditional UPDATE. The unique key makes the fan-out idempotent.
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id BIGINT NOT NULL,
  endpoint_id BIGINT NOT NULL,
  state VARCHAR(16) NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at BIGINT NOT NULL,
  lease_owner VARCHAR(64) NULL,
  lease_until BIGINT NULL,
  delivered_at DATETIME NULL
);

CREATE UNIQUE INDEX ux_webhook_deliveries_event_endpoint ON webhook_deliveries (event_id, endpoint_id);

CREATE INDEX ix_webhook_deliveries_due ON webhook_deliveries (state, next_at);

-- The attempts log: the newest 100 per endpoint are kept; error is a
-- class, never a receiver's words.
CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  endpoint_id BIGINT NOT NULL,
  event_id BIGINT NOT NULL,
  at DATETIME NOT NULL,
  status_code INTEGER NOT NULL,
  error VARCHAR(64) NOT NULL,
  duration_ms INTEGER NOT NULL
);

CREATE INDEX ix_webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id);

-- The clients of the internal decision API: a name, and the SHA-256 of
-- its secret (the secret itself is never stored).
CREATE TABLE backoffice_clients (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name VARCHAR(64) NOT NULL,
  secret_sha256 CHAR(64) NOT NULL,
  created_at DATETIME NOT NULL
);

CREATE UNIQUE INDEX ux_backoffice_clients_name ON backoffice_clients (name);

CREATE UNIQUE INDEX ux_backoffice_clients_secret ON backoffice_clients (secret_sha256);
