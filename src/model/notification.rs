//! Which e-mails an organization's receivers get, and in which words: one setting
//! per event, each off until turned on, with optional minijinja templates replacing the
//! built-in subject and text.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::model::validate::Violations;

/// The events a receiver may be written to about, as the settings name them.
pub const EVENTS: [&str; 4] = ["booked", "outForDelivery", "delivered", "exception"];

/// The longest subject and text template.
pub const MAX_SUBJECT: usize = 500;
pub const MAX_TEXT: usize = 20_000;

/// One event's e-mail.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct NotificationSetting {
    /// Whether receivers get this e-mail (off unless turned on; a rule's emailNotification turns
    /// it on for the shipments it applies to).
    #[oai(default)]
    pub enabled: bool,
    /// A minijinja template for the subject; null for the built-in one in the receiver's
    /// language. It is given shipment, organization, trackingUrl and language.
    pub subject: Option<String>,
    /// A minijinja template for the plain text; null for the built-in one.
    pub text: Option<String>,
}

/// The e-mails of the four events.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct NotificationSettings {
    #[oai(default)]
    pub booked: NotificationSetting,
    #[oai(default)]
    pub out_for_delivery: NotificationSetting,
    #[oai(default)]
    pub delivered: NotificationSetting,
    #[oai(default)]
    pub exception: NotificationSetting,
}

impl NotificationSettings {
    /// The setting of `event` (one of `EVENTS`).
    pub fn of(&self, event: &str) -> Option<&NotificationSetting> {
        match event {
            "booked" => Some(&self.booked),
            "outForDelivery" => Some(&self.out_for_delivery),
            "delivered" => Some(&self.delivered),
            "exception" => Some(&self.exception),
            _ => None,
        }
    }

    /// Every event with its setting, in `EVENTS` order.
    pub fn each(&self) -> [(&'static str, &NotificationSetting); 4] {
        [
            (EVENTS[0], &self.booked),
            (EVENTS[1], &self.out_for_delivery),
            (EVENTS[2], &self.delivered),
            (EVENTS[3], &self.exception),
        ]
    }

    /// Lengths; the templates' syntax is checked by the service, which compiles them.
    pub fn check(&self, errors: &mut Violations) {
        for (event, setting) in self.each() {
            if let Some(subject) = &setting.subject {
                errors.length(format!("{event}.subject"), subject, 1, MAX_SUBJECT);
            }
            if let Some(text) = &setting.text {
                errors.length(format!("{event}.text"), text, 1, MAX_TEXT);
            }
        }
    }
}

/// What to render: one event's e-mail in a language, with the templates given (else the stored
/// ones, else the built-in ones), for a shipment of the organization or an example one.
#[derive(Clone, Debug, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct NotificationPreviewIn {
    /// booked, outForDelivery, delivered or exception.
    pub event: String,
    /// en, da, sv, nb, fi or de; default the shipment's, else en.
    pub language: Option<String>,
    /// A shipment of the organization to render with; default an example shipment.
    pub shipment_id: Option<String>,
    /// A subject template to try instead of the stored one.
    pub subject: Option<String>,
    /// A text template to try instead of the stored one.
    pub text: Option<String>,
}

/// An e-mail as it would be sent.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct NotificationPreview {
    pub event: String,
    pub language: String,
    pub subject: String,
    pub text: String,
}

/// The events as the notification log names them (`EVENTS` in snake case).
pub const LOG_EVENTS: [&str; 4] = ["booked", "out_for_delivery", "delivered", "exception"];

/// The log's name of a settings event (`outForDelivery` → `out_for_delivery`).
pub fn log_event(event: &str) -> Option<&'static str> {
    EVENTS
        .iter()
        .position(|e| *e == event)
        .map(|at| LOG_EVENTS[at])
}

/// The settings' name of a log event (`out_for_delivery` → `outForDelivery`).
pub fn settings_event(event: &str) -> Option<&'static str> {
    LOG_EVENTS
        .iter()
        .position(|e| *e == event)
        .map(|at| EVENTS[at])
}

/// One e-mail to a receiver about a shipment: queued with the change it tells about, then sent
/// (or given up on) by the mail worker.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Notification {
    pub id: String,
    pub shipment_id: String,
    /// booked, out_for_delivery, delivered or exception.
    pub event: String,
    /// The receiver's address.
    pub to: String,
    /// en, da, sv, nb, fi or de.
    pub language: String,
    /// queued (waiting for its first or next attempt), sent or failed (given up on: the mail
    /// server refused it for good, every retry was spent, the receiver unsubscribed, or no mail
    /// server is configured).
    pub status: String,
    /// How many times sending was tried.
    pub attempts: u32,
    /// Why the last attempt did not send it.
    pub error: Option<String>,
    pub created_at: String,
    pub sent_at: Option<String>,
}

crate::page_of!(NotificationPage, Notification);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_and_settings_names_map_both_ways() {
        for (settings, log) in EVENTS.iter().zip(LOG_EVENTS) {
            assert_eq!(log_event(settings), Some(log));
            assert_eq!(settings_event(log), Some(*settings));
        }
        assert_eq!(log_event("out_for_delivery"), None);
    }
}
