-- Migration 10: endpoint counts recounted (sqlite). Frozen: never edit a released migration.
-- From this release a report's event is written dispatched when its
-- partner's count is 0 (gormstore/listeners.go). Before it, two
-- deletions of one endpoint at once could lower a count twice: each
-- partner's count is set to its endpoints.
UPDATE webhook_endpoint_counts SET endpoints = (SELECT COUNT(*) FROM webhook_endpoints
  WHERE webhook_endpoints.partner_user = webhook_endpoint_counts.partner_user);
INSERT INTO webhook_endpoint_counts (partner_user, endpoints)
  SELECT partner_user, COUNT(*) FROM webhook_endpoints
  WHERE partner_user NOT IN (SELECT partner_user FROM webhook_endpoint_counts) GROUP BY partner_user;
