-- Migration 3: file claims and tombstones (mysql). Frozen: never edit a released migration.
-- A report's batch claims its file name here in the row's transaction; the
-- sweep removes a file only after committing a tombstone under the same key.
CREATE TABLE upload_files (
  file_name VARCHAR(100) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  state VARCHAR(10) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  report_id BIGINT NULL,
  created_at DATETIME(6) NOT NULL,
  checked TINYINT(1) NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin;

CREATE INDEX ix_upload_files_checked ON upload_files (checked, created_at);

CREATE INDEX ix_upload_files_state ON upload_files (state, created_at);

-- The files of the rows stored before this migration are claimed; they were
-- checked by the sweep of their release, so they count as checked. A run
-- stopped half-way (MySQL commits each DDL statement) is run again: the
-- claims already copied are kept as they are.
INSERT INTO upload_files (file_name, state, report_id, created_at, checked)
SELECT file_name, 'claimed', MIN(id), MIN(received_at), 1
FROM partner_disbursement_staging
WHERE file_name IS NOT NULL
GROUP BY file_name
ON DUPLICATE KEY UPDATE state = upload_files.state;
