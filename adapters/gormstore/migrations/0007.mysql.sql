-- Migration 7: decisions, events and webhooks (mysql). Frozen: never edit a released migration.
-- A report's state (contract §11): received when it is stored, then
-- accepted or rejected once by the lender, with who decided and when.
-- The columns go at the end of the table with a constant default, which
-- MariaDB 10.3+ and MySQL 8.0.12+ add in place without copying the rows
-- (instant ADD COLUMN): rows stored before read as received. status and
-- reason_code are ASCII words that programs switch on; reason is text for
-- the partner, at most 500 characters after NFC (domain.MaxReasonChars),
-- and VARCHAR counts characters; decided_by is "backoffice:NAME" or
-- "cli:USER".
ALTER TABLE partner_disbursement_staging
  ADD COLUMN status VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT 'received',
  ADD COLUMN decided_at DATETIME(6) NULL,
  ADD COLUMN decided_by VARCHAR(100) NULL,
  ADD COLUMN reason_code VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
  ADD COLUMN reason VARCHAR(500) NULL;

-- GET /v1/reports?status= lists one partner's reports in one state in the
-- list's order (received_at, id): one range of this index, read from the
-- cursor on (contract §10). It is the staging table's only new index
-- (every index is paid by every report). InnoDB builds it without blocking
-- writes; on a Galera cluster the build runs on every node in total order
-- (docs/operator-guide.md says how long to expect).
CREATE INDEX ix_staging_user_status_received ON partner_disbursement_staging (partner_user, status, received_at, id);

-- Events: one row per state a report entered, written in the transaction
-- of the state itself (the outbox). The receipt an event carries is not
-- stored: it is read from the report's row, whose receipt never changes
-- and whose decision is final. created_at is the report's received_at for
-- report.received and its decided_at for the others; with id it makes the
-- public id and the list's order. partner_user is bytes, as the staging
-- table's (migration 2). dispatched: 1 once its deliveries are made.
CREATE TABLE report_events (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  partner_user VARBINARY(64) NOT NULL,
  report_id BIGINT NOT NULL,
  type VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  created_at DATETIME(6) NOT NULL,
  dispatched TINYINT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci ROW_FORMAT=DYNAMIC;

-- GET /v1/events reads a partner's events of each type in (created_at, id)
-- order: a page of one type is one range of this index, a page of every
-- type the three types' ranges (one index serves both).
CREATE INDEX ix_report_events_user_type ON report_events (partner_user, type, created_at, id);

-- The dispatcher reads the events not yet dispatched, by id.
CREATE INDEX ix_report_events_dispatched ON report_events (dispatched, id);

-- A partner's webhook endpoints. public_id is "we_" and 24 random letters;
-- url is kept byte for byte (at most 2,048 bytes, domain.MaxWebhookURLBytes);
-- event_types is a comma list of event types, "" for every type. Secrets
-- are kept as issued, since they sign (docs/operator-guide.md says the
-- database holds them); previous_secret signs beside secret until
-- previous_until (a rotation's overlap).
CREATE TABLE webhook_endpoints (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  public_id CHAR(27) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  partner_user VARBINARY(64) NOT NULL,
  url VARBINARY(2048) NOT NULL,
  event_types VARCHAR(200) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  description VARCHAR(500) NOT NULL,
  status VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  disabled_reason VARCHAR(500) NULL,
  secret VARCHAR(100) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  previous_secret VARCHAR(100) CHARACTER SET ascii COLLATE ascii_bin NULL,
  previous_until DATETIME(6) NULL,
  created_at DATETIME(6) NOT NULL,
  last_success_at DATETIME(6) NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci ROW_FORMAT=DYNAMIC;

CREATE UNIQUE INDEX ux_webhook_endpoints_public_id ON webhook_endpoints (public_id);

CREATE INDEX ix_webhook_endpoints_user ON webhook_endpoints (partner_user, id);

-- How many endpoints each partner has, changed in the transaction that
-- adds or removes one, by a conditional UPDATE: two creations racing on
-- two Galera nodes write this one row, so certification lets one commit
-- and the maximum holds across the cluster.
CREATE TABLE webhook_endpoint_counts (
  partner_user VARBINARY(64) NOT NULL PRIMARY KEY,
  endpoints INT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin;

-- One event to one endpoint. next_at and lease_until are Unix nanoseconds
-- (compared with the replicas' clocks, never shown). A lease is a
-- replica's claim while it attempts the delivery: taken by a conditional
-- UPDATE, which on a Galera cluster lets one node win (no SELECT … FOR
-- UPDATE, whose locks other nodes do not see). The unique key makes the
-- fan-out idempotent.
CREATE TABLE webhook_deliveries (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  event_id BIGINT NOT NULL,
  endpoint_id BIGINT NOT NULL,
  state VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  attempts INT NOT NULL DEFAULT 0,
  next_at BIGINT NOT NULL,
  lease_owner VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
  lease_until BIGINT NULL,
  delivered_at DATETIME(6) NULL
) ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin;

CREATE UNIQUE INDEX ux_webhook_deliveries_event_endpoint ON webhook_deliveries (event_id, endpoint_id);

CREATE INDEX ix_webhook_deliveries_due ON webhook_deliveries (state, next_at);

-- The attempts log: the newest 100 per endpoint are kept
-- (domain.MaxAttemptsListed). error is a class (timeout, http_status, …),
-- never a receiver's words.
CREATE TABLE webhook_attempts (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  endpoint_id BIGINT NOT NULL,
  event_id BIGINT NOT NULL,
  at DATETIME(6) NOT NULL,
  status_code INT NOT NULL,
  error VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  duration_ms INT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin;

CREATE INDEX ix_webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id);

-- The clients of the internal decision API: a name, and the SHA-256 of a
-- secret of 32 random bytes (the secret itself is never stored).
CREATE TABLE backoffice_clients (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  secret_sha256 CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  created_at DATETIME(6) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin;

CREATE UNIQUE INDEX ux_backoffice_clients_name ON backoffice_clients (name);

CREATE UNIQUE INDEX ux_backoffice_clients_secret ON backoffice_clients (secret_sha256);
