-- Migration 2: byte-exact user names, sweep indexes, login throttle (mysql). Frozen: never edit a released migration.
ALTER TABLE users MODIFY username VARBINARY(64) NOT NULL;

ALTER TABLE partner_disbursement_staging MODIFY partner_user VARBINARY(64) NOT NULL;

ALTER TABLE idempotency_keys MODIFY partner_user VARBINARY(64) NOT NULL;

CREATE INDEX ix_staging_file_name ON partner_disbursement_staging (file_name);

CREATE INDEX ix_staging_received ON partner_disbursement_staging (received_at);

CREATE INDEX ix_idempotency_state_created ON idempotency_keys (state, created_at);

CREATE TABLE login_throttle_keys (
  key_hash CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  expires_ns BIGINT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin;

CREATE INDEX ix_throttle_keys_expires ON login_throttle_keys (expires_ns);

CREATE TABLE login_attempts (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  key_hash CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  attempt_id CHAR(24) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  at_ns BIGINT NOT NULL,
  expires_ns BIGINT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin;

CREATE INDEX ix_attempts_key_at ON login_attempts (key_hash, at_ns);

CREATE INDEX ix_attempts_expires ON login_attempts (expires_ns);
