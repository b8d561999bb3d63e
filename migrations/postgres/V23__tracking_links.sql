-- The public tracking page of a booked shipment (DESIGN §21): a random token (128 bits,
-- base64url) names it in `{base_url}/t/{token}`; the page is found by the token alone. One per
-- shipment; it goes with its shipment.
CREATE TABLE tracking_links (
    token       TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    shipment_id TEXT NOT NULL UNIQUE REFERENCES shipments(id) ON DELETE CASCADE,
    created_at  TEXT NOT NULL
);
