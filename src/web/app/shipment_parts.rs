//! The New shipment form's parcels and goods (DESIGN §20): parcel rows (`parcels[i].weight`)
//! and line rows (`lines[j].sku`, … and `lines[j].parcel`, the parcel's number), as the
//! shipment body's parcels with their order lines; the basket the rules quote for them; and
//! the row a problem of the body came from.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// A line row's inputs after `lines[j].`: name, label.
pub(super) const LINE_INPUTS: [(&str, &str); 6] = [
    ("sku", "SKU"),
    ("description", "Description"),
    ("quantity", "Quantity"),
    ("unitPrice", "Unit price"),
    ("countryOfOrigin", "Made in (country)"),
    ("tarrifNumber", "Tariff number"),
];

/// How many parcel and line rows a form's values have.
pub(super) fn rows(values: &BTreeMap<String, String>) -> (usize, usize) {
    let count = |prefix: &str| {
        values
            .keys()
            .filter_map(|k| {
                k.strip_prefix(prefix)?
                    .split(']')
                    .next()?
                    .parse::<usize>()
                    .ok()
            })
            .map(|i| i + 1)
            .max()
            .unwrap_or(0)
    };
    (count("parcels["), count("lines["))
}

/// `text` as a number ("1,5" too); the text itself when it is none, so the operation names it.
fn number(text: &str) -> Value {
    match text.replace(',', ".").parse::<f64>() {
        Ok(n) if n.is_finite() => json!(n),
        _ => json!(text),
    }
}

/// The shipment body's parcels the rows describe, and where each body part came from: for
/// parcel k its row, for line m of parcel k its row. Blank rows are left out; a line whose
/// parcel number names no parcel row goes in the first parcel.
pub(super) struct Packed {
    pub parcels: Vec<Value>,
    pub parcel_rows: Vec<usize>,
    pub line_rows: Vec<Vec<usize>>,
}

pub(super) fn packed(values: &BTreeMap<String, String>) -> Packed {
    let get = |name: String| values.get(&name).cloned().unwrap_or_default();
    let (parcel_count, line_count) = rows(values);
    let mut parcel_rows = Vec::new();
    for i in 0..parcel_count {
        if !get(format!("parcels[{i}].weight")).is_empty() {
            parcel_rows.push(i);
        }
    }
    if parcel_rows.is_empty() {
        parcel_rows.push(0);
    }
    let mut lines: Vec<Vec<(usize, Value)>> = vec![Vec::new(); parcel_rows.len()];
    for j in 0..line_count {
        let at = |key: &str| get(format!("lines[{j}].{key}"));
        if LINE_INPUTS.iter().all(|(key, _)| at(key).is_empty()) {
            continue;
        }
        let mut line = Map::new();
        line.insert("sku".into(), json!(at("sku")));
        let quantity = at("quantity");
        line.insert(
            "quantity".into(),
            quantity
                .parse::<i64>()
                .map_or(json!(quantity), |q| json!(q)),
        );
        for key in ["description", "tarrifNumber"] {
            if !at(key).is_empty() {
                line.insert(key.into(), json!(at(key)));
            }
        }
        if !at("countryOfOrigin").is_empty() {
            line.insert(
                "countryOfOrigin".into(),
                json!(at("countryOfOrigin").to_ascii_uppercase()),
            );
        }
        if !at("unitPrice").is_empty() {
            line.insert("unitPrice".into(), number(&at("unitPrice")));
            let currency = get("currency".to_string()).to_ascii_uppercase();
            if !currency.is_empty() {
                line.insert("currency".into(), json!(currency));
            }
        }
        let parcel = at("parcel")
            .parse::<usize>()
            .ok()
            .and_then(|n| parcel_rows.iter().position(|row| *row + 1 == n))
            .unwrap_or(0);
        lines[parcel].push((j, Value::Object(line)));
    }
    let mut parcels = Vec::new();
    let mut line_rows = Vec::new();
    for (k, row) in parcel_rows.iter().enumerate() {
        let weight = get(format!("parcels[{row}].weight"));
        let (rows, order_lines): (Vec<usize>, Vec<Value>) =
            std::mem::take(&mut lines[k]).into_iter().unzip();
        parcels.push(json!({"weight": number(&weight), "orderLines": order_lines}));
        line_rows.push(rows);
    }
    Packed {
        parcels,
        parcel_rows,
        line_rows,
    }
}

