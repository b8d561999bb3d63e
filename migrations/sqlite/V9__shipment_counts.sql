-- Shipments per organization and status, kept by triggers in the writing transaction, so that a
-- list's total is a lookup of at most a handful of rows instead of a COUNT over every shipment
-- of the organization (flat from 10 to a million shipments).
CREATE TABLE shipment_counts (
    org_id TEXT NOT NULL,
    status TEXT NOT NULL,
    n      INTEGER NOT NULL,
    PRIMARY KEY (org_id, status)
) WITHOUT ROWID;

INSERT INTO shipment_counts (org_id, status, n)
    SELECT org_id, status, COUNT(*) FROM shipments GROUP BY org_id, status;

CREATE TRIGGER shipment_counts_insert AFTER INSERT ON shipments BEGIN
    INSERT INTO shipment_counts (org_id, status, n) VALUES (NEW.org_id, NEW.status, 1)
        ON CONFLICT (org_id, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER shipment_counts_delete AFTER DELETE ON shipments BEGIN
    UPDATE shipment_counts SET n = n - 1 WHERE org_id = OLD.org_id AND status = OLD.status;
END;

CREATE TRIGGER shipment_counts_status AFTER UPDATE OF status ON shipments
    WHEN OLD.status IS NOT NEW.status BEGIN
    UPDATE shipment_counts SET n = n - 1 WHERE org_id = OLD.org_id AND status = OLD.status;
    INSERT INTO shipment_counts (org_id, status, n) VALUES (NEW.org_id, NEW.status, 1)
        ON CONFLICT (org_id, status) DO UPDATE SET n = n + 1;
END;
