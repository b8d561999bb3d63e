-- Shipments per organization and status, kept by triggers in the writing transaction, so that a
-- list's total is a lookup of at most a handful of rows instead of a COUNT over every shipment
-- of the organization (flat from 10 to a million shipments).
CREATE TABLE shipment_counts (
    org_id TEXT NOT NULL,
    status TEXT NOT NULL,
    n      BIGINT NOT NULL,
    PRIMARY KEY (org_id, status)
);

INSERT INTO shipment_counts (org_id, status, n)
    SELECT org_id, status, COUNT(*) FROM shipments GROUP BY org_id, status;

CREATE FUNCTION shipment_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE shipment_counts SET n = n - 1 WHERE org_id = OLD.org_id AND status = OLD.status;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO shipment_counts (org_id, status, n) VALUES (NEW.org_id, NEW.status, 1)
            ON CONFLICT (org_id, status) DO UPDATE SET n = shipment_counts.n + 1;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER shipment_counts_insert AFTER INSERT OR DELETE ON shipments
    FOR EACH ROW EXECUTE FUNCTION shipment_counts_keep();

CREATE TRIGGER shipment_counts_status AFTER UPDATE OF status ON shipments
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION shipment_counts_keep();
