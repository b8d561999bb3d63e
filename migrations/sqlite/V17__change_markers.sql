-- The workbench's live lists ask, every few seconds, whether anything of an organization
-- changed (DESIGN §20): the newest update of its shipments, its orders and its print jobs.
-- Each is one index lookup.
CREATE INDEX shipments_org_updated ON shipments(org_id, updated_at);
CREATE INDEX orders_org_updated ON orders(org_id, updated_at);
CREATE INDEX print_jobs_org_updated ON print_jobs(org_id, updated_at);
