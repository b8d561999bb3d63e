//! Users (SPEC §2 User): the record, and the user as the API shows it.

use poem_openapi::Object;

/// A user, with the role they hold in the organization the record was read for.
#[derive(Clone, Debug, PartialEq)]
pub struct UserRecord {
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

impl UserRecord {
    /// `superAdmin`: full rights inside the organizations the user owns.
    pub fn is_owner(&self) -> bool {
        self.role.as_deref() == Some("owner")
    }
}

/// A user as the API shows it: staff and role stay private, `superAdmin` says
/// whether the user owns the organization at hand.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct User {
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

impl From<UserRecord> for User {
    fn from(u: UserRecord) -> User {
        User {
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

/// Who created something: id, name and e-mail of a user.
#[derive(Clone, Debug, PartialEq, Object)]
pub struct CreatedBy {
    pub id: String,
    pub name: String,
    pub email: String,
}
