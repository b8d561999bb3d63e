//! Plain types and rules with no I/O: ids, time, scopes, organizations, validation.

/// ISO 3166-1 country codes.
pub mod country;
/// `<kind>_<ULID>` identifiers.
pub mod ids;
/// Organizations: slug, currency and field rules.
pub mod org;
/// Scopes (`read:shipments`, `write:all`) and what they grant.
pub mod scope;
/// RFC 3339 timestamps with millisecond precision.
pub mod time;
/// Field-level validation that collects every problem of a request.
pub mod validate;
