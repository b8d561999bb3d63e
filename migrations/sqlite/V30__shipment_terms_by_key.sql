-- A shipment's search terms written by their key alone (issue 30): a write knows the terms the
-- shipment had from the shipment as it read it before the change, so it deletes the ones gone by
-- `(org_id, term, shipment_id)` and no longer reads them by shipment. The index by shipment and
-- the foreign key to `shipments` (a look-up per term written, and the index's B-tree) earned
-- nothing else: deleting a shipment deletes its terms the same way. SQLite drops a foreign key
-- only with its table, so the table is made again with the rows it has.
CREATE TABLE shipment_terms_by_key (
    org_id      TEXT NOT NULL,
    term        TEXT NOT NULL,
    shipment_id TEXT NOT NULL,
    PRIMARY KEY (org_id, term, shipment_id)
) STRICT, WITHOUT ROWID;
INSERT INTO shipment_terms_by_key (org_id, term, shipment_id)
    SELECT org_id, term, shipment_id FROM shipment_terms ORDER BY org_id, term, shipment_id;
DROP TABLE shipment_terms;
ALTER TABLE shipment_terms_by_key RENAME TO shipment_terms;
