//! Webhooks (SPEC §2 Webhook, §6, DESIGN §9): endpoints that receive the organization's events,
//! and the log of delivery attempts.

use poem_openapi::Object;
use serde::Deserialize;

use crate::model::{event::EventKind, validate::Violations};

/// A webhook endpoint. Its `secret` signs every delivery (Standard Webhooks).
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Webhook {
    pub id: String,
    #[oai(skip)]
    pub org_id: String,
    pub name: String,
    pub url: String,
    /// `whsec_` + base64 of 24 random bytes; the key is those bytes.
    pub secret: String,
    /// The secret before the last rotation, still signing until `previous_secret_expires_at`.
    #[oai(skip)]
    pub previous_secret: Option<String>,
    #[oai(skip)]
    pub previous_secret_expires_at: Option<String>,
    pub events: Vec<EventKind>,
    pub is_active: bool,
    pub created_at: String,
    pub updated_at: String,
}

fn yes() -> bool {
    true
}

/// A webhook to create, or the full replacement of one.
#[derive(Clone, Debug, PartialEq, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct WebhookIn {
    #[oai(validator(min_length = 1, max_length = 100))]
    pub name: String,
    /// An absolute http or https URL.
    pub url: String,
    /// At least one of the event kinds.
    #[oai(validator(min_items = 1))]
    pub events: Vec<EventKind>,
    /// Default true.
    #[serde(default = "yes")]
    #[oai(default = "yes")]
    pub is_active: bool,
}

/// Fields of a webhook to change; absent fields stay as they are.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Object)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct WebhookPatchIn {
    #[oai(validator(min_length = 1, max_length = 100))]
    pub name: Option<String>,
    pub url: Option<String>,
    #[oai(validator(min_items = 1))]
    pub events: Option<Vec<EventKind>>,
    pub is_active: Option<bool>,
}

impl WebhookIn {
    /// Shape rules (the URL's target is checked by the service).
    pub fn validate(&self, errors: &mut Violations) {
        errors.length("name", &self.name, 1, 100);
        errors.length("url", &self.url, 1, 2000);
        if self.events.is_empty() {
            errors.add("events", "must contain at least 1 item");
        }
    }

    /// The webhook with `patch` applied.
    pub fn patched(mut self, patch: WebhookPatchIn) -> WebhookIn {
        if let Some(name) = patch.name {
            self.name = name;
        }
        if let Some(url) = patch.url {
            self.url = url;
        }
        if let Some(events) = patch.events {
            self.events = events;
        }
        if let Some(active) = patch.is_active {
            self.is_active = active;
        }
        self
    }
}

impl Webhook {
    /// The writable fields, as a create would send them.
    pub fn fields(&self) -> WebhookIn {
        WebhookIn {
            name: self.name.clone(),
            url: self.url.clone(),
            events: self.events.clone(),
            is_active: self.is_active,
        }
    }

    pub fn wants(&self, kind: EventKind) -> bool {
        self.is_active && self.events.contains(&kind)
    }
}

/// One attempt to deliver an event to a webhook.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct WebhookDelivery {
    pub id: String,
    pub webhook_id: String,
    pub event_id: String,
    /// One of the event kinds, or `webhook.test` for a test delivery.
    pub event_type: String,
    /// 1 for the first attempt of an event, 2 for its first retry, …
    pub attempt: u32,
    /// The HTTP status the endpoint answered, when it answered.
    pub response_status: Option<u16>,
    pub duration_ms: u32,
    /// Whether the endpoint answered 2xx.
    pub success: bool,
    /// Why the attempt failed (connection error, timeout, refused target, non-2xx answer).
    pub error: Option<String>,
    pub created_at: String,
}

/// What a replay queued: the event of a logged attempt, to be sent to the webhook again.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct WebhookReplay {
    /// The event sent again, with the same id (and `webhook-id` header) as before, so that a
    /// receiver that has it already can tell.
    pub event_id: String,
    pub event_type: String,
    pub webhook_id: String,
    /// The logged attempt the replay was asked for.
    pub delivery_id: String,
    /// `pending`: the delivery is queued (or already was); its attempts appear in the delivery
    /// log as they are made.
    pub state: String,
    /// When the delivery is due: now, or, when it was pending already, when it was due then.
    pub next_attempt_at: String,
}

crate::page_of!(WebhookPage, Webhook);
crate::page_of!(DeliveryPage, WebhookDelivery);
