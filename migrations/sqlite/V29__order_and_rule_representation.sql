-- Answers from stored JSON for orders and shipping rules (issue 30), as V28 did for shipments:
-- every write stores the public representation (`repr`) in the same unit of work, and gets and
-- lists write their answers from these bytes. An order's model reads its JSON parts from `repr`
-- (new writes leave `body` empty); a shipping rule keeps its fields in `body` as before. Rows
-- stored before this version get `repr` from housekeeping, a batch at a time; reads make it
-- from the row meanwhile.
ALTER TABLE orders ADD COLUMN repr TEXT;
CREATE INDEX orders_unrendered ON orders(id) WHERE repr IS NULL;
ALTER TABLE shipping_rules ADD COLUMN repr TEXT;
CREATE INDEX shipping_rules_unrendered ON shipping_rules(id) WHERE repr IS NULL;
