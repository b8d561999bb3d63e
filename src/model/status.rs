//! Statuses of shipments, orders and tracking (SPEC §3, DESIGN §7, §8), and the shipment status
//! machine as one table. Any move not in it, a move to the same status included, is refused.

crate::string_enum! {
    /// Where a shipment stands.
    ShipmentStatus {
        Draft = "draft",
        Pending = "pending",
        Processing = "processing",
        Dispatched = "dispatched",
        PartlyDispatched = "partly_dispatched",
        Error = "error",
        Cancelled = "cancelled",
        OnHold = "on_hold",
    }
}

crate::string_enum! {
    /// Where an order stands; it follows the order's shipments.
    OrderStatus {
        Pending = "pending",
        Processing = "processing",
        PartiallyFulfilled = "partially_fulfilled",
        Fulfilled = "fulfilled",
        Error = "error",
        Cancelled = "cancelled",
    }
}

crate::string_enum! {
    /// Where a parcel is on its way.
    TrackingStatus {
        Created = "created",
        AwaitingPickup = "awaiting_pickup",
        PickedUp = "picked_up",
        InTransit = "in_transit",
        OutForDelivery = "out_for_delivery",
        ReadyForPickup = "ready_for_pickup",
        Delivered = "delivered",
        Returned = "returned",
        Exception = "exception",
    }
}

use ShipmentStatus as S;

/// `(from, [allowed targets])`.
const MOVES: [(S, &[S]); 8] = [
    (S::Draft, &[S::Pending, S::Cancelled]),
    (
        S::Pending,
        &[S::Processing, S::OnHold, S::Error, S::Cancelled],
    ),
    (S::OnHold, &[S::Pending, S::Cancelled]),
    (
        S::Processing,
        &[S::Dispatched, S::PartlyDispatched, S::Error, S::Cancelled],
    ),
    (S::Error, &[S::Pending, S::Cancelled]),
    (S::PartlyDispatched, &[S::Dispatched, S::Error]),
    (S::Dispatched, &[]),
    (S::Cancelled, &[]),
];

impl ShipmentStatus {
    /// Whether a shipment may move from `self` to `to`.
    pub fn can_move(self, to: ShipmentStatus) -> bool {
        MOVES
            .iter()
            .any(|(source, targets)| *source == self && targets.contains(&to))
    }

    /// The moves the machine allows, for people and models: `draft → pending or cancelled;
    /// …`; a status that allows none is final.
    pub fn moves_text() -> String {
        MOVES
            .iter()
            .map(|(from, to)| {
                let targets: Vec<&str> = to.iter().map(|s| s.as_str()).collect();
                if targets.is_empty() {
                    format!("{} is final", from.as_str())
                } else {
                    format!("{} → {}", from.as_str(), targets.join(" or "))
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Statuses in which a shipment's contents may still change (split, rules, editing).
    pub fn is_unbooked(self) -> bool {
        matches!(self, S::Draft | S::Pending | S::OnHold | S::Error)
    }

    /// Statuses in which a shipment has left the warehouse (returns are possible).
    pub fn has_left(self) -> bool {
        matches!(self, S::Dispatched | S::PartlyDispatched)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair of states, spelled out: `(from, to, allowed)`.
    #[test]
    fn every_pair_of_states() {
        let allowed: &[(&str, &str)] = &[
            ("draft", "pending"),
            ("draft", "cancelled"),
            ("pending", "processing"),
            ("pending", "on_hold"),
            ("pending", "error"),
            ("pending", "cancelled"),
            ("on_hold", "pending"),
            ("on_hold", "cancelled"),
            ("processing", "dispatched"),
            ("processing", "partly_dispatched"),
            ("processing", "error"),
            ("processing", "cancelled"),
            ("error", "pending"),
            ("error", "cancelled"),
            ("partly_dispatched", "dispatched"),
            ("partly_dispatched", "error"),
        ];
        let mut checked = 0;
        for &from in ShipmentStatus::ALL {
            for &to in ShipmentStatus::ALL {
                assert_eq!(
                    from.can_move(to),
                    allowed.contains(&(from.as_str(), to.as_str())),
                    "{from} -> {to}"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 64);
    }

    #[test]
    fn the_table_names_every_status_once() {
        let mut sources: Vec<_> = MOVES.iter().map(|(s, _)| *s).collect();
        sources.sort_unstable();
        let mut statuses = ShipmentStatus::ALL.to_vec();
        statuses.sort_unstable();
        assert_eq!(sources, statuses);
    }

    #[test]
    fn statuses_round_trip_through_their_names() {
        for &s in ShipmentStatus::ALL {
            assert_eq!(ShipmentStatus::parse(s.as_str()), Some(s));
        }
        for &s in OrderStatus::ALL {
            assert_eq!(OrderStatus::parse(s.as_str()), Some(s));
        }
        for &s in TrackingStatus::ALL {
            assert_eq!(TrackingStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(ShipmentStatus::parse("shipped"), None);
        assert_eq!(
            serde_json::to_value(ShipmentStatus::PartlyDispatched).ok(),
            Some(serde_json::json!("partly_dispatched"))
        );
    }
}
