-- A shipment's search terms written by their key alone (issue 30): a write knows the terms the
-- shipment had from the shipment as it read it before the change, so it deletes the ones gone by
-- `(org_id, term, shipment_id)` and no longer reads them by shipment. The index by shipment and
-- the foreign key to `shipments` (a look-up per term written, and the index's B-tree) earned
-- nothing else: deleting a shipment deletes its terms the same way.
ALTER TABLE shipment_terms DROP CONSTRAINT IF EXISTS shipment_terms_shipment_id_fkey;
DROP INDEX IF EXISTS shipment_terms_shipment;
