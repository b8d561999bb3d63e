//! The mail worker: takes due messages from `notifications`, at most `smtp.max_concurrency` at
//! once, writes each in its receiver's language with the organization's current templates and
//! branding, and hands it to the mail server. Sent is sent; a refusal for good (5xx) or a
//! receiver who unsubscribed fails it; anything else is tried again on the webhooks' schedule
//! (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, times `smtp.retry_scale`), then failed. A failing server never fails the change that queued
//! the message. Every state is in the database: a message claimed by a sender that died is due
//! again when its claim runs out, in this process or another.

use std::{sync::Arc, time::Duration};

use tokio::{
    sync::{Semaphore, watch},
    task::JoinSet,
};

use crate::{
    error::{Error, Result},
    model::{branding::DEFAULT_COLOR, locale, time},
    service::{
        Ctx,
        mail::{
            compose::{self, Letter},
            transport::NOT_CONFIGURED,
            unsubscribe_token,
        },
        notifications::{self as words, RETURN_LABEL},
        webhooks::schedule,
    },
    store::{
        self,
        notifications::{Outcome, Stored},
    },
};

/// How often the worker looks for due messages.
const POLL: Duration = Duration::from_millis(500);
/// How long a claimed message is reserved for its sender (longer than a send can take).
const LEASE_MARGIN: ::time::Duration = ::time::Duration::seconds(30);

/// Runs until `stop` turns true; then waits up to `grace` for messages in flight.
pub async fn run(ctx: Ctx, mut stop: watch::Receiver<bool>, grace: Duration) {
    let permits = Arc::new(Semaphore::new(
        usize::try_from(ctx.config.smtp.max_concurrency).unwrap_or(4),
    ));
    let mut tasks = JoinSet::new();
    while !*stop.borrow() {
        let room = u32::try_from(permits.available_permits()).unwrap_or(0);
        if room > 0 {
            match due(&ctx, room).await {
                Ok(ids) => {
                    for id in ids {
                        let Ok(permit) = permits.clone().try_acquire_owned() else {
                            break;
                        };
                        let ctx = ctx.clone();
                        tasks.spawn(async move {
                            if let Err(err) = attempt(&ctx, &id).await {
                                tracing::error!(error = %err, notification_id = id, "an e-mail could not be handled");
                            }
                            drop(permit);
                        });
                    }
                }
                Err(err) => tracing::error!(error = %err, "cannot read due e-mails"),
            }
        }
        while tasks.try_join_next().is_some() {}
        tokio::select! {
            () = tokio::time::sleep(POLL) => {}
            _ = stop.changed() => {}
        }
    }
    let drained =
        tokio::time::timeout(grace, async { while tasks.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        tasks.abort_all();
    }
}

async fn due(ctx: &Ctx, limit: u32) -> Result<Vec<String>> {
    let now = ctx.now();
    ctx.db
        .read(move |db| store::notifications::due(db, &now, limit))
        .await
}

/// Sends one due message and records how it went. It is claimed first, so that a stale list
/// (or another process) never sends it twice.
async fn attempt(ctx: &Ctx, id: &str) -> Result<()> {
    let lease =
        ::time::Duration::seconds(i64::try_from(ctx.config.smtp.timeout_seconds).unwrap_or(30))
            + LEASE_MARGIN;
    let (now, until) = (ctx.now(), time::format(ctx.clock.now() + lease));
    let claimed_id = id.to_string();
    let Some(message) = ctx
        .db
        .write(move |tx| store::notifications::claim(tx, &claimed_id, &now, &until))
        .await?
    else {
        return Ok(());
    };
    let number = message.notification.attempts + 1;
    let (outcome, error) = match letter(ctx, &message).await {
        Ok(None) => (
            Outcome::Failed,
            Some("the receiver unsubscribed".to_string()),
        ),
        Err(reason) => (Outcome::Failed, Some(reason)),
        Ok(Some(letter)) => {
            let words = locale::catalogue(&letter.language);
            match compose::build(letter, words) {
                Err(reason) => (Outcome::Failed, Some(reason)),
                Ok(mail) => match ctx.mailer.send(mail).await {
                    Ok(()) => (Outcome::Sent, None),
                    Err(failure) => {
                        let retry_at = (!failure.permanent)
                            .then(|| schedule::next_delay(number, ctx.config.smtp.retry_scale))
                            .flatten()
                            .and_then(|delay| ::time::Duration::try_from(delay).ok())
                            .map(|delay| time::format(ctx.clock.now() + delay));
                        let outcome = retry_at.map_or(Outcome::Failed, Outcome::Retry);
                        (outcome, Some(failure.reason))
                    }
                },
            }
        }
    };
    if let Some(error) = &error {
        tracing::info!(
            notification_id = id,
            attempt = number,
            error,
            "an e-mail was not sent"
        );
    }
    let (id, now) = (id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            store::notifications::settle(tx, &id, number, &outcome, error.as_deref(), &now)
        })
        .await
}

