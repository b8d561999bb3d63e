-- Order channels (manual, shopify) and the orders they bring in.
CREATE TABLE order_channels (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    type           TEXT NOT NULL CHECK (type IN ('manual', 'shopify')),
    shop_domain    TEXT,
    webhook_secret TEXT,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);
CREATE INDEX order_channels_org ON order_channels(org_id, created_at DESC, id DESC);

-- Lines, customer, totals and addresses live in `body` (JSON).
CREATE TABLE orders (
    id               TEXT PRIMARY KEY,
    org_id           TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    order_channel_id TEXT NOT NULL REFERENCES order_channels(id),
    order_number     TEXT NOT NULL,
    external_id      TEXT,
    status           TEXT NOT NULL,
    shipping_rule_id TEXT REFERENCES shipping_rules(id) ON DELETE SET NULL,
    body             TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL
);
CREATE INDEX orders_org ON orders(org_id, created_at DESC, id DESC);
CREATE INDEX orders_org_status ON orders(org_id, status, created_at DESC);
CREATE INDEX orders_org_number ON orders(org_id, order_number);
CREATE UNIQUE INDEX orders_channel_external ON orders(order_channel_id, external_id) WHERE external_id IS NOT NULL;

-- Shopify webhook deliveries already handled (X-Shopify-Webhook-Id), to acknowledge repeats.
CREATE TABLE shopify_deliveries (
    channel_id  TEXT NOT NULL REFERENCES order_channels(id) ON DELETE CASCADE,
    webhook_id  TEXT NOT NULL,
    received_at TEXT NOT NULL,
    PRIMARY KEY (channel_id, webhook_id)
);
