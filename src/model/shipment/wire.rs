//! A shipment's stored representation (the `repr` column) and the answers written from it: the
//! full form and the list item, byte for byte what their models serialize to.

pub use super::repr::Gaps;

use crate::model::{
    document::Document,
    shipment::ShipmentRecord,
    shipping_rule::ShippingRuleSummary,
    wire::{self, Member},
};

/// The one member of a shipment's public JSON its stored representation leaves out: deleting a
/// rule clears it in the row alone (`ON DELETE SET NULL`), so answers take it from the column.
const RULE_ID: &str = "shippingRuleId";

/// The members of a list item taken from the representation; `senderAddress` is added.
const LIST_MEMBERS: [&str; 7] = [
    "carrierSettings",
    "createdAt",
    "id",
    "reference",
    "status",
    "type",
    "updatedAt",
];

/// The members of a shipment summary (an order's shipments) taken from the representation;
/// `documents` and `shippingRuleId` are added.
const SUMMARY_MEMBERS: [&str; 8] = [
    "carrierSettings",
    "createdAt",
    "id",
    "reference",
    "status",
    "tracking",
    "type",
    "updatedAt",
];

/// What the unit of work stores with every write of a shipment: its public JSON (the members of
/// `Shipment` but `documents`, `shippingRule` and `shippingRuleId`).
pub fn repr(s: &ShipmentRecord) -> String {
    super::repr::write(s)
}

/// A shipment's representation with where the members it leaves out go, written and stored
/// together, so that answers are written around them (`full_at`) without reading it again.
#[derive(Clone)]
pub struct Repr {
    pub text: String,
    pub gaps: Gaps,
}

impl Repr {
    pub fn of(s: &ShipmentRecord) -> Repr {
        let (text, gaps) = super::repr::write_marked(s);
        Repr { text, gaps }
    }

    /// `full` of a new shipment: no documents, no rule.
    pub fn new_answer(&self, out: &mut Vec<u8>) {
        self.gaps.fill(&self.text, b"[]", b"null", b"null", out);
    }
}

/// The carrier product a representation names (`carrierSettings.productId`).
pub fn product_of(repr: &str) -> serde_json::Result<String> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Of {
        carrier_settings: Product,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Product {
        product_id: String,
    }
    Ok(serde_json::from_str::<Of>(repr)?
        .carrier_settings
        .product_id)
}

/// `Shipment` from the representation, the rule id of the row, the documents and the rule.
pub fn full(
    repr: &str,
    shipping_rule_id: Option<&str>,
    documents: &[Document],
    rule: Option<&ShippingRuleSummary>,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    full_at(repr, None, shipping_rule_id, documents, rule, out)
}

/// `full`, written around the representation's gaps when its row has them and they fit it (a
/// row written before V34 has none): the same bytes without reading the representation;
/// merged from it otherwise.
pub fn full_at(
    repr: &str,
    gaps: Option<Gaps>,
    shipping_rule_id: Option<&str>,
    documents: &[Document],
    rule: Option<&ShippingRuleSummary>,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    let list = documents_json(documents);
    let rule = match rule {
        Some(rule) => wire::to_vec(rule),
        None => b"null".to_vec(),
    };
    let rule_id = serde_json::to_vec(&shipping_rule_id)?;
    match gaps.filter(|g| g.fit(repr)) {
        Some(gaps) => {
            gaps.fill(repr, &list, &rule, &rule_id, out);
            Ok(())
        }
        None => {
            let extra: [Member; 3] = [
                ("documents", &list),
                ("shippingRule", &rule),
                (RULE_ID, &rule_id),
            ];
            wire::merge(repr, |_| true, &extra, out)
        }
    }
}

/// `ShipmentListItem` from the representation and the JSON of the sender address.
pub fn list_item(repr: &str, sender_address: &[u8], out: &mut Vec<u8>) -> serde_json::Result<()> {
    wire::merge(
        repr,
        |key| LIST_MEMBERS.contains(&key),
        &[("senderAddress", sender_address)],
        out,
    )
}

/// `ShipmentSummary` from the representation, the rule id of the row and the documents.
pub fn summary(
    repr: &str,
    shipping_rule_id: Option<&str>,
    documents: &[Document],
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    let list = documents_json(documents);
    let rule_id = serde_json::to_vec(&shipping_rule_id)?;
    wire::merge(
        repr,
        |key| SUMMARY_MEMBERS.contains(&key),
        &[("documents", &list), (RULE_ID, &rule_id)],
        out,
    )
}

