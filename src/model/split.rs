//! Taking units out of a parcel (DESIGN §7 split and batch split). Pure: the parcel given is
//! never changed, so an invalid plan changes nothing. Weight moves in proportion to units.

use std::collections::HashMap;

use crate::model::{
    ids,
    shipment::{Parcel, ParcelOrderLine},
};

/// Move `quantity` units of the order line `line_id`.
#[derive(Clone, Debug, PartialEq)]
pub struct Take {
    pub line_id: String,
    pub quantity: i64,
}

#[derive(Debug, PartialEq)]
pub enum SplitError {
    /// Part `part` names no order line.
    EmptyPart { part: usize },
    /// The parcel has no such order line.
    UnknownLine { part: usize, line_id: String },
    /// A quantity below 1.
    BadQuantity { part: usize, line_id: String },
    /// More units asked for, in all parts together, than the line holds.
    TooMany {
        line_id: String,
        asked: i64,
        available: i64,
    },
}

/// What a plan leaves: the rest of the parcel (None when emptied) and one parcel per part.
#[derive(Debug, PartialEq)]
pub struct Taken {
    pub remaining: Option<Parcel>,
    pub parts: Vec<Parcel>,
}

/// Applies `plan` (one list of takes per new parcel) to `parcel`.
pub fn take(parcel: &Parcel, plan: &[Vec<Take>]) -> Result<Taken, SplitError> {
    let available: HashMap<&str, i64> = parcel
        .order_lines
        .iter()
        .map(|l| (l.id.as_str(), l.quantity))
        .collect();
    let mut asked: HashMap<&str, i64> = HashMap::new();
    for (part, takes) in plan.iter().enumerate() {
        if takes.is_empty() {
            return Err(SplitError::EmptyPart { part });
        }
        for t in takes {
            if !available.contains_key(t.line_id.as_str()) {
                return Err(SplitError::UnknownLine {
                    part,
                    line_id: t.line_id.clone(),
                });
            }
            if t.quantity < 1 {
                return Err(SplitError::BadQuantity {
                    part,
                    line_id: t.line_id.clone(),
                });
            }
            *asked.entry(t.line_id.as_str()).or_default() += t.quantity;
        }
    }
    for line in &parcel.order_lines {
        let wanted = asked.get(line.id.as_str()).copied().unwrap_or(0);
        if wanted > line.quantity {
            return Err(SplitError::TooMany {
                line_id: line.id.clone(),
                asked: wanted,
                available: line.quantity,
            });
        }
    }

    let total_units = parcel.units().max(1) as f64;
    let share = |units: i64| parcel.weight * units as f64 / total_units;
    let parts: Vec<Parcel> = plan
        .iter()
        .map(|takes| {
            let mut lines: Vec<ParcelOrderLine> = Vec::new();
            for t in takes {
                if let Some(existing) = lines.iter_mut().find(|l| l.id == t.line_id) {
                    existing.quantity += t.quantity;
                } else if let Some(source) = parcel.order_lines.iter().find(|l| l.id == t.line_id) {
                    lines.push(ParcelOrderLine {
                        quantity: t.quantity,
                        ..source.clone()
                    });
                }
            }
            let units = lines.iter().map(|l| l.quantity).sum();
            for line in &mut lines {
                // The whole line moves under its id; a share of it becomes a new line.
                let whole = parcel
                    .order_lines
                    .iter()
                    .any(|l| l.id == line.id && l.quantity == line.quantity);
                if !whole {
                    line.id = ids::new(ids::ORDER_LINE);
                }
            }
            Parcel {
                id: ids::new(ids::PARCEL),
                weight: share(units),
                weight_unit: parcel.weight_unit.clone(),
                dimensions: None,
                order_lines: lines,
                tracking_number: None,
            }
        })
        .collect();

    let left: Vec<ParcelOrderLine> = parcel
        .order_lines
        .iter()
        .filter_map(|l| {
            let quantity = l.quantity - asked.get(l.id.as_str()).copied().unwrap_or(0);
            (quantity > 0).then(|| ParcelOrderLine {
                quantity,
                ..l.clone()
            })
        })
        .collect();
    let remaining = (!left.is_empty()).then(|| {
        let moved: f64 = parts.iter().map(|p| p.weight).sum();
        Parcel {
            weight: (parcel.weight - moved).max(0.0),
            order_lines: left,
            tracking_number: None,
            ..parcel.clone()
        }
    });
    Ok(Taken { remaining, parts })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn line(id: &str, sku: &str, quantity: i64) -> ParcelOrderLine {
        ParcelOrderLine {
            id: id.into(),
            sku: sku.into(),
            quantity,
            description: None,
            unit_price: None,
            currency: None,
            vat_percent: None,
            location: None,
            country_of_origin: None,
            tarrif_number: None,
        }
    }

    fn parcel(weight: f64, lines: Vec<ParcelOrderLine>) -> Parcel {
        Parcel {
            id: "prc_1".into(),
            weight,
            weight_unit: "kg".into(),
            dimensions: None,
            order_lines: lines,
            tracking_number: None,
        }
    }

    fn takes(list: &[(&str, i64)]) -> Vec<Take> {
        list.iter()
            .map(|(id, q)| Take {
                line_id: id.to_string(),
                quantity: *q,
            })
            .collect()
    }

    #[test]
    fn a_line_of_five_may_go_two_and_three_with_weight_by_units() {
        let p = parcel(7.0, vec![line("a", "A", 5), line("b", "B", 2)]);
        let taken = take(&p, &[takes(&[("a", 2)]), takes(&[("a", 3), ("b", 1)])])
            .unwrap_or_else(|e| panic!("{e:?}"));
        let weights: Vec<f64> = taken.parts.iter().map(|p| p.weight).collect();
        assert_eq!(weights, [2.0, 4.0]);
        let rest = taken.remaining.unwrap_or_else(|| panic!("B remains"));
        assert_eq!(
            (rest.id.as_str(), rest.weight, rest.order_lines.len()),
            ("prc_1", 1.0, 1)
        );
        assert_eq!(
            (
                rest.order_lines[0].id.as_str(),
                rest.order_lines[0].quantity
            ),
            ("b", 1)
        );
    }

    #[test]
    fn whole_lines_keep_their_id_and_shares_get_new_ones() {
        let p = parcel(3.0, vec![line("a", "A", 2), line("b", "B", 1)]);
        let taken = take(&p, &[takes(&[("b", 1), ("a", 1)])]).unwrap_or_else(|e| panic!("{e:?}"));
        let ids: Vec<&str> = taken.parts[0]
            .order_lines
            .iter()
            .map(|l| l.id.as_str())
            .collect();
        assert_eq!(ids[0], "b");
        assert!(ids[1].starts_with("oln_"));
    }

    #[test]
    fn taking_everything_leaves_nothing() {
        let p = parcel(3.0, vec![line("a", "A", 2)]);
        let taken = take(&p, &[takes(&[("a", 2)])]).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(taken.remaining, None);
        assert_eq!(taken.parts[0].weight, 3.0);
    }

    #[test]
    fn invalid_plans_are_refused() {
        let p = parcel(7.0, vec![line("a", "A", 5), line("b", "B", 2)]);
        assert_eq!(
            take(&p, &[takes(&[("a", 6)])]),
            Err(SplitError::TooMany {
                line_id: "a".into(),
                asked: 6,
                available: 5
            })
        );
        assert_eq!(
            take(&p, &[takes(&[("a", 3)]), takes(&[("a", 3)])]),
            Err(SplitError::TooMany {
                line_id: "a".into(),
                asked: 6,
                available: 5
            })
        );
        assert_eq!(
            take(&p, &[takes(&[("x", 1)])]),
            Err(SplitError::UnknownLine {
                part: 0,
                line_id: "x".into()
            })
        );
        assert_eq!(
            take(&p, &[takes(&[("a", 0)])]),
            Err(SplitError::BadQuantity {
                part: 0,
                line_id: "a".into()
            })
        );
        assert_eq!(take(&p, &[vec![]]), Err(SplitError::EmptyPart { part: 0 }));
    }

    fn arb_parcel() -> impl Strategy<Value = Parcel> {
        (0.1f64..50.0, prop::collection::vec(1i64..10, 1..5)).prop_map(|(weight, quantities)| {
            let lines = quantities
                .iter()
                .enumerate()
                .map(|(i, q)| line(&format!("l{i}"), &format!("SKU{}", i % 3), *q))
                .collect();
            parcel(weight, lines)
        })
    }

    fn arb_plan() -> impl Strategy<Value = Vec<Vec<(usize, i64)>>> {
        prop::collection::vec(prop::collection::vec((0usize..6, -1i64..8), 0..4), 1..4)
    }

    fn units_by_sku(parcels: &[&Parcel]) -> HashMap<String, i64> {
        let mut units = HashMap::new();
        for p in parcels {
            for l in &p.order_lines {
                *units.entry(l.sku.clone()).or_default() += l.quantity;
            }
        }
        units
    }

    proptest! {
        /// Units and weight are conserved by every valid plan; an invalid plan is refused and the
        /// parcel stays as it was.
        #[test]
        fn batch_splits_conserve_units_and_weight(p in arb_parcel(), plan in arb_plan()) {
            let before = p.clone();
            let plan: Vec<Vec<Take>> = plan
                .iter()
                .map(|part| part.iter().map(|(i, q)| Take { line_id: format!("l{i}"), quantity: *q }).collect())
                .collect();
            let mut asked: HashMap<String, i64> = HashMap::new();
            let mut valid = true;
            for part in &plan {
                valid &= !part.is_empty();
                for t in part {
                    let known = p.order_lines.iter().any(|l| l.id == t.line_id);
                    valid &= known && t.quantity >= 1;
                    *asked.entry(t.line_id.clone()).or_default() += t.quantity;
                }
            }
            valid &= p.order_lines.iter().all(|l| asked.get(&l.id).copied().unwrap_or(0) <= l.quantity);

            let result = take(&p, &plan);
            prop_assert_eq!(&p, &before);
            match result {
                Ok(taken) => {
                    prop_assert!(valid, "accepted an invalid plan");
                    let mut all: Vec<&Parcel> = taken.parts.iter().collect();
                    all.extend(taken.remaining.as_ref());
                    prop_assert_eq!(units_by_sku(&all), units_by_sku(&[&p]));
                    let weight: f64 = all.iter().map(|q| q.weight).sum();
                    prop_assert!((weight - p.weight).abs() < 1e-9 * p.weight.max(1.0), "{} vs {}", weight, p.weight);
                    prop_assert!(taken.parts.iter().all(|q| q.weight > 0.0 && q.units() > 0));
                }
                Err(_) => prop_assert!(!valid, "refused a valid plan"),
            }
        }
    }
}
