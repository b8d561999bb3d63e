-- Parcels booked before each parcel had its own tracking number: the carrier then gave the
-- shipment one number (`tracking.number` in `body`) and every parcel's label carried it, while
-- the parcels (`body.parcels[]`) had no `trackingNumber`. Each such parcel gets the number its
-- label carries. Such a shipment has a tracking number, labels, and no parcel with a number (a
-- booking since then numbers its parcels). The parcels keep their order (the array is put
-- together as text, in the order of its keys) and the shipment its `updated_at`; its search
-- terms stay right, the shipment's number being one of them already.
UPDATE shipments
SET body = json_set(
    body,
    '$.parcels',
    json((
        SELECT '[' || group_concat(
            json_set(p.value, '$.trackingNumber', json_extract(shipments.body, '$.tracking.number')),
            ',' ORDER BY p.key
        ) || ']'
        FROM json_each(shipments.body, '$.parcels') AS p
    ))
)
WHERE json_type(body, '$.tracking.number') = 'text'
  AND json_type(body, '$.parcels') = 'array'
  AND json_array_length(body, '$.parcels') > 0
  AND NOT EXISTS (
      SELECT 1 FROM json_each(shipments.body, '$.parcels') AS p
      WHERE json_extract(p.value, '$.trackingNumber') IS NOT NULL
  )
  AND EXISTS (
      SELECT 1 FROM documents d
      WHERE d.org_id = shipments.org_id AND d.shipment_id = shipments.id
        AND d.document_type = 'label'
  );
