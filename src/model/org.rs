//! Organizations (SPEC §2) and their rules: slug pattern, billing currencies, roles.

use poem_openapi::{Object, types::MaybeUndefined};
use serde::Deserialize;

use crate::model::user::User;

/// Billing currencies an organization may use.
pub const CURRENCIES: [&str; 6] = ["DKK", "EUR", "USD", "GBP", "SEK", "NOK"];
pub const DEFAULT_CURRENCY: &str = "DKK";

/// Roles of a user inside an organization.
pub const ROLES: [&str; 3] = ["owner", "admin", "member"];

/// `^[a-z0-9-]+$`
pub fn is_slug(slug: &str) -> bool {
    !slug.is_empty()
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// An organization (tenant).
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Organization {
    pub id: String,
    pub name: String,
    pub slug: String,
    pub description: Option<String>,
    /// Billing currency.
    pub currency: String,
    pub vat_number: Option<String>,
    pub billing_email: Option<String>,
    pub company_name: Option<String>,
    pub address_line1: Option<String>,
    pub address_line2: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
    /// When true, shipments beyond the plan limit are allowed and charged as overage.
    pub overage_enabled: bool,
    /// How AI agents (MCP connections) act for the organization.
    pub agents: AgentSettings,
    /// The plan of the configuration the organization is on.
    #[oai(skip)]
    pub plan: String,
    pub created_at: String,
    pub updated_at: String,
}

/// How AI agents act for an organization.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct AgentSettings {
    /// When true (the default), an agent's call that spends money with a carrier (booking a
    /// shipment or a return) first asks the person using the agent to confirm, whenever the
    /// agent's client can ask them (MCP 2026-07-28 with form elicitation).
    pub confirm_costly: bool,
}

impl Default for AgentSettings {
    fn default() -> AgentSettings {
        AgentSettings {
            confirm_costly: true,
        }
    }
}

/// Changes to how AI agents act for an organization; absent fields stay as they are.
#[derive(Deserialize, Object, Default)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct AgentSettingsPatchIn {
    /// Whether an agent's costly call first asks the person using the agent to confirm.
    #[serde(deserialize_with = "not_null")]
    pub confirm_costly: Option<bool>,
}

/// Creates an organization and its first user, who becomes the owner (as
/// `shipbase org create` does).
#[derive(Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct OrgIn {
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: String,
    /// Unique; lower-case letters, digits and dashes.
    #[oai(validator(min_length = 1, max_length = 100, pattern = "^[a-z0-9-]+$"))]
    pub slug: String,
    pub description: Option<String>,
    /// E-mail of the first user (the owner).
    pub creator_email: String,
    #[oai(validator(min_length = 1, max_length = 200))]
    pub creator_name: String,
    /// `attach`: when `creatorEmail` belongs to an existing user, make them the owner (instance
    /// staff only). Without it, an existing user's e-mail is 409 `user_exists`.
    pub existing_user: Option<ExistingUser>,
    /// A plan of the configuration; `default` when absent. Only the CLI chooses one.
    #[serde(skip)]
    #[oai(skip)]
    pub plan: Option<String>,
}

crate::string_enum! {
    /// What to do when the creator's e-mail belongs to an existing user.
    ExistingUser {
        /// Make the existing user the owner of the new organization.
        Attach = "attach",
    }
}

/// The new organization and its owner.
#[derive(Object)]
pub struct OrgCreated {
    pub org: Organization,
    pub user: User,
}

/// Fields to change; absent fields stay as they are, `null` clears a nullable field.
#[derive(Deserialize, Object, Default)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct OrgPatchIn {
    #[oai(validator(min_length = 1, max_length = 200))]
    #[serde(deserialize_with = "not_null")]
    pub name: Option<String>,
    #[oai(validator(min_length = 1, max_length = 100, pattern = "^[a-z0-9-]+$"))]
    #[serde(deserialize_with = "not_null")]
    pub slug: Option<String>,
    pub description: MaybeUndefined<String>,
    /// One of DKK, EUR, USD, GBP, SEK, NOK.
    #[serde(deserialize_with = "not_null")]
    pub currency: Option<String>,
    pub vat_number: MaybeUndefined<String>,
    /// When true, shipments beyond the plan limit are allowed and charged as overage.
    #[serde(deserialize_with = "not_null")]
    pub overage_enabled: Option<bool>,
    /// How AI agents act for the organization.
    #[serde(deserialize_with = "not_null")]
    pub agents: Option<AgentSettingsPatchIn>,
    pub billing_email: MaybeUndefined<String>,
    pub company_name: MaybeUndefined<String>,
    pub address_line1: MaybeUndefined<String>,
    pub address_line2: MaybeUndefined<String>,
    pub city: MaybeUndefined<String>,
    pub postal_code: MaybeUndefined<String>,
    /// ISO 3166-1 alpha-2.
    pub country: MaybeUndefined<String>,
}

/// For optional fields that may be left out but not set to null.
fn not_null<'de, D, T>(deserializer: D) -> std::result::Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    use serde::de::Error as _;
    match Option::<T>::deserialize(deserializer)? {
        Some(value) => Ok(Some(value)),
        None => Err(D::Error::custom("must not be null")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_lowercase_digits_and_dashes() {
        for ok in ["acme", "acme-2", "a", "0-0"] {
            assert!(is_slug(ok), "{ok}");
        }
        for bad in [
            "",
            "Upper-Case",
            "with space",
            "under_score",
            "dot.slug",
            "ø-slug",
        ] {
            assert!(!is_slug(bad), "{bad}");
        }
    }
}
