//! The OAuth 2.1 authorization server (SPEC §5, DESIGN §12): discovery and registration, the
//! consent rules, the token endpoint, access tokens on the REST API, and the ways a connection
//! ends.

mod consent;
mod discovery;
mod ending;
mod registration;
mod tokens;
