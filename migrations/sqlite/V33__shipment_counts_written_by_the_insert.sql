-- A new shipment is counted by the statement after its INSERT (store::shipments::insert), no
-- longer by a trigger (issue 30). A trigger makes SQLite open a statement journal for the
-- INSERT, copying each page it touches (the row's and its seven indexes') before writing it,
-- and it turns the foreign-key checks into counters: a seventh of the writer's work for a
-- create. Deletes and status changes are still counted by their triggers.
DROP TRIGGER shipment_counts_insert;
