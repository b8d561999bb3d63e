//! Scopes (DESIGN §4): `read:<r>` and `write:<r>` per resource, plus `read:all` and `write:all`.
//! `write:<r>` implies `read:<r>`; `read:all` grants every read, `write:all` everything.

use std::fmt;

/// The resources a scope can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resource {
    Orgs,
    Shipments,
    Orders,
    OrderChannels,
    Carriers,
    SenderAddresses,
    ShippingRules,
    Webhooks,
    ApiTokens,
    Billing,
    Printers,
}

impl Resource {
    pub const ALL: [Resource; 11] = [
        Resource::Orgs,
        Resource::Shipments,
        Resource::Orders,
        Resource::OrderChannels,
        Resource::Carriers,
        Resource::SenderAddresses,
        Resource::ShippingRules,
        Resource::Webhooks,
        Resource::ApiTokens,
        Resource::Billing,
        Resource::Printers,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Resource::Orgs => "orgs",
            Resource::Shipments => "shipments",
            Resource::Orders => "orders",
            Resource::OrderChannels => "order_channels",
            Resource::Carriers => "carriers",
            Resource::SenderAddresses => "sender_addresses",
            Resource::ShippingRules => "shipping_rules",
            Resource::Webhooks => "webhooks",
            Resource::ApiTokens => "api_tokens",
            Resource::Billing => "billing",
            Resource::Printers => "printers",
        }
    }

    /// The resource in words, for people (the consent page).
    pub fn label(self) -> &'static str {
        match self {
            Resource::Orgs => "Organization settings",
            Resource::Shipments => "Shipments and labels",
            Resource::Orders => "Orders",
            Resource::OrderChannels => "Order channels",
            Resource::Carriers => "Carriers",
            Resource::SenderAddresses => "Sender addresses",
            Resource::ShippingRules => "Shipping rules and rates",
            Resource::Webhooks => "Webhooks",
            Resource::ApiTokens => "API tokens",
            Resource::Billing => "Plan and usage",
            Resource::Printers => "Printers and print jobs",
        }
    }

    pub fn from_name(name: &str) -> Option<Resource> {
        Resource::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// Read or write access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Access {
    Read,
    Write,
}

/// One scope: an access level on one resource, or on all of them (`resource: None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scope {
    pub access: Access,
    pub resource: Option<Resource>,
}

impl Scope {
    pub const READ_ALL: Scope = Scope {
        access: Access::Read,
        resource: None,
    };
    pub const WRITE_ALL: Scope = Scope {
        access: Access::Write,
        resource: None,
    };

    pub const fn read(resource: Resource) -> Scope {
        Scope {
            access: Access::Read,
            resource: Some(resource),
        }
    }

    pub const fn write(resource: Resource) -> Scope {
        Scope {
            access: Access::Write,
            resource: Some(resource),
        }
    }

    /// Parses `read:shipments`, `write:all`, …
    pub fn parse(text: &str) -> Option<Scope> {
        let (access, resource) = text.split_once(':')?;
        let access = match access {
            "read" => Access::Read,
            "write" => Access::Write,
            _ => return None,
        };
        let resource = match resource {
            "all" => None,
            name => Some(Resource::from_name(name)?),
        };
        Some(Scope { access, resource })
    }

    /// Whether holding `self` grants `wanted`.
    pub fn grants(self, wanted: Scope) -> bool {
        let access_ok = self.access == Access::Write || wanted.access == Access::Read;
        let resource_ok = self.resource.is_none() || self.resource == wanted.resource;
        access_ok && resource_ok
    }

    /// Every scope a client can ask for, per-resource first, then the two `all` scopes.
    pub fn catalogue() -> Vec<Scope> {
        let mut all: Vec<Scope> = Resource::ALL
            .into_iter()
            .flat_map(|r| [Scope::read(r), Scope::write(r)])
            .collect();
        all.extend([Scope::READ_ALL, Scope::WRITE_ALL]);
        all
    }
}

/// Scopes that are not scopes, named with the scope each most likely meant:
/// `unknown scopes: read:shipment (did you mean "read:shipments"?), fly:away`.
pub fn unknown_scopes(unknown: &[String]) -> String {
    let known: Vec<String> = Scope::catalogue().iter().map(Scope::to_string).collect();
    let named: Vec<String> = unknown
        .iter()
        .map(|item| {
            match crate::model::spelling::suggestion(item, known.iter().map(String::as_str)) {
                Some(close) => format!("{item} (did you mean \"{close}\"?)"),
                None => item.clone(),
            }
        })
        .collect();
    format!("unknown scopes: {}", named.join(", "))
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let access = match self.access {
            Access::Read => "read",
            Access::Write => "write",
        };
        write!(
            f,
            "{access}:{}",
            self.resource.map_or("all", Resource::name)
        )
    }
}

