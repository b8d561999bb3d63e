//! Plans and usage (DESIGN §10): the admission checks every create makes inside its unit of
//! work (the count and the insert are one transaction, so concurrent creates cannot pass a
//! limit together), and the usage report.

use crate::{
    config::Plan,
    error::{Error, Result},
    model::usage::{
        AddOn, Counter, Limit, LimitUsage, Limits, Period, ShipmentUsage, Usage, month_of,
    },
    service::{Actor, Ctx, operations as ops},
    store::{self, Reader, Tx},
};

/// Checks that the plan allows one more of `limit` (a resource counted by its live rows).
pub(crate) fn admit(tx: &Tx, org_id: &str, limit: Limit) -> Result<()> {
    let plan = tx.plan(org_id)?.plan;
    let allowed = plan.limit(limit);
    if allowed == 0 {
        return Ok(());
    }
    let used = store::usage::live(tx, org_id, limit)?;
    if used >= allowed {
        return Err(reached(limit, allowed));
    }
    Ok(())
}

/// Checks that the plan allows one more shipment in the month of `created_at` (beyond the
/// included ones only while overage is enabled) and counts it.
pub(crate) fn count_shipment(tx: &Tx, org_id: &str, created_at: &str) -> Result<()> {
    let period = month_of(created_at);
    let org = tx.plan(org_id)?;
    let included = org.plan.limit(Limit::Shipments);
    if included > 0 && !org.overage_enabled {
        let used = store::usage::get(tx, org_id, Counter::Shipments, period)?;
        if u64::try_from(used).unwrap_or(0) >= included {
            return Err(reached(Limit::Shipments, included));
        }
    }
    tx.add_usage(org_id, Counter::Shipments, period, 1)
}

fn reached(limit: Limit, allowed: u64) -> Error {
    Error::PlanLimitReached(match limit {
        Limit::Shipments => format!(
            "the plan includes {allowed} {}; enable overage or move to a larger plan",
            limit.words()
        ),
        _ => format!(
            "the plan allows {allowed} {}; remove one or move to a larger plan",
            limit.words()
        ),
    })
}

/// GET /orgs/{orgId}/billing/usage (SPEC row 4).
pub async fn usage(ctx: &Ctx, actor: &Actor, org_id: &str) -> Result<Usage> {
    actor.authorize(org_id, &ops::GET_BILLING_USAGE)?;
    let now = ctx.clock.now();
    let (org_id, month, plans) = (
        org_id.to_string(),
        crate::model::time::format(now),
        ctx.config.plans.clone(),
    );
    let counts = ctx
        .db
        .read(move |db| counts(db, &org_id, month_of(&month)))
        .await?;
    let plan = plans
        .get(&counts.plan)
        .or_else(|| plans.get("default"))
        .cloned()
        .unwrap_or_default();
    Ok(report(&plan, &counts, Period::of(now)))
}

/// What the report counts, read in one go.
struct Counts {
    plan: String,
    shipments: u64,
    live: [u64; 6],
}

const LIVE: [Limit; 6] = [
    Limit::TeamMembers,
    Limit::Carriers,
    Limit::OrderChannels,
    Limit::ShippingRules,
    Limit::SenderAddresses,
    Limit::ApiTokens,
];

fn counts(db: &Reader, org_id: &str, month: &str) -> Result<Counts> {
    let (plan, _) = store::orgs::plan_of(db, org_id)?.ok_or(Error::NotFound)?;
    let shipments = store::usage::get(db, org_id, Counter::Shipments, month)?;
    let mut live = [0; 6];
    for (slot, limit) in live.iter_mut().zip(LIVE) {
        *slot = store::usage::live(db, org_id, limit)?;
    }
    Ok(Counts {
        plan,
        shipments: u64::try_from(shipments).unwrap_or(0),
        live,
    })
}

fn report(plan: &Plan, counts: &Counts, current_period: Period) -> Usage {
    let included = plan.limit(Limit::Shipments);
    let overage = if included == 0 {
        0
    } else {
        counts.shipments.saturating_sub(included)
    };
    let of = |i: usize| LimitUsage {
        used: counts.live[i],
        limit: plan.limit(LIVE[i]),
    };
    Usage {
        current_period,
        shipments: ShipmentUsage {
            used: counts.shipments,
            included,
            overage,
            overage_charges: cents(overage as f64 * plan.overage_price),
        },
        limits: Limits {
            team_members: of(0),
            carriers: of(1),
            order_channels: of(2),
            shipping_rules: of(3),
            sender_addresses: of(4),
            api_tokens: of(5),
        },
        add_ons: plan
            .add_ons
            .iter()
            .map(|a| AddOn {
                kind: a.kind.clone(),
                quantity: a.quantity,
                unit_price: a.unit_price,
                total_price: cents(a.quantity as f64 * a.unit_price),
            })
            .collect(),
    }
}

/// An amount rounded to whole cents, so that 3 × 0.1 reads 0.3.
fn cents(amount: f64) -> f64 {
    (amount * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::AddOn as PlanAddOn;

    fn plan() -> Plan {
        Plan {
            carriers: 2,
            shipments: 3,
            overage_price: 1.5,
            add_ons: vec![PlanAddOn {
                kind: "extra_carrier".into(),
                quantity: 2,
                unit_price: 10.0,
            }],
            ..Plan::default()
        }
    }

    #[test]
    fn overage_is_what_passed_the_included_shipments_and_add_ons_raise_limits() {
        let counts = Counts {
            plan: "x".into(),
            shipments: 5,
            live: [1, 3, 0, 0, 0, 1],
        };
        let usage = report(
            &plan(),
            &counts,
            Period::of(time::OffsetDateTime::UNIX_EPOCH),
        );
        assert_eq!(
            usage.shipments,
            ShipmentUsage {
                used: 5,
                included: 3,
                overage: 2,
                overage_charges: 3.0
            }
        );
        assert_eq!(usage.limits.carriers, LimitUsage { used: 3, limit: 4 });
        assert_eq!(
            usage.limits.order_channels,
            LimitUsage { used: 0, limit: 0 }
        );
        assert_eq!(usage.add_ons.len(), 1);
        assert_eq!(usage.add_ons[0].total_price, 20.0);
        let unlimited = report(&Plan::default(), &counts, usage.current_period.clone());
        assert_eq!(
            (unlimited.shipments.included, unlimited.shipments.overage),
            (0, 0)
        );
    }

    #[test]
    fn overage_charges_are_whole_cents() {
        let counts = Counts {
            plan: "x".into(),
            shipments: 6,
            live: [0; 6],
        };
        let dime = Plan {
            overage_price: 0.1,
            ..plan()
        };
        let usage = report(&dime, &counts, Period::of(time::OffsetDateTime::UNIX_EPOCH));
        assert_eq!(usage.shipments.overage_charges, 0.3);
    }
}
