-- Migration 5: password changes (sqlite). Frozen: never edit a released migration.
-- When a user's password was last changed by users passwd (NULL: never);
-- tokens issued before that second are refused.
ALTER TABLE users ADD COLUMN password_changed_at DATETIME NULL;
