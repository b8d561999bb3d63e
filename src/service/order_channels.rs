//! Order channels: where orders come from (`manual`, or a Shopify store).

use crate::model::order_channel::OrderChannelIn;
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use ring::rand::{SecureRandom, SystemRandom};

use crate::{
    error::{Error, Result},
    model::{
        ids,
        order_channel::{CHANNEL_TYPES, OrderChannel, OrderChannelPage, OrderChannelRecord},
        usage::Limit,
        validate::Violations,
    },
    service::{Actor, Ctx, Input, PageParams, billing, operations as ops, page_query},
    store,
};

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<OrderChannelIn>,
) -> Result<OrderChannel> {
    let grant = actor.authorize(org_id, &ops::CREATE_ORDER_CHANNEL)?;
    let new = input.get()?;
    let mut errors = Violations::new();
    errors.length("name", &new.name, 1, 200);
    errors.one_of("type", &new.kind, &CHANNEL_TYPES);
    let shopify = new.kind == "shopify";
    match (&new.shop_domain, shopify) {
        (None, true) => errors.add("shopDomain", "is required for a shopify channel"),
        (Some(domain), true) if !is_hostname(domain) => errors.add(
            "shopDomain",
            "must be a host name such as my-store.myshopify.com",
        ),
        _ => {}
    }
    if let Some(secret) = &new.webhook_secret {
        errors.length("webhookSecret", secret, 16, 200);
    }
    errors.finish()?;
    let webhook_secret = match (shopify, new.webhook_secret) {
        (false, _) => None,
        (true, Some(secret)) => Some(secret),
        (true, None) => Some(generate_secret()?),
    };
    let now = ctx.now();
    let sealed = webhook_secret
        .as_deref()
        .map(|secret| ctx.vault.seal(secret))
        .transpose()?;
    let channel = OrderChannelRecord {
        id: ids::new(ids::ORDER_CHANNEL),
        org_id: org_id.to_string(),
        name: new.name,
        kind: new.kind,
        shop_domain: if shopify {
            new.shop_domain.map(|d| d.to_ascii_lowercase())
        } else {
            None
        },
        webhook_secret: sealed,
        created_at: now.clone(),
        updated_at: now,
    };
    let base_url = ctx.config.base_url();
    ctx.commit(grant.on(&channel.id), move |tx| {
        billing::admit(tx, &channel.org_id, Limit::OrderChannels)?;
        store::order_channels::insert(tx, &channel)?;
        Ok(OrderChannel::new(channel, &base_url, webhook_secret))
    })
    .await
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    page: PageParams,
) -> Result<OrderChannelPage> {
    actor.authorize(org_id, &ops::LIST_ORDER_CHANNELS)?;
    let page = page_query(&page)?;
    let org_id = org_id.to_string();
    let paged = ctx
        .db
        .read(move |db| store::order_channels::list(db, &org_id, page))
        .await?;
    let base_url = ctx.config.base_url();
    Ok(paged.map(|c| OrderChannel::new(c, &base_url, None)).into())
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<OrderChannel> {
    actor.authorize(org_id, &ops::GET_ORDER_CHANNEL)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    let channel = ctx
        .db
        .point(|db| store::order_channels::get(db, &org_id, &id)?.ok_or(Error::NotFound))?;
    Ok(OrderChannel::new(channel, &ctx.config.base_url(), None))
}

/// Deletes a channel that brought no orders (409 otherwise).
pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    let grant = actor.authorize(org_id, &ops::DELETE_ORDER_CHANNEL)?.on(id);
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.write(grant, move |tx| {
        store::order_channels::get(tx, &org_id, &id)?.ok_or(Error::NotFound)?;
        if store::order_channels::has_orders(tx, &org_id, &id)? {
            return Err(Error::Conflict(
                "the channel has orders; delete them first".into(),
            ));
        }
        store::order_channels::delete(tx, &org_id, &id)
    })
    .await
}

/// Seals the Shopify secrets an older version stored in clear (run once the database is open,
/// before anything is served). On SQLite the cleared text is also overwritten on disk and the
/// write-ahead log emptied, so that no copy of a secret stays in the files.
pub async fn seal_plain_secrets(ctx: &Ctx) -> Result<usize> {
    let vault = ctx.vault.clone();
    let sealed = ctx
        .db
        .write(move |tx| store::order_channels::seal_plain(tx, |plain| vault.seal(plain)))
        .await?;
    if sealed > 0 {
        ctx.db.checkpoint().await?;
        tracing::info!(channels = sealed, "sealed Shopify secrets stored in clear");
    }
    Ok(sealed)
}

fn is_hostname(domain: &str) -> bool {
    domain.len() <= 253
        && domain.contains('.')
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

fn generate_secret() -> Result<String> {
    let mut bytes = [0u8; 32];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| Error::Internal("no randomness available".into()))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shop_domains_are_host_names() {
        assert!(is_hostname("my-store.myshopify.com"));
        assert!(is_hostname("shop.example.dk"));
        for bad in [
            "",
            "localhost",
            "-x.myshopify.com",
            "my store.myshopify.com",
            "x..com",
            "https://x.com",
        ] {
            assert!(!is_hostname(bad), "{bad}");
        }
    }
}
