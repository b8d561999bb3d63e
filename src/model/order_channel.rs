//! Order channels (DESIGN §8): where orders come in from (manual entry, a Shopify shop).

use poem_openapi::Object;

pub const CHANNEL_TYPES: [&str; 2] = ["manual", "shopify"];

/// A channel orders come in through, as stored.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct OrderChannelRecord {
    pub id: String,
    pub name: String,
    /// `manual` or `shopify`.
    #[oai(rename = "type")]
    pub kind: String,
    pub shop_domain: Option<String>,
    /// The secret Shopify signs its webhooks with, sealed with the vault's key as stored; in
    /// clear only in the answer that creates the channel.
    #[oai(skip)]
    pub webhook_secret: Option<String>,
    pub org_id: String,
    pub created_at: String,
    pub updated_at: String,
}

/// An order channel.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct OrderChannel {
    #[oai(flatten)]
    pub channel: OrderChannelRecord,
    /// Where Shopify delivers orders/create and orders/updated (shopify channels).
    pub webhook_url: Option<String>,
    /// The webhook signing secret: present only in the response that creates the channel.
    #[oai(skip_serializing_if_is_none)]
    pub webhook_secret: Option<String>,
}

impl OrderChannel {
    /// The channel as shown; `secret`, in clear, only in the answer that creates it.
    pub fn new(
        channel: OrderChannelRecord,
        base_url: &str,
        secret: Option<String>,
    ) -> OrderChannel {
        OrderChannel {
            webhook_url: (channel.kind == "shopify")
                .then(|| format!("{base_url}/channels/{}/shopify/orders", channel.id)),
            webhook_secret: secret,
            channel,
        }
    }
}

/// `{id, name, type}` of an order's channel.
#[derive(Clone, Debug, PartialEq, Object)]
pub struct OrderChannelRef {
    pub id: String,
    pub name: String,
    #[oai(rename = "type")]
    pub kind: String,
}

crate::page_of!(OrderChannelPage, OrderChannel);

/// A channel orders come in through.
#[derive(serde::Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct OrderChannelIn {
    #[oai(validator(min_length = 1))]
    pub name: String,
    /// `manual` or `shopify`.
    #[serde(rename = "type")]
    #[oai(rename = "type")]
    pub kind: String,
    /// The store's host name (required for shopify), e.g. `my-store.myshopify.com`.
    pub shop_domain: Option<String>,
    /// The secret Shopify signs this store's webhooks with; generated when absent.
    pub webhook_secret: Option<String>,
}
