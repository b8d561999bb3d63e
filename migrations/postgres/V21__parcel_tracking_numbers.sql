-- Parcels booked before each parcel had its own tracking number: the carrier then gave the
-- shipment one number (`tracking.number` in `body`) and every parcel's label carried it, while
-- the parcels (`body.parcels[]`) had no `trackingNumber`. Each such parcel gets the number its
-- label carries. Such a shipment has a tracking number, labels, and no parcel with a number (a
-- booking since then numbers its parcels). The parcels keep their order and the shipment its
-- `updated_at`; its search terms stay right, the shipment's number being one of them already.
-- PostgreSQL storage came after per-parcel numbers: this finds such rows only in a database
-- copied from an older SQLite one. (`parcels` is always an array; the CASE keeps a row whose
-- body says otherwise from failing the migration, as PostgreSQL may test conditions in any order.)
UPDATE shipments s
SET body = jsonb_set(
    s.body::jsonb,
    '{parcels}',
    (
        SELECT jsonb_agg(
            p.value || jsonb_build_object('trackingNumber', s.body::jsonb #> '{tracking,number}')
            ORDER BY p.position
        )
        FROM jsonb_array_elements(s.body::jsonb -> 'parcels') WITH ORDINALITY AS p(value, position)
    )
)::text
WHERE jsonb_typeof(s.body::jsonb #> '{tracking,number}') = 'string'
  AND jsonb_typeof(s.body::jsonb -> 'parcels') = 'array'
  AND EXISTS (
      SELECT 1 FROM documents d
      WHERE d.org_id = s.org_id AND d.shipment_id = s.id AND d.document_type = 'label'
  )
  AND (
      SELECT count(*) = count(*) FILTER (WHERE p.value ->> 'trackingNumber' IS NULL) AND count(*) > 0
      FROM jsonb_array_elements(
          CASE WHEN jsonb_typeof(s.body::jsonb -> 'parcels') = 'array'
               THEN s.body::jsonb -> 'parcels' ELSE '[]'::jsonb END
      ) AS p(value)
  );
