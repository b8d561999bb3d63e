-- Finding shipments by what people know of them (DESIGN §20: search by receiver and tracking
-- number, the carrier filter, scanning a tracking number): each shipment's search terms, one
-- row each, so that a search is an index range per word rather than a scan of the bodies.
-- Terms: the receiver's name words, e-mail and postal code and each tracking number, lowercased
-- (matched by prefix).
CREATE TABLE shipment_terms (
    org_id      TEXT NOT NULL,
    term        TEXT NOT NULL,
    shipment_id TEXT NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
    PRIMARY KEY (org_id, term, shipment_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX shipment_terms_shipment ON shipment_terms(shipment_id);
-- Shipments stored before this version get their terms in the background (housekeeping), a
-- batch at a time, so that upgrading a large database does not wait for it.
ALTER TABLE shipments ADD COLUMN searchable INTEGER NOT NULL DEFAULT 0;
CREATE INDEX shipments_unsearchable ON shipments(id) WHERE searchable = 0;
-- The carrier filter: the carrier a shipment books with, as a column (it lives in `body`), so a
-- page of one carrier's shipments is read in order from an index. Older shipments get it with
-- their terms.
ALTER TABLE shipments ADD COLUMN carrier_id TEXT;
CREATE INDEX shipments_org_carrier ON shipments(org_id, carrier_id, created_at, id);
