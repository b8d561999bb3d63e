//! The shipment status machine (DESIGN §7) as one table. Any move not in it, a move to the
//! same status included, is refused.

/// `(from, [allowed targets])`.
const MOVES: [(&str, &[&str]); 8] = [
    ("draft", &["pending", "cancelled"]),
    ("pending", &["processing", "on_hold", "error", "cancelled"]),
    ("on_hold", &["pending", "cancelled"]),
    (
        "processing",
        &["dispatched", "partly_dispatched", "error", "cancelled"],
    ),
    ("error", &["pending", "cancelled"]),
    ("partly_dispatched", &["dispatched", "error"]),
    ("dispatched", &[]),
    ("cancelled", &[]),
];

/// Whether a shipment may move from `from` to `to`.
pub fn can_move(from: &str, to: &str) -> bool {
    MOVES
        .iter()
        .any(|(source, targets)| *source == from && targets.contains(&to))
}

/// Statuses in which a shipment's contents may still change (split, rules, delete).
pub fn is_unbooked(status: &str) -> bool {
    matches!(status, "draft" | "pending" | "on_hold" | "error")
}

/// Statuses in which a shipment has left the warehouse (returns are possible).
pub fn has_left(status: &str) -> bool {
    matches!(status, "dispatched" | "partly_dispatched")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::shipment::STATUSES;

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
        for from in STATUSES {
            for to in STATUSES {
                assert_eq!(
                    can_move(from, to),
                    allowed.contains(&(from, to)),
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
        let mut statuses = STATUSES.to_vec();
        statuses.sort_unstable();
        assert_eq!(sources, statuses);
    }

    #[test]
    fn unknown_statuses_never_move() {
        assert!(!can_move("shipped", "pending"));
        assert!(!can_move("pending", "shipped"));
    }
}
