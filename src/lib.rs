//! Shipbase: self-hosted shipping management in one binary.

/// REST API: poem-openapi operations, problem+json, authentication.
pub mod api;
/// The HTTP application: routes and middleware; it composes and starts, nothing more.
pub mod app;
/// Files under static/, compiled into the binary.
pub mod assets;
/// Blocking work off the async workers.
pub mod blocking;
/// Carrier adapters.
pub mod carriers;
/// The command line.
pub mod cli;
/// Configuration: defaults, file, environment, flags.
pub mod config;
/// The domain error.
pub mod error;
/// The MCP endpoint for AI agents.
pub mod mcp;
/// Plain types and rules, no I/O.
pub mod model;
/// Requests to addresses users give (webhooks, printers): the resolver, the private-network
/// guard, the sender.
pub mod outbound;
/// The HTTP server under the routes: connection limits and timeouts, bounded bodies, the
/// client's address.
pub mod server;
/// Operations, each taking an Actor.
pub mod service;
/// SQLite access.
pub mod store;
/// Secrets at rest, encrypted with a key kept apart from the database.
pub mod vault;
/// The pages and the OAuth authorization server's endpoints.
pub mod web;

/// This build's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
