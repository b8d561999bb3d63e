//! The REST API: one poem-openapi `OpenApi` per resource; handlers parse, call `service`, map.

use poem_openapi::Tags;

pub mod api_tokens;
pub mod body;
pub mod health;
pub mod home;
pub mod orgs;
pub mod page;
pub mod problem;
pub mod security;

#[derive(Tags)]
pub enum ApiTags {
    /// Liveness and version.
    Health,
    /// Organizations (tenants) and their settings.
    Organizations,
    /// API tokens of an organization.
    ApiTokens,
}

/// Every API of the service, composed for `OpenApiService`.
pub fn all() -> (
    home::HomeApi,
    health::HealthApi,
    orgs::OrgsApi,
    api_tokens::ApiTokensApi,
) {
    (
        home::HomeApi,
        health::HealthApi,
        orgs::OrgsApi,
        api_tokens::ApiTokensApi,
    )
}

/// The `{"message": …}` body of DELETE answers (SPEC row 20).
#[derive(poem_openapi::Object)]
pub struct Message {
    pub message: String,
}

impl Message {
    pub fn new(message: impl Into<String>) -> poem_openapi::payload::Json<Message> {
        poem_openapi::payload::Json(Message {
            message: message.into(),
        })
    }
}
