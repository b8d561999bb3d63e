//! Tracking from the carriers (DESIGN §7): on a schedule (`carriers.tracking_interval_seconds`)
//! the events of shipments on their way are fetched from carriers that report them and merged
//! into each shipment's tracking; a shipment whose tracking changed emits `tracking.updated`.
//! A carrier that fails is logged and asked again next round; nothing else is touched.

use std::time::Duration;

use tokio::sync::watch;

use crate::{
    carriers::{self, CarrierEvent},
    error::Result,
    model::shipment::{Tracking, TrackingEvent},
    service::{
        Ctx,
        shipments::{Change, booking::carrier_of, require, save},
    },
    store,
};

/// Shipments asked about per round.
const BATCH: u32 = 500;

/// Runs until `stop` turns true.
pub async fn run(ctx: Ctx, mut stop: watch::Receiver<bool>) {
    let every = ctx.config.carriers.tracking_interval_seconds;
    if every == 0 {
        return;
    }
    while !*stop.borrow() {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(every)) => {}
            _ = stop.changed() => return,
        }
        match refresh(&ctx).await {
            Ok(changed) if changed > 0 => {
                tracing::info!(changed, "tracking refreshed from carriers")
            }
            Ok(_) => {}
            Err(err) => tracing::error!(error = %err, "cannot refresh tracking from carriers"),
        }
    }
}

/// One round: asks the carriers about every shipment on its way; returns how many changed.
pub async fn refresh(ctx: &Ctx) -> Result<usize> {
    let registry = carriers::registry();
    let slugs: Vec<&'static str> = registry
        .iter()
        .filter(|a| a.tracks())
        .map(|a| a.info().slug)
        .collect();
    let due = ctx
        .db
        .read(move |db| store::shipments::in_transit(db, &slugs, BATCH))
        .await?;
    let mut changed = 0;
    for (org_id, shipment_id, _, number) in due {
        match refresh_one(ctx, &org_id, &shipment_id, &number).await {
            Ok(true) => changed += 1,
            Ok(false) => {}
            Err(err) => {
                tracing::warn!(error = %err, shipment_id, "cannot fetch tracking from the carrier");
            }
        }
    }
    Ok(changed)
}

async fn refresh_one(ctx: &Ctx, org_id: &str, shipment_id: &str, number: &str) -> Result<bool> {
    let carrier = ctx.db.point(|db| {
        let shipment = require(db, org_id, shipment_id)?;
        carrier_of(ctx, db, &shipment)
    })?;
    let Some(adapter) = carriers::find(&carrier.fields.carrier_slug) else {
        return Ok(false);
    };
    let events = adapter.track(&ctx.carriers, &carrier, number).await?;
    if events.is_empty() {
        return Ok(false);
    }
    let (org_id, shipment_id, now) = (org_id.to_string(), shipment_id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let before = require(tx, &org_id, &shipment_id)?;
            let mut shipment = before.clone();
            if !merge(
                shipment.body.tracking.get_or_insert_with(Tracking::default),
                events,
            ) {
                return Ok(false);
            }
            shipment.updated_at = now;
            save(tx, &shipment, Change::Updated(&before), &[])?;
            Ok(true)
        })
        .await
}

/// Adds the events the tracking does not hold yet (newest first, as it is kept) and sets its
/// status from the newest; returns whether anything changed.
pub(crate) fn merge(tracking: &mut Tracking, events: Vec<CarrierEvent>) -> bool {
    let mut changed = false;
    for event in events {
        let event = TrackingEvent {
            status: event.status,
            description: event.description,
            location: event.location,
            occurred_at: event.occurred_at,
        };
        if tracking.events.contains(&event) {
            continue;
        }
        let at = tracking
            .events
            .iter()
            .position(|e| e.occurred_at < event.occurred_at)
            .unwrap_or(tracking.events.len());
        tracking.events.insert(at, event);
        changed = true;
    }
    if changed {
        tracking.status = tracking.events.first().map(|e| e.status);
    }
    changed
}
