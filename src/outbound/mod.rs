//! Requests Shipbase makes to addresses its users give it (webhook endpoints, printers, carriers
//! behind DNS): the resolver, the guard that keeps them off private networks, and the HTTP sender
//! of webhook deliveries. What is sent and when (signatures, the retry schedule, the outbox
//! worker) is `service::webhooks`.

pub mod dns;
pub mod sender;
pub mod target;
