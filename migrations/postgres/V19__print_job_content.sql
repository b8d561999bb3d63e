-- Print jobs that carry what they print (issue 24): a printer's test page is no shipment's
-- document, so a job is either `document` (a shipment's document, read when it is sent) or
-- `test_page` (its own `content`, `title` and `format`, made when it was queued).
ALTER TABLE print_jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'document'
    CHECK (kind IN ('document', 'test_page'));
ALTER TABLE print_jobs ADD COLUMN content BYTEA;
ALTER TABLE print_jobs ADD COLUMN title TEXT;
ALTER TABLE print_jobs ADD COLUMN format TEXT CHECK (format IN ('pdf', 'zpl'));
ALTER TABLE print_jobs ALTER COLUMN document_id DROP NOT NULL;
ALTER TABLE print_jobs ALTER COLUMN shipment_id DROP NOT NULL;
ALTER TABLE print_jobs ADD CONSTRAINT print_jobs_what CHECK (
    (kind = 'document' AND document_id IS NOT NULL AND shipment_id IS NOT NULL
        AND content IS NULL)
    OR (kind = 'test_page' AND document_id IS NULL AND shipment_id IS NULL
        AND content IS NOT NULL AND title IS NOT NULL AND format IS NOT NULL)
);
