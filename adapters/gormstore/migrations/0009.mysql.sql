-- Migration 9: partners' secret rotations (mysql). Frozen: never edit a released migration.
-- The secret a partner's last rotation replaced (its bcrypt hash), which
-- opens a login until previous_until; rotated_at is when that rotation
-- ran. All NULL: never rotated.
ALTER TABLE users ADD COLUMN previous_password_hash VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NULL,
  ADD COLUMN rotated_at DATETIME(6) NULL,
  ADD COLUMN previous_until DATETIME(6) NULL;