/// The scopes a credential holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScopeSet(Vec<Scope>);

impl ScopeSet {
    /// Sorted and without duplicates.
    pub fn new(mut scopes: Vec<Scope>) -> ScopeSet {
        scopes.sort();
        scopes.dedup();
        ScopeSet(scopes)
    }

    pub fn everything() -> ScopeSet {
        ScopeSet::new(vec![Scope::READ_ALL, Scope::WRITE_ALL])
    }

    /// Parses a space- or comma-separated list; returns the unknown entries on failure.
    pub fn parse(text: &str) -> Result<ScopeSet, Vec<String>> {
        Self::parse_all(text.split([' ', ',']).filter(|s| !s.is_empty()))
    }

    pub fn parse_all<'a>(
        items: impl IntoIterator<Item = &'a str>,
    ) -> Result<ScopeSet, Vec<String>> {
        let mut scopes = Vec::new();
        let mut unknown = Vec::new();
        for item in items {
            match Scope::parse(item) {
                Some(scope) => scopes.push(scope),
                None => unknown.push(item.to_string()),
            }
        }
        if unknown.is_empty() {
            Ok(ScopeSet::new(scopes))
        } else {
            Err(unknown)
        }
    }

    pub fn grants(&self, wanted: Scope) -> bool {
        self.0.iter().any(|held| held.grants(wanted))
    }

    /// Whether every scope of `other` is granted by this set (no widening).
    pub fn covers(&self, other: &ScopeSet) -> bool {
        other.0.iter().all(|wanted| match wanted.resource {
            Some(_) => self.grants(*wanted),
            None => self
                .0
                .iter()
                .any(|held| held.resource.is_none() && held.grants(*wanted)),
        })
    }

    /// What both sets grant: the scopes of a credential under its holder's role cap. `all`
    /// stays `all` when both grant it on every resource.
    pub fn intersect(&self, other: &ScopeSet) -> ScopeSet {
        if other.is_everything() {
            return self.clone();
        }
        if self.is_everything() {
            return other.clone();
        }
        let both = |scope: Scope| self.grants(scope) && other.grants(scope);
        let every =
            |access: fn(Resource) -> Scope| Resource::ALL.into_iter().all(|r| both(access(r)));
        let (write_all, read_all) = (every(Scope::write), every(Scope::read));
        let mut scopes = Vec::new();
        if write_all {
            scopes.push(Scope::WRITE_ALL);
        }
        if read_all {
            scopes.push(Scope::READ_ALL);
        }
        for r in Resource::ALL.into_iter().filter(|_| !write_all) {
            if both(Scope::write(r)) {
                scopes.push(Scope::write(r));
            } else if !read_all && both(Scope::read(r)) {
                scopes.push(Scope::read(r));
            }
        }
        ScopeSet::new(scopes)
    }

    /// Whether the set grants everything (`write:all`).
    fn is_everything(&self) -> bool {
        self.0.contains(&Scope::WRITE_ALL)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = Scope> + '_ {
        self.0.iter().copied()
    }

    pub fn to_strings(&self) -> Vec<String> {
        self.0.iter().map(Scope::to_string).collect()
    }
}

impl fmt::Display for ScopeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_strings().join(" "))
    }
}

/// On the wire a scope is its name (`read:shipments`), one of the catalogue.
mod wire {
    use std::borrow::Cow;

    use poem_openapi::{
        registry::{MetaSchema, MetaSchemaRef, Registry},
        types::{ParseError, ParseFromJSON, ParseResult, ToJSON, Type},
    };
    use serde_json::Value;

    use super::{Scope, ScopeSet};

    impl Type for Scope {
        const IS_REQUIRED: bool = true;
        type RawValueType = Self;
        type RawElementValueType = Self;

        fn name() -> Cow<'static, str> {
            "Scope".into()
        }

        fn schema_ref() -> MetaSchemaRef {
            MetaSchemaRef::Reference("Scope".into())
        }

        fn register(registry: &mut Registry) {
            registry.create_schema::<Self, _>("Scope".into(), |_| MetaSchema {
                description: Some(
                    "`read:<resource>`, `write:<resource>`, `read:all` or `write:all`",
                ),
                enum_items: Scope::catalogue()
                    .iter()
                    .map(|s| Value::String(s.to_string()))
                    .collect(),
                ..MetaSchema::new("string")
            });
        }

