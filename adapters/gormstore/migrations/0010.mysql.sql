-- Migration 10: endpoint counts recounted (mysql). Frozen: never edit a released migration.
-- From this release a report's event is written dispatched when its
-- partner's count is 0 (gormstore/listeners.go). Before it, two
-- deletions of one endpoint at once could lower a count twice: each
-- partner's count is set to its endpoints. Both statements can run again.
UPDATE webhook_endpoint_counts c SET c.endpoints = (SELECT COUNT(*) FROM webhook_endpoints e
  WHERE e.partner_user = c.partner_user);
INSERT INTO webhook_endpoint_counts (partner_user, endpoints)
  SELECT e.partner_user, COUNT(*) FROM webhook_endpoints e
  LEFT JOIN webhook_endpoint_counts c ON c.partner_user = e.partner_user
  WHERE c.partner_user IS NULL GROUP BY e.partner_user;
