//! One delivery: the body of DESIGN §9 (`{id, type, createdAt, orgId, data}`), signed with the
//! webhook's secrets, sent, and the attempt it makes for the log.

use crate::{
    model::{ids, webhook::Webhook, webhook::WebhookDelivery},
    outbound::sender::{Outcome, Request},
    service::{
        Ctx,
        webhooks::{signature, signing_secrets},
    },
};

/// The type of the events `POST .../webhooks/{id}/test` sends.
pub const TEST_EVENT: &str = "webhook.test";

/// An event as it is delivered.
pub struct Message<'a> {
    pub id: &'a str,
    pub kind: &'a str,
    pub created_at: &'a str,
    pub org_id: &'a str,
    pub data: &'a serde_json::Value,
}

pub fn body(message: &Message) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "id": message.id,
        "type": message.kind,
        "createdAt": message.created_at,
        "orgId": message.org_id,
        "data": message.data,
    }))
    .unwrap_or_default()
}

/// Signs and sends `message` to `webhook` (its secrets opened).
pub async fn send(ctx: &Ctx, webhook: &Webhook, message: &Message<'_>) -> Outcome {
    let body = body(message);
    let now = ctx.clock.now();
    let timestamp = now.unix_timestamp();
    let signature = signature::header(&signing_secrets(webhook, now), message.id, timestamp, &body);
    ctx.sender
        .send(Request {
            url: &webhook.url,
            id: message.id,
            timestamp,
            signature: &signature,
            body,
        })
        .await
}

/// The log entry of an attempt.
pub fn attempt(
    webhook_id: &str,
    message: &Message,
    number: u32,
    outcome: &Outcome,
    at: String,
) -> WebhookDelivery {
    WebhookDelivery {
        id: ids::new(ids::ATTEMPT),
        webhook_id: webhook_id.to_string(),
        event_id: message.id.to_string(),
        event_type: message.kind.to_string(),
        attempt: number,
        response_status: outcome.status,
        duration_ms: outcome.duration_ms,
        success: outcome.succeeded(),
        error: outcome.error.clone(),
        created_at: at,
    }
}
