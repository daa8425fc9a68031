-- Migration 3: file claims and tombstones (sqlite). Frozen: never edit a released migration.
-- A report's batch claims its file name here in the row's transaction; the
-- sweep removes a file only after committing a tombstone under the same key.
CREATE TABLE upload_files (
  file_name VARCHAR(100) NOT NULL PRIMARY KEY,
  state VARCHAR(10) NOT NULL,
  report_id BIGINT NULL,
  created_at DATETIME NOT NULL,
  checked INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX ix_upload_files_checked ON upload_files (checked, created_at);

CREATE INDEX ix_upload_files_state ON upload_files (state, created_at);

-- The files of the rows stored before this migration are claimed; they were
-- checked by the sweep of their release, so they count as checked.
INSERT INTO upload_files (file_name, state, report_id, created_at, checked)
SELECT file_name, 'claimed', MIN(id), MIN(received_at), 1
FROM partner_disbursement_staging
WHERE file_name IS NOT NULL
GROUP BY file_name;
