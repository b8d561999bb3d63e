-- Answers from stored JSON (issue 30): each shipment keeps its public representation, written
-- by every write in the same unit of work, so that a get or a list writes its answer from these
-- bytes instead of building the model and a value tree. The model reads its nested parts from
-- it too: a row has `repr`, or (stored before this version) `body` until housekeeping gives it
-- `repr` a batch at a time, so that upgrading a large database does not wait for it.
ALTER TABLE shipments ADD COLUMN repr TEXT;
CREATE INDEX shipments_unrendered ON shipments(id) WHERE repr IS NULL;
-- Index entries that earned nothing on most rows: no query reads `split_from`; most shipments
-- have no order and no rule, and the look-ups by them (`= ?`) use a partial index.
DROP INDEX shipments_split_from;
DROP INDEX shipments_org_order;
CREATE INDEX shipments_org_order ON shipments(org_id, order_id) WHERE order_id IS NOT NULL;
DROP INDEX shipments_rule;
CREATE INDEX shipments_rule ON shipments(shipping_rule_id) WHERE shipping_rule_id IS NOT NULL;
