//! Integration tests: each test starts the real application on an OS-assigned port with its own
//! temporary data directory, and drives it over HTTP and through the shipbase binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api_tokens;
mod audit;
mod auth;
mod billing;
mod browser;
mod carriers;
mod carriers_real;
mod cli;
mod crash;
mod customs_documents;
mod documents;
mod editing;
mod errors;
mod events;
mod fixtures;
mod health;
mod helpers;
mod idempotency;
mod isolation;
mod labels;
mod limits;
mod mcp;
mod oauth;
mod openapi;
mod orders;
mod orgs;
mod pages;
mod postgres;
mod printers;
mod quotes;
mod rate_limits;
mod receiver;
mod roles;
mod sender_addresses;
mod shared_state;
mod shipment_ops;
mod shipments;
mod shipping_rules;
mod shopify;
mod splits;
mod strict_decoder;
mod webhooks;
mod zpl_labels;
