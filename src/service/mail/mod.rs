//! E-mail to receivers. A change of a shipment that a receiver is told about —
//! booked, out for delivery, delivered, exception — queues one message in the same transaction
//! (`queue_for`, called by the one write path of shipments), when the organization turned that
//! e-mail on or the shipment's rule asks for e-mail, and the receiver has an address. The worker
//! sends it with retries; the row is the shipment's notification log. Every message carries an
//! unsubscribe link whose page stops the organization's e-mail to that address.

use crate::{
    error::{Error, Result},
    model::{
        ids, locale,
        notification::{NotificationPage, settings_event},
        shipment::ShipmentRecord,
        status::TrackingStatus,
    },
    service::{Actor, Ctx, PageParams, operations as ops},
    store::{
        self, Tx,
        notifications::{Queued, Stored},
    },
};

mod compose;
mod transport;
pub mod worker;

pub use transport::Mailer;

/// The prefix of notification ids.
pub const ID_PREFIX: &str = "ntf";

/// What a change of a shipment tells its receiver, as the log names it.
fn event_of(before: &ShipmentRecord, after: &ShipmentRecord) -> Option<&'static str> {
    // Booking gives the shipment its tracking page: that is the moment it is booked.
    if before.body.tracking_url.is_none() && after.body.tracking_url.is_some() {
        return Some("booked");
    }
    let status = |s: &ShipmentRecord| s.body.tracking.as_ref().and_then(|t| t.status);
    if status(before) == status(after) {
        return None;
    }
    match status(after)? {
        TrackingStatus::OutForDelivery => Some("out_for_delivery"),
        TrackingStatus::Delivered => Some("delivered"),
        TrackingStatus::Exception => Some("exception"),
        _ => None,
    }
}

/// Queues the e-mail a change of an outbound shipment tells its receiver about, inside the
/// change's unit of work.
pub(crate) fn queue_for(tx: &Tx, before: &ShipmentRecord, after: &ShipmentRecord) -> Result<()> {
    let Some(event) = event_of(before, after) else {
        return Ok(());
    };
    if after.kind != "outbound" {
        return Ok(());
    }
    let Some(receiver) = after.body.parties.iter().find(|p| p.kind == "receiver") else {
        return Ok(());
    };
    let Some(to) = receiver.email.as_deref().filter(|e| !e.trim().is_empty()) else {
        return Ok(());
    };
    let settings = store::notification_settings::get(tx, &after.org_id)?;
    let turned_on = settings
        .of(settings_event(event).unwrap_or_default())
        .is_some_and(|s| s.enabled);
    if !turned_on && !rule_asks_for_mail(tx, after)? {
        return Ok(());
    }
    let language = locale::choose(
        after.body.language.as_deref(),
        None,
        Some(&receiver.country_code),
    );
    store::notifications::queue(
        tx,
        &Queued {
            id: ids::new(ID_PREFIX),
            org_id: after.org_id.clone(),
            shipment_id: after.id.clone(),
            event: event.to_string(),
            to: to.trim().to_string(),
            language: language.to_string(),
            attach_label: false,
            created_at: after.updated_at.clone(),
        },
    )
}

/// Whether the shipment's rule has `emailNotification` on.
fn rule_asks_for_mail(tx: &Tx, shipment: &ShipmentRecord) -> Result<bool> {
    let Some(rule_id) = &shipment.shipping_rule_id else {
        return Ok(false);
    };
    Ok(store::shipping_rules::get(tx, &shipment.org_id, rule_id)?
        .is_some_and(|rule| rule.rule.fields.email_notification))
}

/// Queues the e-mail with a return's label to the customer who booked it (the returns portal),
/// whatever the organization's settings: they asked for it.
pub(crate) fn queue_return_label(
    tx: &Tx,
    shipment: &ShipmentRecord,
    to: &str,
    language: &str,
) -> Result<()> {
    store::notifications::queue(
        tx,
        &Queued {
            id: ids::new(ID_PREFIX),
            org_id: shipment.org_id.clone(),
            shipment_id: shipment.id.clone(),
            event: "booked".into(),
            to: to.to_string(),
            language: language.to_string(),
            attach_label: true,
            created_at: shipment.updated_at.clone(),
        },
    )
}

