//! JSON Schema for tool inputs, made from the OpenAPI 3.0 document's schemas: `$ref`s into
//! `#/components/schemas` become `#/$defs` (with every schema they reach), and OpenAPI's
//! `nullable: true` becomes a `null` alternative.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

const COMPONENTS: &str = "#/components/schemas/";

/// `schema` in JSON Schema terms, adding what it refers to into `defs`.
pub fn convert(
    schema: &Value,
    components: &Map<String, Value>,
    defs: &mut BTreeMap<String, Value>,
) -> Value {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref")
                && let Some(name) = reference.strip_prefix(COMPONENTS)
            {
                if !defs.contains_key(name) {
                    // Reserve the name first: schemas may refer to themselves.
                    defs.insert(name.to_string(), Value::Null);
                    let target = components.get(name).cloned().unwrap_or_else(|| json!({}));
                    let converted = convert(&target, components, defs);
                    defs.insert(name.to_string(), converted);
                }
                return json!({"$ref": format!("#/$defs/{name}")});
            }
            let mut out = Map::new();
            for (key, value) in map {
                match key.as_str() {
                    "nullable" | "discriminator" | "xml" | "externalDocs" => {}
                    // OpenAPI 3.0's one example is JSON Schema's list of examples.
                    "example" => {
                        out.insert("examples".into(), json!([value]));
                    }
                    "properties" => {
                        let properties = value
                            .as_object()
                            .map(|props| {
                                props
                                    .iter()
                                    .map(|(k, v)| (k.clone(), convert(v, components, defs)))
                                    .collect::<Map<_, _>>()
                            })
                            .unwrap_or_default();
                        out.insert(key.clone(), Value::Object(properties));
                    }
                    "items" | "additionalProperties" | "not" => {
                        out.insert(key.clone(), convert(value, components, defs));
                    }
                    "allOf" | "anyOf" | "oneOf" => {
                        let items = value
                            .as_array()
                            .map(|items| {
                                items.iter().map(|i| convert(i, components, defs)).collect()
                            })
                            .unwrap_or_default();
                        out.insert(key.clone(), Value::Array(items));
                    }
                    _ => {
                        out.insert(key.clone(), value.clone());
                    }
                }
            }
            if map.get("nullable") == Some(&Value::Bool(true)) {
                nullable(out)
            } else {
                Value::Object(out)
            }
        }
        other => other.clone(),
    }
}

/// A schema that also accepts `null`.
fn nullable(mut schema: Map<String, Value>) -> Value {
    match schema.get("type").cloned() {
        Some(Value::String(kind)) => {
            schema.insert("type".into(), json!([kind, "null"]));
            if let Some(Value::Array(values)) = schema.get_mut("enum") {
                values.push(Value::Null);
            }
            Value::Object(schema)
        }
        _ => json!({"anyOf": [Value::Object(schema), {"type": "null"}]}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_become_defs_nullable_a_null_alternative_and_an_example_examples() {
        let components: Map<String, Value> = serde_json::from_value(json!({
            "Party": {"type": "object", "properties": {"name": {"type": "string"}, "next": {"$ref": "#/components/schemas/Party"}}},
            "Kind": {"type": "string", "enum": ["a", "b"]}
        }))
        .unwrap_or_default();
        let mut defs = BTreeMap::new();
        let schema = json!({"type": "object", "properties": {
            "party": {"allOf": [{"$ref": "#/components/schemas/Party"}], "nullable": true},
            "kind": {"type": "string", "enum": ["a"], "nullable": true},
            "note": {"type": "string", "nullable": true, "example": "x"}
        }});
        let converted = convert(&schema, &components, &mut defs);
        assert_eq!(
            converted["properties"]["party"],
            json!({"anyOf": [{"allOf": [{"$ref": "#/$defs/Party"}]}, {"type": "null"}]})
        );
        assert_eq!(
            converted["properties"]["kind"],
            json!({"type": ["string", "null"], "enum": ["a", null]})
        );
        assert_eq!(
            converted["properties"]["note"],
            json!({"type": ["string", "null"], "examples": ["x"]})
        );
        assert_eq!(
            defs["Party"]["properties"]["next"],
            json!({"$ref": "#/$defs/Party"})
        );
        assert!(!defs.contains_key("Kind"));
    }
}
