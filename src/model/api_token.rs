//! API tokens: never their value, and how each was made.

use poem_openapi::Object;
use serde::Deserialize;

use crate::model::{scope::ScopeSet, user::CreatedBy};

/// An API token: never its value, only its first 12 characters.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct ApiToken {
    pub id: String,
    #[oai(skip)]
    pub org_id: String,
    pub name: String,
    /// The first 12 characters of the token, to recognise it by.
    pub token_prefix: String,
    pub scopes: ScopeSet,
    pub last_used_at: Option<String>,
    pub expires_at: Option<String>,
    pub created_at: String,
    pub created_by: CreatedBy,
}

crate::page_of!(ApiTokenPage, ApiToken);

crate::string_enum! {
    /// How an API token was made (stored with it): by the command line, by a person in the
    /// pages, with another API token, or by an AI agent. Only the first two may carry their
    /// user's staff rights.
    Origin {
        Cli = "cli",
        Session = "session",
        Api = "api",
        Agent = "agent",
    }
}

impl Origin {
    pub fn carries_staff(self) -> bool {
        matches!(self, Origin::Cli | Origin::Session)
    }
}

/// A new token. It may not hold scopes the calling credential lacks.
#[derive(Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ApiTokenIn {
    #[oai(validator(min_length = 1, max_length = 100))]
    pub name: String,
    /// For example `["read:shipments", "write:orders"]`, or `["read:all", "write:all"]`.
    #[oai(validator(min_items = 1))]
    pub scopes: Vec<String>,
    /// RFC 3339; omit for a token that does not expire.
    pub expires_at: Option<String>,
}

/// The new token: `token` is its full value, shown only this once.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct ApiTokenCreated {
    pub token: String,
    pub api_token: ApiToken,
}

/// A new name for a token.
#[derive(Deserialize, Object)]
pub struct ApiTokenPatchIn {
    #[oai(validator(min_length = 1, max_length = 100))]
    pub name: String,
}