/// The message as it goes out; None when its receiver unsubscribed; Err with the reason to
/// log when it cannot be written (no mail server, a template that does not render).
async fn letter(ctx: &Ctx, message: &Stored) -> std::result::Result<Option<Letter>, String> {
    if !ctx.mailer.configured() {
        return Err(NOT_CONFIGURED.into());
    }
    let (org_id, shipment_id, to) = (
        message.org_id.clone(),
        message.notification.shipment_id.clone(),
        message.notification.to.clone(),
    );
    let read = ctx
        .db
        .read(move |db| {
            if store::notifications::suppressed(db, &org_id, &to)? {
                return Ok(None);
            }
            let shipment = crate::service::shipments::view(db, &org_id, &shipment_id)?;
            let look = store::branding::look(db, &org_id)?.ok_or(Error::NotFound)?;
            let settings = store::notification_settings::get(db, &org_id)?;
            Ok(Some((shipment, look, settings)))
        })
        .await
        .map_err(|e| format!("cannot read the shipment: {e}"))?;
    let Some((shipment, look, settings)) = read else {
        return Ok(None);
    };
    let n = &message.notification;
    let language = n.language.as_str();
    let shop = look.display_name.unwrap_or(look.org_name);
    let color = look.color.unwrap_or_else(|| DEFAULT_COLOR.to_string());
    let attachment = message
        .attach_label
        .then(|| {
            shipment
                .documents
                .iter()
                .find(|d| d.document_type == "label" && d.format == "pdf")
                .map(|d| {
                    (
                        format!("return-label-{}.pdf", shipment.shipment.reference),
                        d.content.0.clone(),
                    )
                })
        })
        .flatten();
    let json = poem_openapi::types::ToJSON::to_json(&shipment).unwrap_or_default();
    let values = words::values(&json, &shop, language);
    let (subject, text) = if message.attach_label {
        words::words(RETURN_LABEL, language, None, None, &values)
    } else {
        let event = crate::model::notification::settings_event(&n.event).unwrap_or("booked");
        let stored = settings.of(event).cloned().unwrap_or_default();
        words::words(event, language, stored.subject, stored.text, &values)
    };
    let footer = words::render(locale::catalogue(language).get("mail_footer"), &values);
    let problem = |what: &str, e: String| format!("the {what} template {e}");
    let from = ctx
        .mailer
        .from_as(&shop)
        .ok_or_else(|| NOT_CONFIGURED.to_string())?;
    Ok(Some(Letter {
        id: n.id.clone(),
        from,
        to: n.to.clone(),
        language: language.to_string(),
        shop,
        color,
        subject: subject.map_err(|e| problem("subject", e))?,
        text: text.map_err(|e| problem("text", e))?,
        footer: footer.map_err(|e| problem("footer", e))?,
        unsubscribe_url: format!(
            "{}/u/{}",
            ctx.config.base_url(),
            unsubscribe_token(ctx, &n.id)
        ),
        tracking_url: (!message.attach_label)
            .then(|| shipment.shipment.body.tracking_url.clone())
            .flatten(),
        domain: ctx.mailer.domain().unwrap_or_else(|| "localhost".into()),
        attachment,
    }))
}