impl Packed {
    /// The form input a problem of the body's `parcels[…]` field belongs to.
    pub fn input_of(&self, field: &str) -> Option<String> {
        let rest = field.strip_prefix("parcels[")?;
        let (k, rest) = rest.split_once(']')?;
        let k: usize = k.parse().ok()?;
        if let Some(line) = rest.strip_prefix(".orderLines[") {
            let (m, key) = line.split_once(']')?;
            let row = self.line_rows.get(k)?.get(m.parse::<usize>().ok()?)?;
            let key = key.strip_prefix('.').unwrap_or("sku");
            return Some(format!("lines[{row}].{key}"));
        }
        let row = self.parcel_rows.get(k)?;
        Some(format!("parcels[{row}].weight"))
    }

    /// The basket the rules price (DESIGN §11): each line an item (its price in cents, the
    /// parcels' weight spread over the units), or one item of the whole weight without lines.
    pub fn basket(&self, country: &str) -> Value {
        let kg: f64 = self
            .parcels
            .iter()
            .filter_map(|p| p["weight"].as_f64())
            .sum();
        let lines: Vec<&Value> = self
            .parcels
            .iter()
            .flat_map(|p| p["orderLines"].as_array().into_iter().flatten())
            .collect();
        let units: i64 = lines
            .iter()
            .filter_map(|l| l["quantity"].as_i64())
            .filter(|q| *q > 0)
            .sum();
        let items: Vec<Value> = if units == 0 {
            vec![json!({"quantity": 1, "grams": kg * 1000.0, "price": 0})]
        } else {
            let grams = kg * 1000.0 / units as f64;
            lines
                .iter()
                .filter_map(|l| {
                    let quantity = l["quantity"].as_i64().filter(|q| *q > 0)?;
                    let price = (l["unitPrice"].as_f64().unwrap_or(0.0) * 100.0).round();
                    Some(json!({"quantity": quantity, "grams": grams, "price": price}))
                })
                .collect()
        };
        json!({"destination": {"country": country}, "items": items})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn rows_become_parcels_with_their_lines_and_problems_find_their_rows() {
        let v = values(&[
            ("parcels[0].weight", ""),
            ("parcels[1].weight", "2,5"),
            ("parcels[2].weight", "1"),
            ("currency", "dkk"),
            ("lines[0].sku", "MUG"),
            ("lines[0].quantity", "2"),
            ("lines[0].unitPrice", "49.5"),
            ("lines[0].parcel", "3"),
            ("lines[1].sku", ""),
            ("lines[2].sku", "TEE"),
            ("lines[2].quantity", "x"),
            ("lines[2].parcel", "1"),
        ]);
        let packed = packed(&v);
        assert_eq!(packed.parcel_rows, [1, 2]);
        assert_eq!(packed.parcels[0]["weight"], json!(2.5));
        assert_eq!(packed.parcels[0]["orderLines"][0]["quantity"], json!("x"));
        assert_eq!(
            packed.parcels[1]["orderLines"][0],
            json!({"sku": "MUG", "quantity": 2, "unitPrice": 49.5, "currency": "DKK"})
        );
        assert_eq!(
            packed
                .input_of("parcels[0].orderLines[0].quantity")
                .as_deref(),
            Some("lines[2].quantity")
        );
        assert_eq!(
            packed.input_of("parcels[1].weight").as_deref(),
            Some("parcels[2].weight")
        );
        let basket = packed.basket("DK");
        assert_eq!(
            basket["items"],
            json!([{"quantity": 2, "grams": 1750.0, "price": 4950.0}])
        );
    }

    #[test]
    fn without_lines_the_basket_is_the_weight() {
        let packed = packed(&values(&[("parcels[0].weight", "3")]));
        assert_eq!(
            packed.basket("SE")["items"],
            json!([{"quantity": 1, "grams": 3000.0, "price": 0}])
        );
    }
}
