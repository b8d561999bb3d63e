-- A printer's jobs are sent one at a time, in the order they were queued (DESIGN §17):
-- `position` orders the jobs one booking queues (its documents' order: parcel 1, 2, …) after
-- `created_at`; `busy_since` is when the printer first answered busy to the job's current
-- attempt (waiting for a busy printer is not a failed attempt until printers.busy_wait_seconds).
ALTER TABLE print_jobs ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
ALTER TABLE print_jobs ADD COLUMN busy_since TEXT;
CREATE INDEX print_jobs_queue ON print_jobs(printer_id, created_at, position, id) WHERE status = 'queued';
