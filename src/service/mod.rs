//! The operations of Shipbase, one module per resource. Every function takes an `Actor` and does
//! the organization and scope checks, validation and writes; REST, MCP and the CLI all call here.
//! Beside the resources: `access` (who may do what), `input` (what a request brings), `context`
//! (what every operation works with) and `jobs` (the loops beside the server).

pub mod access;
pub mod api_tokens;
pub mod audit;
pub mod billing;
pub mod carriers;
mod context;
pub mod documents;
mod emit;
pub mod housekeeping;
pub mod input;
pub mod jobs;
pub mod members;
pub mod oauth;
pub mod operations;
pub mod order_channels;
pub mod orders;
pub mod orgs;
pub mod printers;
pub mod printing;
pub mod quotes;
pub mod seed;
pub mod sender_addresses;
pub mod shipments;
pub mod shipping_rules;
pub mod users;
pub mod webhooks;

pub use access::actor::Actor;
pub use context::{Ctx, Inner};
pub use input::{
    decode::{Input, decode_json, decode_value},
    params::{PageParams, enum_param, instant_param, page_query},
};
