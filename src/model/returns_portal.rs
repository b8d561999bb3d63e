//! The returns portal's settings: whether the organization's customers may start a
//! return themselves at `/r/{slug}`, the shipping rule that creates and books it, and the reasons
//! they pick from.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::model::validate::Violations;

/// Most reasons a portal offers, and their longest text.
pub const MAX_REASONS: usize = 20;
pub const MAX_REASON: usize = 100;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct ReturnsPortal {
    /// Whether the portal is open (off until turned on; it needs a shipping rule).
    #[oai(default)]
    pub enabled: bool,
    /// The shipping rule whose carrier and product create and book the return.
    pub shipping_rule_id: Option<String>,
    /// The reasons a customer picks from, in this order.
    #[oai(default)]
    pub reasons: Vec<String>,
}

impl ReturnsPortal {
    /// Shape rules; the rule's existence is checked by the service.
    pub fn check(&self, errors: &mut Violations) {
        if self.enabled && self.shipping_rule_id.is_none() {
            errors.add("shippingRuleId", "is required to open the portal");
        }
        if let Some(rule) = &self.shipping_rule_id {
            errors.length("shippingRuleId", rule, 1, 100);
        }
        if self.reasons.len() > MAX_REASONS {
            errors.add(
                "reasons",
                format!("must contain at most {MAX_REASONS} items"),
            );
        }
        for (i, reason) in self.reasons.iter().enumerate() {
            errors.length(format!("reasons[{i}]"), reason.trim(), 1, MAX_REASON);
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, reason) in self.reasons.iter().enumerate() {
            if !seen.insert(reason.trim().to_lowercase()) {
                errors.add(format!("reasons[{i}]"), "is given twice");
            }
        }
    }
}
