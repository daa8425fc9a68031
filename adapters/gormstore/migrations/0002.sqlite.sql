-- Migration 2: byte-exact user names, sweep indexes, login throttle (sqlite). Frozen: never edit a released migration.
CREATE INDEX ix_staging_file_name ON partner_disbursement_staging (file_name);

CREATE INDEX ix_staging_received ON partner_disbursement_staging (received_at);

CREATE INDEX ix_idempotency_state_created ON idempotency_keys (state, created_at);

CREATE TABLE login_throttle_keys (
  key_hash CHAR(64) NOT NULL PRIMARY KEY,
  expires_ns BIGINT NOT NULL
);

CREATE INDEX ix_throttle_keys_expires ON login_throttle_keys (expires_ns);

CREATE TABLE login_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key_hash CHAR(64) NOT NULL,
  attempt_id CHAR(24) NOT NULL,
  at_ns BIGINT NOT NULL,
  expires_ns BIGINT NOT NULL
);

CREATE INDEX ix_attempts_key_at ON login_attempts (key_hash, at_ns);

CREATE INDEX ix_attempts_expires ON login_attempts (expires_ns);
