//! Roles inside an organization (DESIGN §19): the scopes each role caps every credential of its
//! holder at (web session, agent connection, API token), and whom each may add, change and
//! remove.

use crate::model::scope::{Resource, Scope, ScopeSet};

crate::string_enum! {
    /// A member's role in an organization.
    Role {
        Owner = "owner",
        Admin = "admin",
        Member = "member",
    }
}

impl Role {
    /// The most a credential of someone in this role may hold.
    pub fn cap(self) -> ScopeSet {
        match self {
            Role::Owner => ScopeSet::everything(),
            Role::Admin => ScopeSet::new(
                Resource::ALL
                    .into_iter()
                    .map(|r| match r {
                        Resource::Billing => Scope::read(r),
                        _ => Scope::write(r),
                    })
                    .collect(),
            ),
            Role::Member => ScopeSet::new(
                Resource::ALL
                    .into_iter()
                    .filter_map(|r| match r {
                        Resource::Shipments | Resource::Orders => Some(Scope::write(r)),
                        Resource::ApiTokens | Resource::Webhooks | Resource::Billing => None,
                        _ => Some(Scope::read(r)),
                    })
                    .collect(),
            ),
        }
    }

    /// Whether someone in this role may add, change or remove a member whose role is (or
    /// becomes) `other`: owners anyone, admins members and admins, members no one.
    pub fn may_manage(self, other: Role) -> bool {
        match self {
            Role::Owner => true,
            Role::Admin => other != Role::Owner,
            Role::Member => false,
        }
    }
}

/// What caps a credential: its holder's place in the organization now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub role: Role,
    /// Set when the member is limited to one brand: such members cannot hand anything on (no
    /// agents, no API tokens), so every credential they made is capped at nothing.
    pub brand: Option<String>,
}

impl Standing {
    /// The cap of a credential the person handed on (an agent connection, an API token); None
    /// when they may not hand anything on.
    pub fn cap_handed_on(&self) -> Option<ScopeSet> {
        self.brand.is_none().then(|| self.role.cap())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grants(set: &ScopeSet, scope: &str) -> bool {
        Scope::parse(scope).is_some_and(|s| set.grants(s))
    }

    #[test]
    fn the_role_table_of_design_19() {
        let owner = Role::Owner.cap();
        assert!(grants(&owner, "write:billing") && grants(&owner, "write:api_tokens"));
        let admin = Role::Admin.cap();
        assert!(grants(&admin, "write:orgs") && grants(&admin, "write:api_tokens"));
        assert!(grants(&admin, "read:billing") && !grants(&admin, "write:billing"));
        let member = Role::Member.cap();
        for yes in [
            "write:shipments",
            "write:orders",
            "read:orgs",
            "read:carriers",
            "read:shipping_rules",
            "read:printers",
        ] {
            assert!(grants(&member, yes), "{yes}");
        }
        for no in [
            "read:api_tokens",
            "read:webhooks",
            "read:billing",
            "write:orgs",
            "write:carriers",
            "write:api_tokens",
        ] {
            assert!(!grants(&member, no), "{no}");
        }
    }

    #[test]
    fn admins_manage_members_and_admins_but_not_owners() {
        assert!(Role::Admin.may_manage(Role::Member) && Role::Admin.may_manage(Role::Admin));
        assert!(!Role::Admin.may_manage(Role::Owner));
        assert!(Role::Owner.may_manage(Role::Owner));
        assert!(!Role::Member.may_manage(Role::Member));
        assert_eq!(Role::parse("admin"), Some(Role::Admin));
        assert_eq!(Role::parse("superuser"), None);
    }

    #[test]
    fn a_brand_limited_member_hands_nothing_on() {
        let limited = Standing {
            role: Role::Member,
            brand: Some("north".into()),
        };
        assert_eq!(limited.cap_handed_on(), None);
        let open = Standing {
            role: Role::Admin,
            brand: None,
        };
        assert_eq!(open.cap_handed_on(), Some(Role::Admin.cap()));
    }
}
