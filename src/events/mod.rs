//! Webhook delivery, below the service: Standard Webhooks signatures, the guard that keeps
//! deliveries off private networks, the HTTP sender and the retry schedule. The outbox rows are
//! written by the unit of work; the worker that drains them is `service::webhooks::worker`.

pub mod dns;
pub mod schedule;
pub mod sender;
pub mod signature;
pub mod target;