/// The e-mails about a shipment, newest first.
pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    shipment_id: &str,
    page: PageParams,
) -> Result<NotificationPage> {
    actor.authorize(org_id, &ops::LIST_SHIPMENT_NOTIFICATIONS)?;
    let page = crate::service::page_query(&page)?;
    let (org_id, shipment_id) = (org_id.to_string(), shipment_id.to_string());
    ctx.db
        .read(move |db| {
            store::shipments::get(db, &org_id, &shipment_id)?.ok_or(Error::NotFound)?;
            store::notifications::of_shipment(db, &org_id, &shipment_id, page)
        })
        .await
        .map(Into::into)
}

/// The token of a message's unsubscribe link: its id and a tag only this server can make.
pub(crate) fn unsubscribe_token(ctx: &Ctx, notification_id: &str) -> String {
    use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
    let tag = ctx.vault.tag(UNSUBSCRIBE, notification_id.as_bytes());
    format!("{notification_id}.{}", URL_SAFE_NO_PAD.encode(&tag[..16]))
}

const UNSUBSCRIBE: &str = "unsubscribe";

/// The message an unsubscribe token names, when the token is one this server made.
fn message_of(ctx: &Ctx, token: &str) -> Result<Stored> {
    use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
    use subtle::ConstantTimeEq;
    let (id, tag) = token.split_once('.').ok_or(Error::NotFound)?;
    let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| Error::NotFound)?;
    let expected = ctx.vault.tag(UNSUBSCRIBE, id.as_bytes());
    if tag.len() != 16 || !bool::from(expected[..16].ct_eq(&tag)) {
        return Err(Error::NotFound);
    }
    let id = id.to_string();
    ctx.db
        .point(move |db| store::notifications::get(db, &id))?
        .ok_or(Error::NotFound)
}

/// What the unsubscribe page shows.
#[derive(Debug, PartialEq)]
pub struct Unsubscribe {
    /// The organization's name as receivers see it.
    pub shop: String,
    /// The brand colour, `#rrggbb`.
    pub color: String,
    pub address: String,
    pub language: String,
    /// Whether the address has unsubscribed already.
    pub done: bool,
}

/// The unsubscribe page of `token`; 404 for a token this server did not make.
pub async fn unsubscribe_page(ctx: &Ctx, token: &str) -> Result<Unsubscribe> {
    page_of(ctx, message_of(ctx, token)?)
}

/// What the page shows for `message`'s receiver.
fn page_of(ctx: &Ctx, message: Stored) -> Result<Unsubscribe> {
    let org_id = message.org_id.clone();
    let address = message.notification.to.clone();
    let (look, done) = ctx.db.point(move |db| {
        let look = store::branding::look(db, &org_id)?.ok_or(Error::NotFound)?;
        let done = store::notifications::suppressed(db, &org_id, &address)?;
        Ok((look, done))
    })?;
    Ok(Unsubscribe {
        shop: look.display_name.unwrap_or(look.org_name),
        color: look
            .color
            .unwrap_or_else(|| crate::model::branding::DEFAULT_COLOR.into()),
        address: message.notification.to,
        language: message.notification.language,
        done,
    })
}

/// Stops the organization's e-mail to the address of `token`'s message (the unsubscribe
/// page's button, or a mail client's one-click POST).
pub async fn unsubscribe(ctx: &Ctx, token: &str) -> Result<Unsubscribe> {
    let message = message_of(ctx, token)?;
    let (org_id, address, now) = (
        message.org_id.clone(),
        message.notification.to.clone(),
        ctx.now(),
    );
    ctx.db
        .write(move |tx| store::notifications::suppress(tx, &org_id, &address, &now))
        .await?;
    tracing::info!(
        org_id = message.org_id,
        notification_id = message.notification.id,
        "a receiver unsubscribed"
    );
    page_of(ctx, message)
}
