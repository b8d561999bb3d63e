//! Replaying a delivery: the event of a logged attempt goes to its webhook again, with the same
//! event id (receivers de-duplicate by it, as with Stripe's "resend"), through the delivery
//! queue, so that it is signed, retried and logged as every delivery is. A delivery of that event
//! to that webhook that is still pending is left as it is: replaying twice queues it once.

use crate::{
    error::{Error, Result},
    model::webhook::WebhookReplay,
    service::{Actor, Ctx, operations as ops},
    store,
};

use super::{delivery::TEST_EVENT, require};

pub async fn replay(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    webhook_id: &str,
    delivery_id: &str,
) -> Result<WebhookReplay> {
    let grant = actor
        .authorize(org_id, &ops::REPLAY_WEBHOOK_DELIVERY)?
        .on(webhook_id);
    let retention_days = ctx.config.webhooks.retention_days;
    let (org_id, webhook_id, delivery_id, now) = (
        org_id.to_string(),
        webhook_id.to_string(),
        delivery_id.to_string(),
        ctx.now(),
    );
    ctx.commit(grant, move |tx| {
        let webhook = require(tx, &org_id, &webhook_id)?;
        let attempt = store::deliveries::attempt(tx, &org_id, &webhook_id, &delivery_id)?
            .ok_or(Error::NotFound)?;
        if attempt.event_type == TEST_EVENT {
            return Err(Error::InvalidState(
                "a test delivery is sent once and not kept as an event; send a new test instead"
                    .into(),
            ));
        }
        if !webhook.is_active {
            return Err(Error::InvalidState(
                "the webhook is inactive; make it active to have the event sent again".into(),
            ));
        }
        let event = store::deliveries::event(tx, &org_id, &attempt.event_id)?.ok_or_else(|| {
            Error::InvalidState(format!(
                "event {} no longer exists: delivered events are kept for {retention_days} days",
                attempt.event_id
            ))
        })?;
        let replayed = store::deliveries::replay(tx, &org_id, &event.id, &webhook_id, &now)?;
        if replayed.queued {
            tx.wake_deliveries(&webhook_id);
        }
        Ok(WebhookReplay {
            event_id: event.id,
            event_type: event.kind.as_str().to_string(),
            webhook_id,
            delivery_id,
            state: "pending".into(),
            next_attempt_at: replayed.next_attempt_at,
        })
    })
    .await
}
