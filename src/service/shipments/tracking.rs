//! Tracking events (DESIGN §7): carriers and tests record them; the newest sets the status.

use crate::model::shipment::TrackingEventIn;

use crate::{
    error::Result,
    model::{
        shipment::{Shipment, Tracking, TrackingEvent},
        time,
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input, operations as ops,
        shipments::{Change, require, save, view_of},
    },
};

pub async fn add_tracking_event(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<TrackingEventIn>,
) -> Result<Shipment> {
    let grant = actor.authorize(org_id, &ops::ADD_TRACKING_EVENT)?.on(id);
    let new = input.get()?;
    let mut errors = Violations::new();
    let occurred_at = match &new.occurred_at {
        None => ctx.now(),
        Some(text) => time::parse(text).map(time::format).unwrap_or_else(|| {
            errors.add(
                "occurredAt",
                "must be an RFC 3339 timestamp such as 2026-11-22T10:15:30Z",
            );
            String::new()
        }),
    };
    errors.finish()?;
    let event = TrackingEvent {
        status: new.status,
        description: new.description,
        location: new.location,
        occurred_at,
    };
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.commit(grant, move |tx| {
        let before = require(tx, &org_id, &id)?;
        let mut shipment = before.clone();
        let tracking = shipment.body.tracking.get_or_insert_with(Tracking::default);
        let at = tracking
            .events
            .iter()
            .position(|e| e.occurred_at < event.occurred_at)
            .unwrap_or(tracking.events.len());
        tracking.events.insert(at, event);
        tracking.status = tracking.events.first().map(|e| e.status);
        shipment.updated_at = now;
        save(tx, &shipment, Change::Updated(&before), &[])?;
        view_of(tx, shipment)
    })
    .await
}
