//! An order's stored representation (the `repr` column) and its full form written from it, byte
//! for byte what `Order` serializes to.

use crate::model::{
    order::OrderRecord,
    order_channel::OrderChannelRef,
    shipping_rule::ShippingRuleSummary,
    wire::{self, Member},
};

/// The one member of an order's public JSON its stored representation leaves out: deleting a
/// rule clears it in the row alone (`ON DELETE SET NULL`), so answers take it from the column.
const RULE_ID: &str = "shippingRuleId";

/// What every write of an order stores: its public JSON (the members of `Order` but
/// `orderChannel`, `shipments`, `shippingRule` and `shippingRuleId`).
pub fn repr(o: &OrderRecord) -> String {
    wire::stored(o, Some(RULE_ID))
}

/// `Order` from the representation, the rule id of the row, the channel, the JSON array of the
/// order's shipments (`shipment::wire::summary` each) and the rule.
pub fn full(
    repr: &str,
    shipping_rule_id: Option<&str>,
    channel: &OrderChannelRef,
    shipments: &[u8],
    rule: Option<&ShippingRuleSummary>,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    let channel = wire::to_vec(channel);
    let rule = match rule {
        Some(rule) => wire::to_vec(rule),
        None => b"null".to_vec(),
    };
    let rule_id = serde_json::to_vec(&shipping_rule_id)?;
    let extra: [Member; 4] = [
        ("orderChannel", &channel),
        ("shipments", shipments),
        ("shippingRule", &rule),
        (RULE_ID, &rule_id),
    ];
    wire::merge(repr, |_| true, &extra, out)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::{
        arbitrary::{document, order, rule_summary, shipment, text},
        order::{Order, OrderBody},
        shipment::{ShipmentSummary, wire as shipment_wire},
    };

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn the_full_form_is_the_models(
            order in order(),
            (channel_id, channel_name, channel_kind) in (text(), text(), text()),
            shipments in prop::collection::vec(
                (shipment(), prop::collection::vec(document(), 0..2)),
                0..3,
            ),
            rule in prop::option::of(rule_summary()),
        ) {
            let channel = OrderChannelRef { id: channel_id, name: channel_name, kind: channel_kind };
            let summaries: Vec<Vec<u8>> = shipments
                .iter()
                .map(|(s, documents)| {
                    let mut out = Vec::new();
                    shipment_wire::summary(
                        &shipment_wire::repr(s),
                        s.shipping_rule_id.as_deref(),
                        documents,
                        &mut out,
                    )
                    .expect("merges");
                    out
                })
                .collect();
            let mut list = Vec::new();
            wire::array(summaries.iter().map(Vec::as_slice), &mut list);
            let mut out = Vec::new();
            full(
                &repr(&order),
                order.shipping_rule_id.as_deref(),
                &channel,
                &list,
                rule.as_ref(),
                &mut out,
            )
            .expect("merges");
            let model = Order {
                order,
                order_channel: channel,
                shipments: shipments
                    .into_iter()
                    .map(|(s, documents)| ShipmentSummary::new(s, documents))
                    .collect(),
                shipping_rule: rule,
            };
            prop_assert_eq!(
                String::from_utf8(out).expect("utf-8"),
                String::from_utf8(wire::to_vec(&model)).expect("utf-8")
            );
        }

        #[test]
        fn the_model_reads_its_parts_from_the_representation(order in order()) {
            let body: OrderBody = serde_json::from_str(&repr(&order)).expect("reads");
            prop_assert_eq!(body, order.body);
        }
    }
}
