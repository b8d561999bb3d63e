//! Identifiers are `<kind>_<ULID>` (DESIGN §3): sortable, opaque to clients.

use std::sync::Mutex;

pub const ORG: &str = "org";
pub const USER: &str = "usr";
pub const API_TOKEN: &str = "tok";
pub const SENDER_ADDRESS: &str = "adr";
pub const CARRIER: &str = "car";
pub const SHIPPING_RULE: &str = "rul";
pub const SHIPMENT: &str = "shp";
pub const PARCEL: &str = "prc";
pub const ORDER_LINE: &str = "oln";
pub const DOCUMENT: &str = "doc";
pub const ORDER: &str = "ord";
pub const ORDER_CHANNEL: &str = "och";
pub const EVENT: &str = "evt";
pub const WEBHOOK: &str = "whk";
pub const ATTEMPT: &str = "att";
pub const OAUTH_CLIENT: &str = "cli";
pub const CONNECTION: &str = "con";
pub const PRINTER: &str = "prn";
pub const PRINT_JOB: &str = "pjb";
pub const AUDIT_ENTRY: &str = "aud";
pub const BOOKING_ATTEMPT: &str = "bka";
pub const PICKUP: &str = "pck";
pub const MANIFEST: &str = "mfst";

/// One generator for the process, so ids made within the same millisecond still sort in the
/// order they were made: lists ordered by (createdAt, id) are then truly newest first.
static GENERATOR: Mutex<ulid::Generator> = Mutex::new(ulid::Generator::new());

/// A fresh identifier of the given kind, e.g. `org_01J…`.
pub fn new(kind: &str) -> String {
    let mut generator = GENERATOR
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // The generator fails only when 2^80 ids are made in one millisecond; fall back to a fresh one.
    let ulid = generator.generate().unwrap_or_else(|_| ulid::Ulid::new());
    format!("{kind}_{ulid}")
}

/// The smallest identifier of `kind` made at or after `at`: ids sort by the time they were
/// made, so `id < floor(kind, at)` selects what is older than `at`.
pub fn floor(kind: &str, at: time::OffsetDateTime) -> String {
    let ms = u64::try_from(at.unix_timestamp_nanos() / 1_000_000).unwrap_or(0);
    format!("{kind}_{}", ulid::Ulid::from_parts(ms, 0))
}

/// Whether `value` is an identifier of `kind` (prefix and a valid ULID).
pub fn is_valid(kind: &str, value: &str) -> bool {
    value
        .strip_prefix(kind)
        .and_then(|rest| rest.strip_prefix('_'))
        .is_some_and(|ulid| ulid.len() == 26 && ulid::Ulid::from_string(ulid).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_carry_their_kind_and_a_ulid() {
        let id = new(ORG);
        assert!(id.starts_with("org_"));
        assert_eq!(id.len(), 30);
        assert!(is_valid(ORG, &id));
        assert!(!is_valid(USER, &id));
    }

    #[test]
    fn ids_made_in_a_row_sort_in_the_order_they_were_made() {
        let ids: Vec<String> = (0..1000).map(|_| new(SHIPMENT)).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
    }

    #[test]
    fn ids_made_before_a_time_sort_below_its_floor() {
        let before = new(EVENT);
        let floor = floor(
            EVENT,
            time::OffsetDateTime::now_utc() + time::Duration::seconds(1),
        );
        assert!(before < floor, "{before} < {floor}");
        assert!(floor < new(EVENT) || floor > before);
        assert!(is_valid(EVENT, &floor));
    }

    #[test]
    fn malformed_ids_are_not_valid() {
        assert!(!is_valid(ORG, "org_"));
        assert!(!is_valid(ORG, "org_123"));
        assert!(!is_valid(ORG, "org01ARZ3NDEKTSV4RRFFQ69G5FAV"));
        assert!(is_valid(ORG, "org_01ARZ3NDEKTSV4RRFFQ69G5FAV"));
    }
}
