//! The OAuth 2.1 authorization server's records (DESIGN §12): registered clients, the agent
//! connections a user approved, and the authorization codes between consent and token.

use serde::{Deserialize, Serialize};

/// A public client registered with RFC 7591 (`cli_…`), or described by its Client ID Metadata
/// Document (its `id` is then the document's https URL).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Client {
    pub id: String,
    pub name: String,
    pub redirect_uris: Vec<String>,
    pub client_uri: Option<String>,
    pub created_at: String,
}

/// An agent a user connected to one organization with some permissions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connection {
    pub id: String,
    pub user_id: String,
    pub org_id: String,
    pub client_id: String,
    pub client_name: String,
    /// Space-separated scopes granted on the consent page.
    pub scopes: String,
    /// The audience of its access tokens (RFC 8707).
    pub resource: String,
    pub created_at: String,
    pub last_used_at: Option<String>,
}

/// A connection as the Apps & integrations page lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConnectionSummary {
    pub id: String,
    pub client_name: String,
    pub org_name: String,
    pub permissions: usize,
    pub created_at: String,
    pub last_used_at: Option<String>,
}

/// What an authorization code stands for until the client exchanges it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeGrant {
    pub client_id: String,
    pub client_name: String,
    pub user_id: String,
    pub org_id: String,
    pub redirect_uri: String,
    pub scopes: String,
    /// The S256 PKCE challenge.
    pub code_challenge: String,
    pub resource: String,
    pub expires_at: String,
    /// The connection made when the code was exchanged.
    pub connection_id: Option<String>,
}

/// A refresh token's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefreshGrant {
    pub connection_id: String,
    pub scopes: String,
    pub expires_at: String,
    pub used_at: Option<String>,
}
