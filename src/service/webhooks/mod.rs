//! Webhooks (SPEC §4 rows 23–24, §6; DESIGN §9): endpoints with their signing secrets, a test
//! delivery, secret rotation, the delivery log and replays from it (`replay`). Secrets are
//! sealed by the vault before they are stored and opened when read. The worker that delivers
//! events is `worker`.

use crate::{
    error::{Error, Result},
    model::{
        ids,
        time::{self, Timestamp},
        validate::Violations,
        webhook::{DeliveryPage, Webhook, WebhookDelivery, WebhookIn, WebhookPage, WebhookPatchIn},
    },
    outbound::target,
    service::{Actor, Ctx, Input, PageParams, access::grant::Grant, operations as ops, page_query},
    store::{self, Reader},
};

mod delivery;
mod replay;
pub mod schedule;
pub mod signature;
pub mod worker;

pub use delivery::TEST_EVENT;
pub use replay::replay;

/// How long a rotated-out secret keeps signing beside the new one.
const ROTATION_OVERLAP_HOURS: i64 = 24;

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<WebhookIn>,
) -> Result<Webhook> {
    let grant = actor.authorize(org_id, &ops::CREATE_WEBHOOK)?;
    let fields = input.get()?;
    let fields = checked(ctx, fields).await?;
    let now = ctx.now();
    let webhook = Webhook {
        id: ids::new(ids::WEBHOOK),
        org_id: org_id.to_string(),
        name: fields.name,
        url: fields.url,
        secret: signature::generate()?,
        previous_secret: None,
        previous_secret_expires_at: None,
        events: fields.events,
        is_active: fields.is_active,
        created_at: now.clone(),
        updated_at: now,
    };
    let sealed = seal(ctx, &webhook)?;
    ctx.commit(grant.on(&webhook.id), move |tx| {
        store::webhooks::save(tx, &sealed)?;
        Ok(webhook)
    })
    .await
}

pub async fn list(ctx: &Ctx, actor: &Actor, org_id: &str, page: PageParams) -> Result<WebhookPage> {
    actor.authorize(org_id, &ops::LIST_WEBHOOKS)?;
    let page = page_query(&page)?;
    let org_id = org_id.to_string();
    let paged = ctx
        .db
        .read(move |db| store::webhooks::list(db, &org_id, page))
        .await?;
    Ok(paged.try_map(|w| reveal(ctx, w))?.into())
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<Webhook> {
    actor.authorize(org_id, &ops::GET_WEBHOOK)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    let webhook = ctx.db.point(|db| require(db, &org_id, &id))?;
    reveal(ctx, webhook)
}

/// Replaces every writable field (PUT).
pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<WebhookIn>,
) -> Result<Webhook> {
    let grant = actor.authorize(org_id, &ops::UPDATE_WEBHOOK)?.on(id);
    let fields = checked(ctx, input.get()?).await?;
    change(ctx, grant, org_id, id, move |_| Ok(fields)).await
}

/// Changes the fields given (PATCH).
pub async fn patch(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<WebhookPatchIn>,
) -> Result<Webhook> {
    let grant = actor.authorize(org_id, &ops::PATCH_WEBHOOK)?.on(id);
    let patch = input.get()?;
    // The URL is checked before the write (its host may need a lookup); the rest inside it.
    if let Some(url) = &patch.url {
        check_url(ctx, url).await?;
    }
    change(ctx, grant, org_id, id, move |current| {
        let fields = current.fields().patched(patch);
        let mut errors = Violations::new();
        fields.validate(&mut errors);
        errors.finish()?;
        Ok(fields)
    })
    .await
}

/// Writes the fields `make` derives from the current webhook.
async fn change(
    ctx: &Ctx,
    grant: Grant,
    org_id: &str,
    id: &str,
    make: impl FnOnce(&Webhook) -> Result<WebhookIn> + Send + 'static,
) -> Result<Webhook> {
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    let stored = ctx
        .write(grant, move |tx| {
            let mut webhook = require(tx, &org_id, &id)?;
            let fields = make(&webhook)?;
            webhook.name = fields.name;
            webhook.url = fields.url;
            webhook.events = dedup(fields.events);
            webhook.is_active = fields.is_active;
            webhook.updated_at = now;
            store::webhooks::save(tx, &webhook)?;
            Ok(webhook)
        })
        .await?;
    reveal(ctx, stored)
}

pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    let grant = actor.authorize(org_id, &ops::DELETE_WEBHOOK)?.on(id);
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.write(grant, move |tx| {
        require(tx, &org_id, &id)?;
        store::webhooks::delete(tx, &org_id, &id)
    })
    .await
}

