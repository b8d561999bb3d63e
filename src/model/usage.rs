//! Plans and usage (SPEC §2 Usage, §8; DESIGN §10): what is counted, the billing period, and the
//! usage report. Shipments are counted per organization and calendar month (UTC) in the
//! transaction of the write they count, so reading usage never scans the counted rows.

use poem_openapi::Object;
use time::{Date, Month, OffsetDateTime, Time};

use crate::model::time::{self as stamp, Timestamp};

crate::string_enum! {
    /// What a counter counts.
    Counter {
        /// Shipments created, per calendar month (UTC).
        Shipments = "shipments",
    }
}

/// A limit of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    TeamMembers,
    Carriers,
    OrderChannels,
    ShippingRules,
    SenderAddresses,
    ApiTokens,
    /// Shipments included per calendar month.
    Shipments,
}

impl Limit {
    pub const ALL: [Limit; 7] = [
        Limit::TeamMembers,
        Limit::Carriers,
        Limit::OrderChannels,
        Limit::ShippingRules,
        Limit::SenderAddresses,
        Limit::ApiTokens,
        Limit::Shipments,
    ];

    /// The limit in words, for messages.
    pub fn words(self) -> &'static str {
        match self {
            Limit::TeamMembers => "team members",
            Limit::Carriers => "carriers",
            Limit::OrderChannels => "order channels",
            Limit::ShippingRules => "shipping rules",
            Limit::SenderAddresses => "sender addresses",
            Limit::ApiTokens => "API tokens",
            Limit::Shipments => "shipments this month",
        }
    }

    /// The add-on type that raises this limit.
    pub fn add_on(self) -> &'static str {
        match self {
            Limit::TeamMembers => "extra_team_member",
            Limit::Carriers => "extra_carrier",
            Limit::OrderChannels => "extra_order_channel",
            Limit::ShippingRules => "extra_shipping_rule",
            Limit::SenderAddresses => "extra_sender_address",
            Limit::ApiTokens => "extra_api_token",
            Limit::Shipments => "extra_shipments",
        }
    }
}

/// The billing period of a stored timestamp: its calendar month in UTC, `2026-11`.
pub fn month_of(timestamp: &str) -> &str {
    timestamp.get(..7).unwrap_or(timestamp)
}

/// The calendar month (UTC) holding `now`: its first instant and the first of the next.
pub fn period_of(now: Timestamp) -> (Timestamp, Timestamp) {
    let now = now.to_offset(time::UtcOffset::UTC);
    let first = |year: i32, month: Month| {
        Date::from_calendar_date(year, month, 1)
            .map(|d| d.with_time(Time::MIDNIGHT).assume_utc())
            .unwrap_or(OffsetDateTime::UNIX_EPOCH)
    };
    let start = first(now.year(), now.month());
    let (year, month) = match now.month() {
        Month::December => (now.year() + 1, Month::January),
        month => (now.year(), month.next()),
    };
    (start, first(year, month))
}

/// The current billing period.
#[derive(Clone, Debug, PartialEq, Object)]
pub struct Period {
    /// The first instant of the calendar month (UTC).
    pub start: String,
    /// The first instant of the next month.
    pub end: String,
}

impl Period {
    pub fn of(now: Timestamp) -> Period {
        let (start, end) = period_of(now);
        Period {
            start: stamp::format(start),
            end: stamp::format(end),
        }
    }
}

/// Shipments of the period.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct ShipmentUsage {
    /// Created this period, overage included.
    pub used: u64,
    /// Included in the plan (0: unlimited).
    pub included: u64,
    /// Created beyond `included` (only while overage is enabled).
    pub overage: u64,
    /// `overage × the plan's overage price`.
    pub overage_charges: f64,
}

/// One limit: how much is used of it.
#[derive(Clone, Debug, PartialEq, Object)]
pub struct LimitUsage {
    pub used: u64,
    /// 0 means unlimited.
    pub limit: u64,
}

/// Every resource limit of the plan.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Limits {
    pub team_members: LimitUsage,
    pub carriers: LimitUsage,
    pub order_channels: LimitUsage,
    pub shipping_rules: LimitUsage,
    pub sender_addresses: LimitUsage,
    pub api_tokens: LimitUsage,
}

/// An add-on of the plan.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct AddOn {
    /// `extra_carrier`, `extra_team_member`, …
    #[oai(rename = "type")]
    pub kind: String,
    pub quantity: u64,
    pub unit_price: f64,
    pub total_price: f64,
}

/// The usage report.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Usage {
    pub current_period: Period,
    pub shipments: ShipmentUsage,
    pub limits: Limits,
    pub add_ons: Vec<AddOn>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::time::macros::datetime;

    #[test]
    fn the_period_is_the_utc_month_of_the_stored_time() {
        assert_eq!(month_of("2026-11-30T23:59:59.999Z"), "2026-11");
        assert_eq!(month_of("2026-12-01T00:00:00.000Z"), "2026-12");
    }

    #[test]
    fn periods_run_from_the_first_of_the_month_to_the_first_of_the_next() {
        let p = Period::of(datetime!(2026-11-30 23:59:59.999 UTC));
        assert_eq!(
            (p.start.as_str(), p.end.as_str()),
            ("2026-11-01T00:00:00.000Z", "2026-12-01T00:00:00.000Z")
        );
        let p = Period::of(datetime!(2026-12-31 10:00 UTC));
        assert_eq!(p.end, "2027-01-01T00:00:00.000Z");
        // 00:30 in Copenhagen on the 1st is still the previous month in UTC.
        let p = Period::of(datetime!(2026-12-01 00:30 +01:00));
        assert_eq!(p.start, "2026-11-01T00:00:00.000Z");
    }
}
