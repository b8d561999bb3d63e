//! The shipping rule builder's form and the rule body it stands for: inputs are named after
//! the body's fields (`conditions[0].min`), so a problem the operation reports finds its input.
//! Money is in major units on the form (49.50) for every condition type; the API counts the
//! subtotal of `priceRange` and `price` in cents (DESIGN §11), so those are converted here.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

/// A condition row's inputs, after `conditions[i].`.
pub(super) const CONDITION_INPUTS: [&str; 7] = [
    "type",
    "min",
    "max",
    "operator",
    "value",
    "shippingPrice",
    "currency",
];

/// The yes/no settings: input name, label.
pub(super) const SWITCHES: [(&str, &str); 8] = [
    (
        "emailNotification",
        "E-mail the receiver about the shipment",
    ),
    ("phoneNotification", "Text the receiver about the shipment"),
    ("generateProformaInvoice", "Make a proforma invoice"),
    ("generateCommercialInvoice", "Make a commercial invoice"),
    ("generatePackingList", "Make a packing list"),
    ("autoPrintLabels", "Print labels when booked"),
    (
        "autoPrintDocuments",
        "Print the other documents when booked",
    ),
    (
        "autoCreateReturnShipment",
        "Make the return shipment when booked",
    ),
];

/// What a posted builder form holds: its values by input name, the services ticked, and how
/// many condition and parameter rows it has.
#[derive(Debug, Default)]
pub(super) struct RuleForm {
    pub values: BTreeMap<String, String>,
    pub services: BTreeSet<String>,
    pub conditions: usize,
    pub parameters: usize,
}

/// Whether a condition type's bounds and value are money (cents in the API).
fn in_cents(kind: &str) -> bool {
    matches!(kind, "priceRange" | "price")
}

/// `text` as a number ("1,5" too), or None when it is none.
fn number(text: &str, scale: f64) -> Option<Value> {
    match text.replace(',', ".").parse::<f64>() {
        Ok(n) if n.is_finite() => Some(json!((n * scale * 100.0).round() / 100.0)),
        _ => None,
    }
}

const NOT_A_NUMBER: &str = "must be a number, such as 49.50";

/// A number as the form shows it: no trailing ".0".
fn shown(value: &Value, scale: f64) -> Option<String> {
    let n = value.as_f64()? / scale;
    Some(if n.fract() == 0.0 {
        format!("{n:.0}")
    } else {
        format!("{n}")
    })
}

impl RuleForm {
    /// The form of a posted body's fields.
    pub fn posted(fields: &[(String, String)]) -> RuleForm {
        let mut form = RuleForm::default();
        for (name, value) in fields {
            if name == "csrf_token" || name == "action" {
                continue;
            }
            if name == "services" {
                form.services.insert(value.clone());
                continue;
            }
            let value = value.trim().to_string();
            if let Some(i) = row_of(name, "conditions[") {
                form.conditions = form.conditions.max(i + 1);
            }
            if let Some(i) = row_of(name, "additionalParameters[") {
                form.parameters = form.parameters.max(i + 1);
            }
            form.values.insert(name.clone(), value);
        }
        form
    }

