-- Sender addresses, carriers, shipping rules and shipments.
CREATE TABLE sender_addresses (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    att_contact  TEXT NOT NULL,
    address1     TEXT NOT NULL,
    address2     TEXT,
    zipcode      TEXT NOT NULL,
    city         TEXT NOT NULL,
    phone        TEXT NOT NULL,
    country_code TEXT NOT NULL,
    state        TEXT NOT NULL,
    email        TEXT NOT NULL,
    customs      TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
) STRICT;
CREATE INDEX sender_addresses_org ON sender_addresses(org_id, created_at DESC, id DESC);

CREATE TABLE carriers (
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name              TEXT NOT NULL,
    carrier_slug      TEXT NOT NULL,
    config            TEXT NOT NULL,
    sender_address_id TEXT NOT NULL REFERENCES sender_addresses(id),
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
) STRICT;
CREATE INDEX carriers_org ON carriers(org_id, created_at DESC, id DESC);
CREATE INDEX carriers_sender_address ON carriers(sender_address_id);

-- The rule's settings live in `body` (JSON); references are columns so the database keeps them.
CREATE TABLE shipping_rules (
    id                      TEXT PRIMARY KEY,
    org_id                  TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name                    TEXT NOT NULL,
    carrier_id              TEXT NOT NULL REFERENCES carriers(id),
    sender_address_id       TEXT NOT NULL REFERENCES sender_addresses(id),
    return_shipping_rule_id TEXT REFERENCES shipping_rules(id),
    body                    TEXT NOT NULL,
    created_at              TEXT NOT NULL,
    updated_at              TEXT NOT NULL
) STRICT;
CREATE INDEX shipping_rules_org ON shipping_rules(org_id, created_at DESC, id DESC);
CREATE INDEX shipping_rules_carrier ON shipping_rules(carrier_id);
CREATE INDEX shipping_rules_sender_address ON shipping_rules(sender_address_id);
CREATE INDEX shipping_rules_return ON shipping_rules(return_shipping_rule_id);

-- Parties, carrier settings, parcels, pickup details and tracking live in `body` (JSON): they
-- are read and written with their shipment, always inside one transaction.
CREATE TABLE shipments (
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    reference         TEXT NOT NULL,
    sender_address_id TEXT NOT NULL REFERENCES sender_addresses(id),
    type              TEXT NOT NULL CHECK (type IN ('outbound', 'inbound')),
    status            TEXT NOT NULL,
    term_of_trade     TEXT NOT NULL,
    order_id          TEXT,
    shipping_rule_id  TEXT REFERENCES shipping_rules(id) ON DELETE SET NULL,
    return_of         TEXT,
    body              TEXT NOT NULL,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
) STRICT;
CREATE INDEX shipments_org ON shipments(org_id, created_at DESC, id DESC);
CREATE INDEX shipments_org_status ON shipments(org_id, status, created_at DESC, id DESC);
CREATE INDEX shipments_org_reference ON shipments(org_id, reference);
CREATE INDEX shipments_org_order ON shipments(org_id, order_id);
CREATE INDEX shipments_sender_address ON shipments(sender_address_id);
CREATE INDEX shipments_rule ON shipments(shipping_rule_id);
