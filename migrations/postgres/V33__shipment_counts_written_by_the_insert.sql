-- A new shipment is counted by the statement after its INSERT (store::shipments::insert), as on
-- SQLite, where an INSERT trigger costs a statement journal; deletes and status changes are
-- still counted by the trigger function.
DROP TRIGGER shipment_counts_insert ON shipments;
CREATE TRIGGER shipment_counts_delete AFTER DELETE ON shipments
    FOR EACH ROW EXECUTE FUNCTION shipment_counts_keep();
