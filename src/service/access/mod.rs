//! Who may do what, and how often: the caller (`actor`) and how a credential becomes one
//! (`auth`, `sessions`, `mcp_sessions`), the leave an operation gets and the audit entry it
//! writes (`grant`), rate limits and sign-in throttles, the client's address, and secrets.

pub mod actor;
pub mod auth;
pub mod grant;
pub mod known_tokens;
pub mod login_throttle;
pub mod mcp_sessions;
pub mod rate_limit;
pub mod request;
pub mod secret;
pub mod sessions;