    /// The form showing a stored rule (its list form, as the API answers it).
    pub fn of_rule(rule: &Value) -> RuleForm {
        let mut form = RuleForm::default();
        let mut set = |name: String, value: Option<String>| {
            if let Some(value) = value {
                form.values.insert(name, value);
            }
        };
        for key in [
            "name",
            "description",
            "senderAddressId",
            "labelPrinterId",
            "documentPrinterId",
            "returnShippingRuleId",
        ] {
            set(key.into(), rule[key].as_str().map(str::to_string));
        }
        if let (Some(carrier), Some(product)) =
            (rule["carrierId"].as_str(), rule["productId"].as_str())
        {
            set("product".into(), Some(format!("{carrier}|{product}")));
        }
        let countries: Vec<&str> = rule["receivingCountries"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        set("receivingCountries".into(), Some(countries.join(" ")));
        for (key, _) in SWITCHES {
            if rule[key] == json!(true) {
                set(key.into(), Some("on".into()));
            }
        }
        let conditions = rule["conditions"].as_array().cloned().unwrap_or_default();
        for (i, c) in conditions.iter().enumerate() {
            let kind = c["type"].as_str().unwrap_or_default();
            let scale = if in_cents(kind) { 100.0 } else { 1.0 };
            set(format!("conditions[{i}].type"), Some(kind.to_string()));
            for key in ["min", "max", "value"] {
                set(format!("conditions[{i}].{key}"), shown(&c[key], scale));
            }
            set(
                format!("conditions[{i}].operator"),
                c["operator"].as_str().map(str::to_string),
            );
            set(
                format!("conditions[{i}].shippingPrice"),
                shown(&c["shippingPrice"], 1.0),
            );
            set(
                format!("conditions[{i}].currency"),
                c["currency"].as_str().map(str::to_string),
            );
        }
        let parameters = rule["additionalParameters"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for (i, p) in parameters.iter().enumerate() {
            for key in ["name", "val"] {
                set(
                    format!("additionalParameters[{i}].{key}"),
                    p[key].as_str().map(str::to_string),
                );
            }
        }
        form.services = rule["services"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect();
        form.conditions = conditions.len();
        form.parameters = parameters.len();
        form
    }

    fn get(&self, name: &str) -> &str {
        self.values.get(name).map_or("", String::as_str)
    }

    /// The rule body (SPEC ShippingRule, writable fields) the form stands for, and for each
    /// condition and parameter of the body the form row it came from (blank rows are left out).
    /// An input that should hold a number and does not is a problem of the form itself, in
    /// `RuleBody::unreadable`; the body then holds 0 in its place, so that it must not be saved
    /// but can still be checked for its other problems.
    pub fn body(&self) -> RuleBody {
        let mut unreadable = BTreeMap::new();
        let mut body = Map::new();
        body.insert("name".into(), json!(self.get("name")));
        let description = self.get("description");
        if !description.is_empty() {
            body.insert("description".into(), json!(description));
        }
        let (carrier, product) = self.get("product").split_once('|').unwrap_or_default();
        body.insert("carrierId".into(), json!(carrier));
        body.insert("productId".into(), json!(product));
        body.insert("services".into(), json!(self.services));
        body.insert("senderAddressId".into(), json!(self.get("senderAddressId")));
        let countries: Vec<String> = self
            .get("receivingCountries")
            .split([' ', ','])
            .filter(|c| !c.is_empty())
            .map(str::to_ascii_uppercase)
            .collect();
        body.insert("receivingCountries".into(), json!(countries));
        for (key, _) in SWITCHES {
            body.insert(key.into(), json!(!self.get(key).is_empty()));
        }
        for key in [
            "labelPrinterId",
            "documentPrinterId",
            "returnShippingRuleId",
        ] {
            let id = self.get(key);
            if !id.is_empty() {
                body.insert(key.into(), json!(id));
            }
        }
        let mut condition_rows = Vec::new();
        let mut conditions = Vec::new();
        for i in 0..self.conditions {
            let at = |key: &str| self.get(&format!("conditions[{i}].{key}")).to_string();
            let kind = at("type");
            if kind.is_empty() {
                continue;
            }
            let scale = if in_cents(&kind) { 100.0 } else { 1.0 };
            let mut c = Map::new();
            c.insert("type".into(), json!(kind));
            let mut read = |key: &str, scale: f64| {
                let text = at(key);
                number(&text, scale).unwrap_or_else(|| {
                    unreadable.insert(format!("conditions[{i}].{key}"), NOT_A_NUMBER.to_string());
                    json!(0)
                })
            };
            for key in ["min", "max", "value"] {
                if !at(key).is_empty() {
                    c.insert(key.into(), read(key, scale));
                }
            }
            let operator = at("operator");
            if !operator.is_empty() && matches!(kind.as_str(), "price" | "quantity") {
                c.insert("operator".into(), json!(operator));
            }
            c.insert("shippingPrice".into(), read("shippingPrice", 1.0));
            c.insert(
                "currency".into(),
                json!(at("currency").to_ascii_uppercase()),
            );
            conditions.push(Value::Object(c));
            condition_rows.push(i);
        }
        body.insert("conditions".into(), Value::Array(conditions));
        let mut parameter_rows = Vec::new();
        let mut parameters = Vec::new();
        for i in 0..self.parameters {
            let name = self.get(&format!("additionalParameters[{i}].name"));
            let val = self.get(&format!("additionalParameters[{i}].val"));
            if name.is_empty() && val.is_empty() {
                continue;
            }
            parameters.push(json!({"name": name, "val": val}));
            parameter_rows.push(i);
        }
        body.insert("additionalParameters".into(), Value::Array(parameters));
        RuleBody {
            body: Value::Object(body),
            condition_rows,
            parameter_rows,
            unreadable,
        }
    }
}

/// The body a builder form stands for.
#[derive(Debug)]
pub(super) struct RuleBody {
    pub body: Value,
    /// The form row of each of the body's conditions.
    pub condition_rows: Vec<usize>,
    /// The form row of each of the body's carrier parameters.
    pub parameter_rows: Vec<usize>,
    /// Inputs that should hold a number and do not, with their problem.
    pub unreadable: BTreeMap<String, String>,
}

/// The row `i` of an input named `<prefix>i].…`.
fn row_of(name: &str, prefix: &str) -> Option<usize> {
    name.strip_prefix(prefix)?.split(']').next()?.parse().ok()
}

/// The form input a problem of the body's `field` belongs to, given the rows the body's
/// conditions and parameters came from; None for a problem of the form as a whole.
pub(super) fn input_of(field: &str, conditions: &[usize], parameters: &[usize]) -> Option<String> {
    for (prefix, rows) in [
        ("conditions[", conditions),
        ("additionalParameters[", parameters),
    ] {
        if let Some(k) = row_of(field, prefix) {
            let rest = field.split_once(']').map_or("", |(_, r)| r);
            let row = rows.get(k).copied()?;
            return Some(format!("{prefix}{row}]{rest}"));
        }
    }
    let top = field.split(['.', '[']).next().unwrap_or(field);
    match top {
        "carrierId" | "productId" => Some("product".into()),
        "name"
        | "description"
        | "senderAddressId"
        | "receivingCountries"
        | "services"
        | "labelPrinterId"
        | "documentPrinterId"
        | "returnShippingRuleId" => Some(top.into()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posted(pairs: &[(&str, &str)]) -> RuleForm {
        let fields: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        RuleForm::posted(&fields)
    }

    #[test]
    fn the_form_becomes_a_rule_body_with_money_in_the_apis_units() {
        let form = posted(&[
            ("name", "Home delivery"),
            ("product", "car_1|standard"),
            ("services", "sms"),
            ("services", "insurance"),
            ("senderAddressId", "sad_1"),
            ("receivingCountries", "dk, se"),
            ("autoPrintLabels", "on"),
            ("conditions[0].type", ""),
            ("conditions[1].type", "priceRange"),
            ("conditions[1].min", "100"),
            ("conditions[1].max", "499,5"),
            ("conditions[1].shippingPrice", "39"),
            ("conditions[1].currency", "dkk"),
            ("conditions[2].type", "quantity"),
            ("conditions[2].operator", "gte"),
            ("conditions[2].value", "3"),
            ("conditions[2].shippingPrice", "0"),
            ("conditions[2].currency", "DKK"),
            ("additionalParameters[0].name", ""),
            ("additionalParameters[1].name", "pickup"),
            ("additionalParameters[1].val", "yes"),
        ]);
        let RuleBody {
            body,
            condition_rows: conditions,
            parameter_rows: parameters,
            unreadable,
        } = form.body();
        assert!(unreadable.is_empty());
        assert_eq!(body["carrierId"], "car_1");
        assert_eq!(body["services"], json!(["insurance", "sms"]));
        assert_eq!(body["receivingCountries"], json!(["DK", "SE"]));
        assert_eq!(body["autoPrintLabels"], json!(true));
        assert_eq!(body["emailNotification"], json!(false));
        assert_eq!(
            body["conditions"][0],
            json!({"type": "priceRange", "min": 10000.0, "max": 49950.0,
                   "shippingPrice": 39.0, "currency": "DKK"})
        );
        assert_eq!(body["conditions"][1]["value"], json!(3.0));
        assert_eq!(body["conditions"][1]["operator"], "gte");
        assert_eq!(
            body["additionalParameters"],
            json!([{"name": "pickup", "val": "yes"}])
        );
        assert_eq!((conditions, parameters), (vec![1, 2], vec![1]));
    }

    #[test]
    fn a_problem_finds_the_row_it_came_from() {
        let rows = [1, 2];
        assert_eq!(
            input_of("conditions[1].operator", &rows, &[]),
            Some("conditions[2].operator".into())
        );
        assert_eq!(input_of("productId", &rows, &[]), Some("product".into()));
        assert_eq!(
            input_of("receivingCountries[0]", &rows, &[]),
            Some("receivingCountries".into())
        );
        assert_eq!(input_of("somethingElse", &rows, &[]), None);
    }

    #[test]
    fn a_stored_rule_fills_the_form_in_the_forms_units() {
        let rule = json!({
            "name": "Cheap", "carrierId": "car_1", "productId": "standard",
            "receivingCountries": ["DK"], "services": ["sms"], "autoPrintLabels": true,
            "conditions": [{"type": "price", "operator": "lt", "value": 50000.0,
                            "shippingPrice": 49.5, "currency": "DKK"}],
            "additionalParameters": [],
        });
        let form = RuleForm::of_rule(&rule);
        assert_eq!(form.get("product"), "car_1|standard");
        assert_eq!(form.get("conditions[0].value"), "500");
        assert_eq!(form.get("conditions[0].shippingPrice"), "49.5");
        assert_eq!(form.get("autoPrintLabels"), "on");
        assert_eq!(form.conditions, 1);
        assert_eq!(form.body().body["conditions"][0]["value"], json!(50000.0));
    }

    #[test]
    fn an_input_that_is_no_number_is_the_forms_own_problem() {
        let form = posted(&[
            ("conditions[0].type", "weight"),
            ("conditions[0].min", "lots"),
            ("conditions[0].shippingPrice", ""),
            ("conditions[0].currency", "DKK"),
        ]);
        let made = form.body();
        assert_eq!(
            made.unreadable.keys().collect::<Vec<_>>(),
            ["conditions[0].min", "conditions[0].shippingPrice"]
        );
        assert_eq!(made.body["conditions"][0]["min"], json!(0));
    }
}