/// A new secret; the previous one keeps signing beside it for 24 hours, so that receivers can
/// switch without losing a delivery.
pub async fn rotate_secret(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<Webhook> {
    let grant = actor.authorize(org_id, &ops::ROTATE_WEBHOOK_SECRET)?.on(id);
    let current = get_revealed(ctx, org_id, id).await?;
    let now = ctx.clock.now();
    let rotated = Webhook {
        secret: signature::generate()?,
        previous_secret: Some(current.secret.clone()),
        previous_secret_expires_at: Some(time::format(
            now + ::time::Duration::hours(ROTATION_OVERLAP_HOURS),
        )),
        updated_at: time::format(now),
        ..current
    };
    let sealed = seal(ctx, &rotated)?;
    ctx.commit(grant, move |tx| {
        require(tx, &sealed.org_id, &sealed.id)?;
        store::webhooks::save(tx, &sealed)?;
        Ok(rotated)
    })
    .await
}

/// Sends a signed `webhook.test` event now (inactive webhooks too) and records the attempt.
pub async fn test(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<WebhookDelivery> {
    let grant = actor.authorize(org_id, &ops::TEST_WEBHOOK)?.on(id);
    let webhook = get_revealed(ctx, org_id, id).await?;
    let (event_id, at) = (ids::new(ids::EVENT), ctx.now());
    let data = serde_json::json!({
        "webhookId": webhook.id,
        "message": "A test delivery from Shipbase: your endpoint and its signature check work.",
    });
    let message = delivery::Message {
        id: &event_id,
        kind: delivery::TEST_EVENT,
        created_at: &at,
        org_id,
        data: &data,
    };
    let outcome = delivery::send(ctx, &webhook, &message).await;
    let attempt = delivery::attempt(&webhook.id, &message, 1, &outcome, ctx.now());
    let org_id = org_id.to_string();
    ctx.commit(grant, move |tx| {
        store::deliveries::record_attempt(tx, &org_id, &attempt)?;
        Ok(attempt)
    })
    .await
}

/// The delivery attempts of a webhook, newest first.
pub async fn deliveries(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    page: PageParams,
) -> Result<DeliveryPage> {
    actor.authorize(org_id, &ops::LIST_WEBHOOK_DELIVERIES)?;
    let page = page_query(&page)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .read(move |db| {
            require(db, &org_id, &id)?;
            store::deliveries::attempts(db, &org_id, &id, page)
        })
        .await
        .map(Into::into)
}

fn require(db: &Reader, org_id: &str, id: &str) -> Result<Webhook> {
    store::webhooks::get(db, org_id, id)?.ok_or(Error::NotFound)
}

async fn get_revealed(ctx: &Ctx, org_id: &str, id: &str) -> Result<Webhook> {
    let (org_id, id) = (org_id.to_string(), id.to_string());
    let webhook = ctx.db.point(|db| require(db, &org_id, &id))?;
    reveal(ctx, webhook)
}

/// Validates the fields and checks where the URL leads (400 on `url` for a refused target).
async fn checked(ctx: &Ctx, mut fields: WebhookIn) -> Result<WebhookIn> {
    let mut errors = Violations::new();
    fields.validate(&mut errors);
    errors.finish()?;
    check_url(ctx, &fields.url).await?;
    fields.events = dedup(fields.events);
    Ok(fields)
}

async fn check_url(ctx: &Ctx, url: &str) -> Result<()> {
    let parsed = target::parse(url).map_err(|m| Error::invalid("url", m))?;
    target::check(&parsed, ctx.config.webhooks.allow_private_targets)
        .await
        .map_err(|m| Error::invalid("url", m))
}

fn dedup<T: PartialEq>(items: Vec<T>) -> Vec<T> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// The webhook as stored: its secrets sealed.
fn seal(ctx: &Ctx, webhook: &Webhook) -> Result<Webhook> {
    Ok(Webhook {
        secret: ctx.vault.seal(&webhook.secret)?,
        previous_secret: webhook
            .previous_secret
            .as_deref()
            .map(|s| ctx.vault.seal(s))
            .transpose()?,
        ..webhook.clone()
    })
}

/// The webhook as shown and used: its secrets opened.
fn reveal(ctx: &Ctx, webhook: Webhook) -> Result<Webhook> {
    Ok(Webhook {
        secret: ctx.vault.open_sealed(&webhook.secret)?,
        previous_secret: webhook
            .previous_secret
            .as_deref()
            .map(|s| ctx.vault.open_sealed(s))
            .transpose()?,
        ..webhook
    })
}

/// The secrets that sign a delivery at `now`: the current one, and the previous one while its
/// rotation overlap lasts.
fn signing_secrets(webhook: &Webhook, now: Timestamp) -> Vec<&str> {
    let mut secrets = vec![webhook.secret.as_str()];
    if let (Some(previous), Some(until)) = (
        &webhook.previous_secret,
        webhook
            .previous_secret_expires_at
            .as_deref()
            .and_then(time::parse),
    ) && until > now
    {
        secrets.push(previous);
    }
    secrets
}
