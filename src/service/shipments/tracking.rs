//! Tracking events (DESIGN §7): carriers and tests record them; the newest sets the status.

use crate::{
    error::Result,
    model::{
        scope::{Resource, Scope},
        shipment::{TRACKING_STATUSES, Tracking, TrackingEvent},
        time,
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input,
        shipments::{ShipmentView, Write, require, save, view},
    },
};

const WRITE: Scope = Scope::write(Resource::Shipments);

pub struct NewTrackingEvent {
    pub status: String,
    pub description: Option<String>,
    pub location: Option<String>,
    /// RFC 3339; now when absent.
    pub occurred_at: Option<String>,
}

pub async fn add_tracking_event(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<NewTrackingEvent>,
) -> Result<ShipmentView> {
    actor.authorize(org_id, WRITE)?;
    let new = input.get()?;
    let mut errors = Violations::new();
    errors.one_of("status", &new.status, &TRACKING_STATUSES);
    let occurred_at = match &new.occurred_at {
        None => Some(ctx.now()),
        Some(text) => {
            let parsed = time::parse(text).map(time::format);
            if parsed.is_none() {
                errors.add(
                    "occurredAt",
                    "must be an RFC 3339 timestamp such as 2026-11-22T10:15:30Z",
                );
            }
            parsed
        }
    };
    errors.finish()?;
    let event = TrackingEvent {
        status: new.status,
        description: new.description,
        location: new.location,
        occurred_at: occurred_at.unwrap_or_default(),
    };
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let mut shipment = require(tx, &org_id, &id)?;
            let tracking = shipment.body.tracking.get_or_insert_with(Tracking::default);
            let at = tracking
                .events
                .iter()
                .position(|e| e.occurred_at < event.occurred_at)
                .unwrap_or(tracking.events.len());
            tracking.events.insert(at, event);
            tracking.status = tracking.events.first().map(|e| e.status.clone());
            shipment.updated_at = now;
            save(tx, &shipment, Write::Update)?;
            view(tx, &org_id, &id)
        })
        .await
}
