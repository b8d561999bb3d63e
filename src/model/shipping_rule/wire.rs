//! A shipping rule's stored representation (the `repr` column) and its full form written from
//! it, byte for byte what `ShippingRule` serializes to.

use crate::model::{
    carrier::Carrier,
    sender_address::SenderAddress,
    shipping_rule::{Ref, ShippingRuleRecord},
    wire::{self, Member},
};

/// What every write of a rule stores: its public JSON without what it refers to (the members of
/// `ShippingRule` but `carrier`, `documentPrinter`, `labelPrinter`, `returnShippingRule` and
/// `senderAddress`). Its reference ids change only through the rule's own writes.
pub fn repr(r: &ShippingRuleRecord) -> String {
    wire::stored(r, None)
}

/// What a rule's full form adds to its representation, read from the rows it refers to.
pub struct Referred<'a> {
    pub carrier: &'a Carrier,
    pub sender_address: &'a SenderAddress,
    pub label_printer: Option<&'a Ref>,
    pub document_printer: Option<&'a Ref>,
    pub return_shipping_rule: Option<&'a Ref>,
}

/// `ShippingRule` from the representation and what it refers to.
pub fn full(repr: &str, referred: &Referred, out: &mut Vec<u8>) -> serde_json::Result<()> {
    let reference = |r: Option<&Ref>| match r {
        Some(r) => wire::to_vec(r),
        None => b"null".to_vec(),
    };
    let carrier = wire::to_vec(referred.carrier);
    let document_printer = reference(referred.document_printer);
    let label_printer = reference(referred.label_printer);
    let return_rule = reference(referred.return_shipping_rule);
    let sender_address = wire::to_vec(referred.sender_address);
    let extra: [Member; 5] = [
        ("carrier", &carrier),
        ("documentPrinter", &document_printer),
        ("labelPrinter", &label_printer),
        ("returnShippingRule", &return_rule),
        ("senderAddress", &sender_address),
    ];
    wire::merge(repr, |_| true, &extra, out)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::{
        arbitrary::{address, carrier, reference, rule},
        shipping_rule::{ShippingRule, ShippingRuleIn},
    };

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn the_full_form_is_the_models(
            rule in rule(),
            carrier in carrier(),
            sender_address in address(),
            (label_printer, document_printer, return_shipping_rule) in (
                prop::option::of(reference()),
                prop::option::of(reference()),
                prop::option::of(reference()),
            ),
        ) {
            let mut out = Vec::new();
            let referred = Referred {
                carrier: &carrier,
                sender_address: &sender_address,
                label_printer: label_printer.as_ref(),
                document_printer: document_printer.as_ref(),
                return_shipping_rule: return_shipping_rule.as_ref(),
            };
            full(&repr(&rule), &referred, &mut out).expect("merges");
            let model = ShippingRule {
                rule,
                carrier,
                sender_address,
                label_printer,
                document_printer,
                return_shipping_rule,
            };
            prop_assert_eq!(
                String::from_utf8(out).expect("utf-8"),
                String::from_utf8(wire::to_vec(&model)).expect("utf-8")
            );
        }

        #[test]
        fn the_fields_read_back_from_the_representation(rule in rule()) {
            let fields: ShippingRuleIn = serde_json::from_str(&repr(&rule)).expect("reads");
            prop_assert_eq!(fields, rule.fields);
        }
    }
}
