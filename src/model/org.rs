//! Organization rules (SPEC §2 Organization): slug pattern, billing currencies, roles.

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

/// An organization (tenant) as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Org {
    pub id: String,
    pub name: String,
    pub slug: String,
    pub description: Option<String>,
    pub currency: String,
    pub vat_number: Option<String>,
    pub billing_email: Option<String>,
    pub company_name: Option<String>,
    pub address_line1: Option<String>,
    pub address_line2: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
    pub overage_enabled: bool,
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

/// An API token as stored: never its value, only its hash and first 12 characters.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiToken {
    pub id: String,
    pub org_id: String,
    pub name: String,
    pub token_prefix: String,
    pub scopes: crate::model::scope::ScopeSet,
    pub created_by: UserRef,
    pub expires_at: Option<String>,
    pub last_used_at: Option<String>,
    pub created_at: String,
}

/// Who created something: id, name and e-mail of a user.
#[derive(Clone, Debug, PartialEq)]
pub struct UserRef {
    pub id: String,
    pub name: String,
    pub email: String,
}