/// `[document,…]`.
fn documents_json(documents: &[Document]) -> Vec<u8> {
    let documents: Vec<Vec<u8>> = documents.iter().map(wire::to_vec).collect();
    let mut list = Vec::with_capacity(2 + documents.iter().map(Vec::len).sum::<usize>());
    wire::array(documents.iter().map(Vec::as_slice), &mut list);
    list
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::{prelude::*, strategy::ValueTree};
    use serde_json::Value;

    use super::*;
    use crate::model::{
        arbitrary::{address, document, rule_summary, shipment as record},
        shipment::{Shipment, ShipmentBody, ShipmentListItem, ShipmentSummary},
    };

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn the_full_form_is_the_models(
            shipment in record(),
            documents in prop::collection::vec(document(), 0..3),
            rule in prop::option::of(rule_summary()),
        ) {
            let model = Shipment {
                shipment: shipment.clone(),
                documents: documents.clone(),
                shipping_rule: rule.clone(),
            };
            let mut out = Vec::new();
            full(
                &repr(&shipment),
                shipment.shipping_rule_id.as_deref(),
                &documents,
                rule.as_ref(),
                &mut out,
            )
            .expect("merges");
            prop_assert_eq!(String::from_utf8(out).expect("utf-8"), String::from_utf8(wire::to_vec(&model)).expect("utf-8"));
        }

        #[test]
        fn a_new_shipments_answer_is_the_models(mut shipment in record()) {
            shipment.shipping_rule_id = None;
            let written = Repr::of(&shipment);
            prop_assert_eq!(&written.text, &repr(&shipment));
            let mut out = Vec::new();
            written.new_answer(&mut out);
            let model = Shipment {
                shipment,
                documents: Vec::new(),
                shipping_rule: None,
            };
            prop_assert_eq!(String::from_utf8(out).expect("utf-8"), String::from_utf8(wire::to_vec(&model)).expect("utf-8"));
        }

        #[test]
        fn the_full_form_around_the_gaps_is_the_merged_one(
            shipment in record(),
            documents in prop::collection::vec(document(), 0..3),
            rule in prop::option::of(rule_summary()),
        ) {
            let written = Repr::of(&shipment);
            let rule_id = shipment.shipping_rule_id.as_deref();
            let mut merged = Vec::new();
            full(&written.text, rule_id, &documents, rule.as_ref(), &mut merged).expect("merges");
            let mut around = Vec::new();
            full_at(&written.text, Some(written.gaps), rule_id, &documents, rule.as_ref(), &mut around)
                .expect("writes");
            prop_assert_eq!(&around, &merged);
            // Gaps that do not fit the representation (another's) are not used.
            let other = Gaps::at(1, 2).expect("offsets");
            prop_assert!(!other.fit(&written.text));
            let mut fallback = Vec::new();
            full_at(&written.text, Some(other), rule_id, &documents, rule.as_ref(), &mut fallback)
                .expect("merges");
            prop_assert_eq!(&fallback, &merged);
        }

        #[test]
        fn the_model_reads_its_parts_from_the_representation(shipment in record()) {
            let body: ShipmentBody = serde_json::from_str(&repr(&shipment)).expect("reads");
            prop_assert_eq!(body, shipment.body);
        }

        #[test]
        fn the_summary_is_the_models(
            shipment in record(),
            documents in prop::collection::vec(document(), 0..3),
        ) {
            let mut out = Vec::new();
            summary(&repr(&shipment), shipment.shipping_rule_id.as_deref(), &documents, &mut out)
                .expect("merges");
            let model = ShipmentSummary::new(shipment, documents);
            prop_assert_eq!(String::from_utf8(out).expect("utf-8"), String::from_utf8(wire::to_vec(&model)).expect("utf-8"));
        }

        #[test]
        fn the_list_item_is_the_models(shipment in record(), address in address()) {
            let mut out = Vec::new();
            list_item(&repr(&shipment), &wire::to_vec(&address), &mut out).expect("merges");
            let model = ShipmentListItem::new(shipment, address);
            prop_assert_eq!(String::from_utf8(out).expect("utf-8"), String::from_utf8(wire::to_vec(&model)).expect("utf-8"));
        }
    }

    #[test]
    fn the_representation_leaves_the_rule_id_to_the_row() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let mut shipment = record().new_tree(&mut runner).expect("generates").current();
        shipment.shipping_rule_id = Some("rul_1".into());
        let stored: BTreeMap<String, Value> =
            serde_json::from_str(&repr(&shipment)).expect("an object");
        assert!(!stored.contains_key(RULE_ID));
        assert_eq!(stored["id"], Value::String(shipment.id.clone()));
        let mut out = Vec::new();
        full(&repr(&shipment), None, &[], None, &mut out).expect("merges");
        let answer: BTreeMap<String, Value> = serde_json::from_slice(&out).expect("an object");
        assert_eq!(answer[RULE_ID], Value::Null);
        assert_eq!(answer["documents"], Value::Array(Vec::new()));
    }
}
