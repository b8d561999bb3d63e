//! Plain types and rules with no I/O: ids, time, scopes, organizations, validation.

/// Sender addresses.
pub mod address;
/// Carriers an organization configured.
pub mod carrier;
/// ISO 3166-1 country codes.
pub mod country;
/// Shipment documents (labels).
pub mod document;
/// `<kind>_<ULID>` identifiers.
pub mod ids;
/// Orders and order channels.
pub mod order;
/// Organizations: slug, currency and field rules.
pub mod org;
/// Shipping rules and their conditions.
pub mod rule;
/// Scopes (`read:shipments`, `write:all`) and what they grant.
pub mod scope;
/// Shipments: parties, parcels, order lines, tracking.
pub mod shipment;
/// Taking units out of a parcel: split and batch split math.
pub mod split;
/// The shipment status machine.
pub mod status;
/// RFC 3339 timestamps with millisecond precision.
pub mod time;
/// Field-level validation that collects every problem of a request.
pub mod validate;
