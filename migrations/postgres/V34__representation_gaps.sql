-- Where the members a shipment's representation leaves out go (issue 30): the byte offsets of
-- the `,` before its `"id"` and its `"status"` members, written with the representation by
-- every write. A get writes its answer around them (documents, the rule and its id) instead
-- of reading the representation again. Rows written before have none and are merged as before.
ALTER TABLE shipments ADD COLUMN repr_id_at BIGINT;
ALTER TABLE shipments ADD COLUMN repr_status_at BIGINT;
