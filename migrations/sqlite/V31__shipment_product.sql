-- The carrier product of each shipment as a column of its own (issue 30): the workbench's list
-- shows it with the reference, status and creation time, which are columns already, so a page
-- of fifty no longer reads fifty representations to find one member in each. Every write sets
-- it in the same unit of work as `repr`. Rows stored before this version keep NULL until a write
-- changes them; the list reads their product from the representation, as it read every row's
-- before, so upgrading a large database does not rewrite it.
ALTER TABLE shipments ADD COLUMN product_id TEXT;
