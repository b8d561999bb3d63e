//! Order channels: where orders come from (`manual`, or a Shopify store).

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use ring::rand::{SecureRandom, SystemRandom};

use crate::{
    error::{Error, Result},
    model::{
        ids,
        order::{CHANNEL_TYPES, OrderChannel},
        scope::{Resource, Scope},
        validate::Violations,
    },
    service::{Actor, Ctx, Input, page_query},
    store::{self, Paged},
};

const READ: Scope = Scope::read(Resource::OrderChannels);
const WRITE: Scope = Scope::write(Resource::OrderChannels);

pub struct NewChannel {
    pub name: String,
    pub kind: String,
    pub shop_domain: Option<String>,
    /// The signing secret Shopify shows for the store's webhooks; generated when absent.
    pub webhook_secret: Option<String>,
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<NewChannel>,
) -> Result<OrderChannel> {
    actor.authorize(org_id, WRITE)?;
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
    let channel = OrderChannel {
        id: ids::new(ids::ORDER_CHANNEL),
        org_id: org_id.to_string(),
        name: new.name,
        kind: new.kind,
        shop_domain: if shopify {
            new.shop_domain.map(|d| d.to_ascii_lowercase())
        } else {
            None
        },
        webhook_secret,
        created_at: now.clone(),
        updated_at: now,
    };
    ctx.db
        .write(move |tx| {
            store::order_channels::insert(tx, &channel)?;
            Ok(channel)
        })
        .await
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    page: Option<i64>,
    limit: Option<i64>,
) -> Result<Paged<OrderChannel>> {
    actor.authorize(org_id, READ)?;
    let page = page_query(page, limit)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |c| store::order_channels::list(c, &org_id, page))
        .await
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<OrderChannel> {
    actor.authorize(org_id, READ)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .read(move |c| store::order_channels::get(c, &org_id, &id)?.ok_or(Error::NotFound))
        .await
}

/// Deletes a channel that brought no orders (409 otherwise).
pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    actor.authorize(org_id, WRITE)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .write(move |tx| {
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
