//! Plan counters (DESIGN §10), kept per organization and period in the transaction of the write
//! they count, so that reading usage never scans the counted rows.

crate::string_enum! {
    /// What a counter counts.
    Counter {
        /// Shipments created, per calendar month (UTC).
        Shipments = "shipments",
    }
}

/// The billing period of a stored timestamp: its calendar month in UTC, `2026-11`.
pub fn month_of(timestamp: &str) -> &str {
    timestamp.get(..7).unwrap_or(timestamp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_period_is_the_utc_month_of_the_stored_time() {
        assert_eq!(month_of("2026-11-30T23:59:59.999Z"), "2026-11");
        assert_eq!(month_of("2026-12-01T00:00:00.000Z"), "2026-12");
    }
}
