//! The OAuth 2.1 authorization server agents sign in through (SPEC §5, DESIGN §12): discovery
//! metadata, client registration, the consent decision, the token endpoint, and the check of
//! every access token. The issuer is `server.base_url`, byte for byte, everywhere it appears.

use serde_json::{Value, json};

use crate::{model::scope::Scope, service::Ctx};

pub mod access;
pub mod authorize;
pub mod clients;
pub mod connections;
pub mod documents;
pub mod keys;
pub mod tokens;

/// The path of the MCP endpoint, the second protected resource.
pub const MCP_PATH: &str = "/mcp";

/// The issuer: the configured base URL without a trailing slash.
pub fn issuer(ctx: &Ctx) -> String {
    ctx.config.base_url()
}

/// The resource identifiers tokens may be issued for (RFC 8707): the API and the MCP endpoint.
pub fn resources(ctx: &Ctx) -> [String; 2] {
    let base = issuer(ctx);
    let mcp = format!("{base}{MCP_PATH}");
    [base, mcp]
}

/// Every scope a client may ask for (DESIGN §4); never `offline_access`.
pub fn scopes_supported() -> Vec<String> {
    Scope::catalogue().iter().map(Scope::to_string).collect()
}

/// RFC 8414 authorization-server metadata.
pub fn server_metadata(ctx: &Ctx) -> Value {
    let issuer = issuer(ctx);
    json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/oauth/authorize"),
        "token_endpoint": format!("{issuer}/oauth/token"),
        "registration_endpoint": format!("{issuer}/oauth/register"),
        "revocation_endpoint": format!("{issuer}/oauth/revoke"),
        "jwks_uri": format!("{issuer}/oauth/jwks"),
        "scopes_supported": scopes_supported(),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
        "client_id_metadata_document_supported": true,
        "service_documentation": format!("{issuer}/docs"),
    })
}

/// RFC 9728 protected-resource metadata of the API (`mcp` false) or of the MCP endpoint.
pub fn resource_metadata(ctx: &Ctx, mcp: bool) -> Value {
    let [api, mcp_resource] = resources(ctx);
    let resource = if mcp { mcp_resource } else { api };
    json!({
        "resource": resource,
        "authorization_servers": [issuer(ctx)],
        "scopes_supported": scopes_supported(),
        "bearer_methods_supported": ["header"],
        "resource_name": if mcp { "Shipbase MCP" } else { "Shipbase API" },
        "resource_documentation": format!("{}/docs", issuer(ctx)),
    })
}

/// An error of the token, registration or revocation endpoint, in RFC 6749 §5.2 form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthError {
    pub status: u16,
    pub error: &'static str,
    pub description: String,
}

impl OAuthError {
    pub fn new(status: u16, error: &'static str, description: impl Into<String>) -> OAuthError {
        OAuthError {
            status,
            error,
            description: description.into(),
        }
    }

    pub fn invalid_request(description: impl Into<String>) -> OAuthError {
        OAuthError::new(400, "invalid_request", description)
    }

    pub fn invalid_grant(description: impl Into<String>) -> OAuthError {
        OAuthError::new(400, "invalid_grant", description)
    }

    pub fn body(&self) -> Value {
        json!({"error": self.error, "error_description": self.description})
    }
}

impl From<crate::error::Error> for OAuthError {
    fn from(err: crate::error::Error) -> OAuthError {
        tracing::error!(error = %err, "OAuth endpoint failed");
        OAuthError::new(
            500,
            "server_error",
            "the server could not complete the request",
        )
    }
}

/// A new secret (codes, refresh tokens, sessions): 32 random bytes, base64url.
pub fn new_secret() -> crate::error::Result<String> {
    crate::service::access::secret::random_urlsafe(32)
}

/// Secrets (codes, refresh tokens, sessions) are stored as their SHA-256.
pub use crate::service::access::secret::hash;
