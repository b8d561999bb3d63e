//! Timestamps are RFC 3339, UTC, millisecond precision, `Z` suffix (DESIGN §3). Stored in the
//! same text form, which sorts chronologically.

use time::{
    Duration, OffsetDateTime, format_description::BorrowedFormatItem, macros::format_description,
};

const FORMAT: &[BorrowedFormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

/// A point in time as the API shows it.
pub type Timestamp = OffsetDateTime;

/// Formats `t` as `2026-11-22T10:15:30.123Z`.
pub fn format(t: Timestamp) -> String {
    t.to_offset(time::UtcOffset::UTC)
        .format(FORMAT)
        .unwrap_or_else(|_| String::from("1970-01-01T00:00:00.000Z"))
}

/// Parses any RFC 3339 timestamp (clients may send offsets or more precision).
pub fn parse(text: &str) -> Option<Timestamp> {
    OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()
}

/// Where "now" comes from: the system clock, a fixed instant, or (in tests) an instant that is
/// set from outside.
#[derive(Clone, Debug, Default)]
pub enum Clock {
    #[default]
    System,
    Fixed(Timestamp),
    Set(std::sync::Arc<std::sync::Mutex<Timestamp>>),
}

impl Clock {
    pub fn now(&self) -> Timestamp {
        match self {
            Clock::System => OffsetDateTime::now_utc(),
            Clock::Fixed(t) => *t,
            Clock::Set(t) => *t.lock().unwrap_or_else(|p| p.into_inner()),
        }
    }
}

/// Parses a duration such as `90s`, `15m`, `12h` or `30d`.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let unit = text.chars().last()?;
    let amount: i64 = text[..text.len() - unit.len_utf8()].parse().ok()?;
    if amount <= 0 {
        return None;
    }
    match unit {
        's' => Some(Duration::seconds(amount)),
        'm' => amount.checked_mul(60).map(Duration::seconds),
        'h' => amount.checked_mul(3600).map(Duration::seconds),
        'd' => amount.checked_mul(86_400).map(Duration::seconds),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn formats_with_milliseconds_and_z() {
        assert_eq!(
            format(datetime!(2026-11-22 10:15:30.123456 UTC)),
            "2026-11-22T10:15:30.123Z"
        );
        assert_eq!(
            format(datetime!(2026-11-22 12:15:30 +02:00)),
            "2026-11-22T10:15:30.000Z"
        );
    }

    #[test]
    fn parses_rfc3339_with_offsets() {
        let t = parse("2026-11-22T12:15:30+02:00").map(format);
        assert_eq!(t.as_deref(), Some("2026-11-22T10:15:30.000Z"));
        assert!(parse("22/11/2026").is_none());
    }

    #[test]
    fn durations_need_a_positive_number_and_a_unit() {
        assert_eq!(parse_duration("90s"), Some(Duration::seconds(90)));
        assert_eq!(parse_duration("15m"), Some(Duration::minutes(15)));
        assert_eq!(parse_duration("12h"), Some(Duration::hours(12)));
        assert_eq!(parse_duration("30d"), Some(Duration::days(30)));
        for bad in [
            "",
            "30",
            "d",
            "0d",
            "-1d",
            "3w",
            "1.5h",
            "99999999999999999d",
        ] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
    }
}