        fn as_raw_value(&self) -> Option<&Self> {
            Some(self)
        }

        fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self> + 'a> {
            Box::new(std::iter::once(self))
        }
    }

    impl ToJSON for Scope {
        fn to_json(&self) -> Option<Value> {
            Some(Value::String(self.to_string()))
        }
    }

    impl ParseFromJSON for Scope {
        fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
            match value {
                Some(Value::String(text)) => Scope::parse(&text)
                    .ok_or_else(|| ParseError::custom(format!("unknown scope {text}"))),
                other => Err(ParseError::expected_type(other.unwrap_or_default())),
            }
        }
    }

    impl Type for ScopeSet {
        const IS_REQUIRED: bool = true;
        type RawValueType = Self;
        type RawElementValueType = Scope;

        fn name() -> Cow<'static, str> {
            "[Scope]".into()
        }

        fn schema_ref() -> MetaSchemaRef {
            Vec::<Scope>::schema_ref()
        }

        fn register(registry: &mut Registry) {
            Scope::register(registry);
        }

        fn as_raw_value(&self) -> Option<&Self> {
            Some(self)
        }

        fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Scope> + 'a> {
            Box::new(self.0.iter())
        }

        fn is_empty(&self) -> bool {
            self.0.is_empty()
        }
    }

    impl ToJSON for ScopeSet {
        fn to_json(&self) -> Option<Value> {
            self.0.to_json()
        }
    }

    impl ParseFromJSON for ScopeSet {
        fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
            Vec::<Scope>::parse_from_json(value)
                .map(ScopeSet::new)
                .map_err(ParseError::propagate)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(text: &str) -> ScopeSet {
        ScopeSet::parse(text).unwrap_or_default()
    }

    #[test]
    fn every_catalogue_scope_round_trips() {
        for scope in Scope::catalogue() {
            assert_eq!(Scope::parse(&scope.to_string()), Some(scope));
        }
        assert_eq!(Scope::catalogue().len(), 24);
    }

    #[test]
    fn unknown_scopes_are_reported() {
        assert_eq!(
            ScopeSet::parse("read:shipments fly:away read:nothing"),
            Err(vec!["fly:away".to_string(), "read:nothing".to_string()])
        );
    }

    #[test]
    fn write_implies_read_of_the_same_resource_only() {
        let s = set("write:shipments");
        assert!(s.grants(Scope::read(Resource::Shipments)));
        assert!(s.grants(Scope::write(Resource::Shipments)));
        assert!(!s.grants(Scope::read(Resource::Carriers)));
    }

    #[test]
    fn read_all_grants_every_read_and_no_write() {
        let s = set("read:all");
        for r in Resource::ALL {
            assert!(s.grants(Scope::read(r)));
            assert!(!s.grants(Scope::write(r)));
        }
    }

    #[test]
    fn write_all_grants_everything() {
        let s = set("write:all");
        for scope in Scope::catalogue() {
            assert!(s.grants(scope), "{scope}");
        }
    }

    #[test]
    fn covers_never_widens() {
        assert!(set("read:all write:all").covers(&set("write:orders read:all")));
        assert!(set("write:orders").covers(&set("read:orders")));
        assert!(!set("write:orders").covers(&set("read:all")));
        assert!(!set("read:all").covers(&set("write:orders")));
        assert!(!set("read:all").covers(&set("write:all")));
        assert!(set("write:all").covers(&set("read:all")));
    }

    #[test]
    fn an_intersection_grants_what_both_grant() {
        let set = |text: &str| ScopeSet::parse(text).unwrap_or_default();
        assert_eq!(
            set("read:all write:all").intersect(&set("read:all write:all")),
            set("read:all write:all")
        );
        assert_eq!(
            set("read:all write:shipments")
                .intersect(&set("write:shipments write:orders read:orgs")),
            set("write:shipments read:orders read:orgs")
        );
        assert_eq!(
            set("write:all").intersect(&set("read:all write:orders")),
            set("read:all write:orders")
        );
        assert_eq!(set("write:webhooks").intersect(&set("read:orgs")), set(""));
        let narrowed = set("read:all write:all").intersect(&set("read:all write:shipments"));
        assert!(narrowed.covers(&set("read:all")));
        assert!(!narrowed.covers(&set("write:orders")));
    }
}
