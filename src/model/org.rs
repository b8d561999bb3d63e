//! Organizations, users and API tokens (SPEC §2), and their rules: slug pattern, billing
//! currencies, roles.

use poem_openapi::Object;

use crate::model::scope::ScopeSet;

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

/// An organization (tenant).
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename = "Organization", rename_all = "camelCase")]
pub struct Org {
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
    /// The plan of the configuration the organization is on.
    #[oai(skip)]
    pub plan: String,
    pub created_at: String,
    pub updated_at: String,
}

/// A user, with the role they hold in the organization the record was read for.
#[derive(Clone, Debug, PartialEq)]
pub struct User {
    pub id: String,
    pub email: String,
    pub name: String,
    pub language: String,
    pub staff: bool,
    pub email_verified: bool,
    /// Role in the organization at hand, when read through one.
    pub role: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl User {
    /// `superAdmin` (SPEC §2 User): full rights inside the organizations the user owns.
    pub fn is_owner(&self) -> bool {
        self.role.as_deref() == Some("owner")
    }
}

/// A user as the API shows it (SPEC §2 User): staff and role stay private, `superAdmin` says
/// whether the user owns the organization at hand.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename = "User", rename_all = "camelCase")]
pub struct UserView {
    pub id: String,
    pub email: String,
    pub name: String,
    pub language: String,
    /// Full rights inside this organization (its owner); never in others.
    pub super_admin: bool,
    pub email_verified: bool,
    pub created_at: String,
    pub updated_at: String,
}

impl From<User> for UserView {
    fn from(u: User) -> UserView {
        UserView {
            super_admin: u.is_owner(),
            id: u.id,
            email: u.email,
            name: u.name,
            language: u.language,
            email_verified: u.email_verified,
            created_at: u.created_at,
            updated_at: u.updated_at,
        }
    }
}

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
    pub created_by: UserRef,
}

crate::page_of!(ApiTokenPage, ApiToken);

crate::string_enum! {
    /// How an API token was made (stored with it): by the command line, by a person in the
    /// pages, with another API token, or by an AI agent. Only the first two may carry their
    /// user's staff rights (DESIGN §19).
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

/// Who created something: id, name and e-mail of a user.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename = "CreatedBy")]
pub struct UserRef {
    pub id: String,
    pub name: String,
    pub email: String,
}

/// A person's membership of an organization (DESIGN §19).
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Member {
    /// The person's user id (`usr_…`), the same in every organization they belong to.
    pub id: String,
    pub email: String,
    pub name: String,
    pub role: crate::model::role::Role,
    /// Set when the member sees only shipments and orders of this brand; such members cannot
    /// connect AI agents nor make API tokens.
    pub brand: Option<String>,
    /// When they joined the organization.
    pub created_at: String,
}

crate::page_of!(MemberPage, Member);
