//! The OAuth 2.1 authorization server's records (DESIGN §12): registered clients, the agent
//! connections a user approved, and the authorization codes between consent and token.

use serde::{Deserialize, Serialize};
use url::{Host, Url};

/// The longest URI a client may register (redirect URIs, its home page).
pub const MAX_URI_LEN: usize = 2000;
/// Schemes a redirect URI may never use (RFC 8252 §7.1 allows other private-use schemes).
const FORBIDDEN_SCHEMES: [&str; 9] = [
    "javascript",
    "data",
    "file",
    "vbscript",
    "about",
    "blob",
    "ftp",
    "ws",
    "wss",
];

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

/// A redirect URI a client may register: absolute, no fragment; https, http on loopback only, or
/// a private-use scheme of a native app.
pub fn check_redirect_uri(uri: &str) -> std::result::Result<(), String> {
    if uri.len() > MAX_URI_LEN {
        return Err(format!(
            "redirect URIs must be at most {MAX_URI_LEN} characters"
        ));
    }
    let url = Url::parse(uri).map_err(|_| format!("{uri:?} is not an absolute URI"))?;
    if url.fragment().is_some() {
        return Err(format!("{uri:?} must not have a fragment"));
    }
    match url.scheme() {
        "https" if url.host().is_some() => Ok(()),
        "http" if is_loopback(&url) => Ok(()),
        "http" | "https" => Err(format!(
            "{uri:?}: http is allowed only on loopback (127.0.0.1, [::1], localhost); use https"
        )),
        scheme if FORBIDDEN_SCHEMES.contains(&scheme) => Err(format!(
            "{uri:?}: the scheme {scheme} cannot be a redirect URI"
        )),
        _ => Ok(()),
    }
}

/// An http URL on a loopback host (127.0.0.0/8, [::1], localhost).
pub fn is_loopback(url: &Url) -> bool {
    url.scheme() == "http"
        && match url.host() {
            Some(Host::Ipv4(ip)) => ip.is_loopback(),
            Some(Host::Ipv6(ip)) => ip.is_loopback(),
            Some(Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            None => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_are_https_loopback_http_or_private_use_schemes() {
        for ok in [
            "https://app.example/cb",
            "http://127.0.0.1:9/cb",
            "http://[::1]/cb",
            "http://localhost:3000/cb",
            "com.example.app:/oauth2redirect",
            "cursor://anysphere.cursor-retrieval/oauth/callback",
        ] {
            assert_eq!(check_redirect_uri(ok), Ok(()), "{ok}");
        }
        for bad in [
            "http://app.example/cb",
            "https://app.example/cb#frag",
            "javascript:alert(1)",
            "data:text/html,hi",
            "/relative",
            "file:///etc/passwd",
        ] {
            assert!(check_redirect_uri(bad).is_err(), "{bad}");
        }
    }
}
