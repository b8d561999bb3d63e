//! Strict request bodies (DESIGN §5), checked against the schema the OpenAPI document shows for
//! the body's type, before it is decoded: every unknown field (with a suggestion when a known
//! one is close in spelling), every missing required field, and every value of the wrong type
//! or outside its enum is reported at once, each with its path. Free-form objects (carrier
//! `config`, `additionalParameters`, `externalData`, `customs`) take any keys. MCP tool
//! arguments are checked the same way.

use std::{
    any::TypeId,
    cell::RefCell,
    collections::{BTreeMap, HashMap},
    rc::Rc,
};

use poem_openapi::{
    registry::{MetaSchema, MetaSchemaRef, Registry},
    types::Type,
};
use serde_json::Value;

use crate::error::FieldError;

/// The schema of a body type and every schema it refers to.
pub(super) struct Compiled {
    pub(super) root: MetaSchemaRef,
    schemas: BTreeMap<String, MetaSchema>,
    /// `required`'s answers by the address of serde's list of a struct's fields.
    required: RefCell<HashMap<usize, Option<u64>>>,
}

/// The compiled schema of `T`, kept per thread (no lock on the request path).
pub(super) fn compiled<T: Type + 'static>() -> Rc<Compiled> {
    thread_local! {
        static CACHE: RefCell<HashMap<TypeId, Rc<Compiled>>> = RefCell::default();
    }
    CACHE.with(|cache| {
        cache
            .borrow_mut()
            .entry(TypeId::of::<T>())
            .or_insert_with(|| {
                let mut registry = Registry::new();
                T::register(&mut registry);
                Rc::new(Compiled {
                    root: T::schema_ref(),
                    schemas: registry.schemas,
                    required: RefCell::default(),
                })
            })
            .clone()
    })
}

/// Whether the body type's schema is an object with fields of its own (not a free-form one).
pub(super) fn shows_fields(compiled: &Compiled) -> bool {
    resolve_through(compiled, &compiled.root).is_some_and(|s| !s.properties.is_empty())
}

/// The fields of a struct (`fields`, as serde names them) that `compiled` requires, as bits in
/// their order: the union over the schema's objects that have exactly these fields (two structs
/// with the same field names, whose lists the compiler may merge, count as one). `None` when
/// none has them (or there are more than 64).
pub(super) fn required(compiled: &Compiled, fields: &'static [&'static str]) -> Option<u64> {
    *(compiled.required.borrow_mut())
        .entry(fields.as_ptr() as usize)
        .or_insert_with(|| required_of(compiled, fields))
}

fn required_of(compiled: &Compiled, fields: &[&str]) -> Option<u64> {
    if fields.len() > 64 {
        return None;
    }
    let inline = match &compiled.root {
        MetaSchemaRef::Inline(schema) => Some(&**schema),
        MetaSchemaRef::Reference(_) => None,
    };
    let mut found = None;
    for schema in compiled.schemas.values().chain(inline) {
        let same = schema.ty == "object"
            && schema.properties.len() == fields.len()
            && (schema.properties.iter()).all(|(name, _)| fields.contains(name));
        if same {
            let mask = (fields.iter().enumerate())
                .filter(|(_, field)| schema.required.contains(field))
                .fold(0u64, |mask, (i, _)| mask | 1 << i);
            found = Some(found.unwrap_or(0) | mask);
        }
    }
    found
}

/// Everything wrong with `value` as a body of type `T`.
pub fn violations<T: Type + 'static>(value: &Value) -> Vec<FieldError> {
    let compiled = compiled::<T>();
    let mut errors = Vec::new();
    check(&compiled, &compiled.root, value, "", &mut errors);
    errors
}

/// `value` bent to fit `T`'s schema so that the rest of a body's checks can run on it while
/// its shape is wrong: unknown fields dropped, and a value of the wrong type, outside its enum,
/// or missing where required replaced by an empty one of the right type ("", 0, false, [], an
/// object of its required fields, an enum's first value). The errors it papers over are the
/// ones `violations` reports.
pub fn repaired<T: Type + 'static>(value: &Value) -> Value {
    let compiled = compiled::<T>();
    repair(&compiled, &compiled.root, value.clone())
}

fn repair(compiled: &Compiled, schema: &MetaSchemaRef, value: Value) -> Value {
    let Some(schema) = resolve(compiled, schema) else {
        return value;
    };
    let mut value = value;
    for part in &schema.all_of {
        value = repair(compiled, part, value);
    }
    if !schema.any_of.is_empty() || !schema.one_of.is_empty() || schema.ty.is_empty() {
        return value;
    }
    if value.is_null() {
        return if schema.nullable {
            value
        } else {
            empty(compiled, schema)
        };
    }
    match (schema.ty, value) {
        ("object", Value::Object(object)) => repair_object(compiled, schema, object),
        ("array", Value::Array(items)) => Value::Array(match &schema.items {
            Some(item) => items
                .into_iter()
                .map(|v| repair(compiled, item, v))
                .collect(),
            None => items,
        }),
        ("string", Value::String(text))
            if schema.enum_items.is_empty() || schema.enum_items.iter().any(|v| v == &text) =>
        {
            Value::String(text)
        }
        ("integer", v) if v.is_i64() || v.is_u64() => v,
        ("number", v) if v.is_number() => v,
        ("boolean", v) if v.is_boolean() => v,
        ("object" | "array" | "string" | "integer" | "number" | "boolean", _) => {
            empty(compiled, schema)
        }
        (_, v) => v,
    }
}

fn repair_object(
    compiled: &Compiled,
    schema: &MetaSchema,
    object: serde_json::Map<String, Value>,
) -> Value {
    let mut repaired = serde_json::Map::new();
    for (key, v) in object {
        match schema.properties.iter().find(|(name, _)| *name == key) {
            Some((_, property)) => {
                let fixed = repair(compiled, property, v);
                repaired.insert(key, fixed);
            }
            None => match &schema.additional_properties {
                Some(values) => {
                    let fixed = repair(compiled, values, v);
                    repaired.insert(key, fixed);
                }
                None if schema.properties.is_empty() => {
                    repaired.insert(key, v);
                }
                None => {}
            },
        }
    }
    for required in &schema.required {
        if !repaired.contains_key(*required)
            && let Some((_, property)) = schema.properties.iter().find(|(n, _)| n == required)
        {
            let filler =
                resolve_through(compiled, property).map_or(Value::Null, |s| empty(compiled, s));
            repaired.insert((*required).to_string(), filler);
        }
    }
    Value::Object(repaired)
}

/// The schema a property stands for, through the `allOf` that carries its description.
pub(super) fn resolve_through<'a>(
    compiled: &'a Compiled,
    schema: &'a MetaSchemaRef,
) -> Option<&'a MetaSchema> {
    let found = resolve(compiled, schema)?;
    match found.all_of.first() {
        Some(part) if found.ty.is_empty() => resolve_through(compiled, part),
        _ => Some(found),
    }
}

/// An empty value of `schema`'s type.
fn empty(compiled: &Compiled, schema: &MetaSchema) -> Value {
    match schema.ty {
        "object" => Value::Object(
            schema
                .required
                .iter()
                .filter_map(|name| {
                    let (_, property) = schema.properties.iter().find(|(n, _)| n == name)?;
                    let inner = resolve_through(compiled, property)?;
                    Some(((*name).to_string(), empty(compiled, inner)))
                })
                .collect(),
        ),
        "array" => Value::Array(Vec::new()),
        "string" => schema
            .enum_items
            .first()
            .cloned()
            .unwrap_or_else(|| Value::String(String::new())),
        "integer" | "number" => Value::from(0),
        "boolean" => Value::Bool(false),
        _ => Value::Null,
    }
}

fn resolve<'a>(compiled: &'a Compiled, schema: &'a MetaSchemaRef) -> Option<&'a MetaSchema> {
    match schema {
        MetaSchemaRef::Inline(schema) => Some(schema),
        MetaSchemaRef::Reference(name) => compiled.schemas.get(name),
    }
}

fn at(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    }
}

fn push(errors: &mut Vec<FieldError>, path: &str, message: impl Into<String>) {
    errors.push(FieldError {
        field: if path.is_empty() {
            "body".into()
        } else {
            path.into()
        },
        message: message.into(),
    });
}

fn check(
    compiled: &Compiled,
    schema: &MetaSchemaRef,
    value: &Value,
    path: &str,
    errors: &mut Vec<FieldError>,
) {
    let Some(schema) = resolve(compiled, schema) else {
        return;
    };
    // A property with its own description refers to its type through `allOf`.
    for part in &schema.all_of {
        check(compiled, part, value, path, errors);
    }
    if !schema.any_of.is_empty() || !schema.one_of.is_empty() {
        let mut first = None;
        for part in schema.any_of.iter().chain(&schema.one_of) {
            let mut found = Vec::new();
            check(compiled, part, value, path, &mut found);
            if found.is_empty() {
                first = None;
                break;
            }
            first.get_or_insert(found);
        }
        errors.extend(first.unwrap_or_default());
    }
    if value.is_null() {
        if !schema.nullable && !schema.ty.is_empty() {
            push(errors, path, "must not be null");
        }
        return;
    }
    match schema.ty {
        "object" => check_object(compiled, schema, value, path, errors),
        "array" => match value.as_array() {
            Some(items) => {
                if let Some(item) = &schema.items {
                    for (i, v) in items.iter().enumerate() {
                        check(compiled, item, v, &format!("{path}[{i}]"), errors);
                    }
                }
            }
            None => push(errors, path, "must be a list"),
        },
        "string" => match value.as_str() {
            Some(text) => check_enum(schema, text, path, errors),
            None => push(errors, path, "must be a string"),
        },
        "integer" if !(value.is_i64() || value.is_u64()) => {
            push(errors, path, "must be a whole number");
        }
        "number" if !value.is_number() => push(errors, path, "must be a number"),
        "boolean" if !value.is_boolean() => push(errors, path, "must be true or false"),
        _ => {}
    }
}

fn check_enum(schema: &MetaSchema, text: &str, path: &str, errors: &mut Vec<FieldError>) {
    if schema.enum_items.is_empty() || schema.enum_items.iter().any(|v| v == text) {
        return;
    }
    let allowed: Vec<&str> = schema.enum_items.iter().filter_map(Value::as_str).collect();
    push(
        errors,
        path,
        format!("must be one of {}", allowed.join(", ")),
    );
}

fn check_object(
    compiled: &Compiled,
    schema: &MetaSchema,
    value: &Value,
    path: &str,
    errors: &mut Vec<FieldError>,
) {
    let Some(object) = value.as_object() else {
        push(errors, path, "must be an object");
        return;
    };
    if schema.properties.is_empty() {
        // A map: free-form unless its values have a schema of their own.
        if let Some(values) = &schema.additional_properties {
            for (key, v) in object {
                check(compiled, values, v, &at(path, key), errors);
            }
        }
        return;
    }
    for (key, v) in object {
        match schema.properties.iter().find(|(name, _)| name == key) {
            // `null` for a field that may be left out means the same as leaving it out; an
            // unknown field is refused whatever its value.
            Some(_) if v.is_null() && !schema.required.contains(&key.as_str()) => {}
            Some((_, property)) => check(compiled, property, v, &at(path, key), errors),
            None if schema.additional_properties.is_some() => {}
            None => {
                let known = schema.properties.iter().map(|(name, _)| *name);
                let message = match suggestion(key, known) {
                    Some(close) => format!("unknown field; did you mean \"{close}\"?"),
                    None => "unknown field".to_string(),
                };
                push(errors, &at(path, key), message);
            }
        }
    }
    for required in &schema.required {
        if !object.contains_key(*required) {
            push(errors, &at(path, required), "is required");
        }
    }
}

pub(crate) use crate::model::spelling::suggestion;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::{sender_address::SenderAddressIn, shipment::ShipmentIn};

    fn fields(errors: &[FieldError]) -> Vec<(&str, &str)> {
        errors
            .iter()
            .map(|e| (e.field.as_str(), e.message.as_str()))
            .collect()
    }

    fn address() -> Value {
        json!({"name": "Main", "attContact": "Mette", "address1": "Industrivej 12", "zipcode": "8000",
               "city": "Aarhus", "phone": "+45", "countryCode": "DK", "state": "Midtjylland",
               "email": "w@example.com"})
    }

    #[test]
    fn a_valid_body_has_no_violations() {
        assert!(violations::<SenderAddressIn>(&address()).is_empty());
    }

    #[test]
    fn unknown_fields_are_named_with_a_suggestion() {
        let mut body = address();
        body["adress2"] = json!("2nd floor");
        body["favouriteColour"] = json!("teal");
        assert_eq!(
            fields(&violations::<SenderAddressIn>(&body)),
            [
                ("adress2", "unknown field; did you mean \"address2\"?"),
                ("favouriteColour", "unknown field")
            ]
        );
    }

    #[test]
    fn null_stands_for_left_out_only_for_known_fields() {
        let mut body = address();
        body["address2"] = json!(null);
        assert!(violations::<SenderAddressIn>(&body).is_empty());
        body["favouriteColour"] = json!(null);
        assert_eq!(
            fields(&violations::<SenderAddressIn>(&body)),
            [("favouriteColour", "unknown field")]
        );
    }

    #[test]
    fn every_missing_field_is_named_at_once() {
        let mut body = address();
        for name in ["attContact", "zipcode", "state"] {
            body.as_object_mut().map(|o| o.remove(name));
        }
        let errors = violations::<SenderAddressIn>(&body);
        let mut named: Vec<_> = fields(&errors).into_iter().map(|(f, _)| f).collect();
        named.sort_unstable();
        assert_eq!(named, ["attContact", "state", "zipcode"]);
    }

    #[test]
    fn nested_paths_types_and_enums_are_reported_and_free_form_objects_take_anything() {
        let body = json!({
            "reference": 7, "senderAddressId": "adr_1", "type": "outbound", "status": "lost",
            "parties": [{"type": "receiver", "name": "J", "address1": "S 1", "postalCode": "1",
                         "city": "C", "countryCode": "SE", "phoneNumber": "+46"}],
            "carrierSettings": {"carrierId": "car_1", "productId": "p",
                                "additionalParameters": {"anything": {"goes": [1]}}},
            "parcels": [{"weight": "heavy", "orderLines": [{"sku": "A", "quantity": 1.5, "qty": 3}]}],
        });
        assert_eq!(
            fields(&violations::<ShipmentIn>(&body)),
            [
                ("parcels[0].orderLines[0].qty", "unknown field"),
                (
                    "parcels[0].orderLines[0].quantity",
                    "must be a whole number"
                ),
                ("parcels[0].weight", "must be a number"),
                (
                    "parties[0].phoneNumber",
                    "unknown field; did you mean \"phone\"?"
                ),
                ("reference", "must be a string"),
                (
                    "status",
                    "must be one of draft, pending, processing, dispatched, partly_dispatched, error, cancelled, on_hold"
                ),
            ]
        );
    }

    #[test]
    fn a_repaired_body_fits_its_schema_and_keeps_what_was_right() {
        let body = json!({
            "reference": 7, "senderAddressId": "adr_1", "type": "outbund", "colour": "red",
            "parties": [{"type": "receiver", "name": "Jane", "address1": "Main 1",
                         "postalCode": "8000", "city": "Aarhus", "countryCode": "DK"}],
            "carrierSettings": {"productId": "standard"},
            "parcels": "one"
        });
        let fixed = repaired::<ShipmentIn>(&body);
        assert!(violations::<ShipmentIn>(&fixed).is_empty(), "{fixed}");
        assert_eq!(fixed["reference"], "");
        assert_eq!(fixed["senderAddressId"], "adr_1");
        // `type` is text checked by the shipment itself, so its value stays for that check.
        assert_eq!(fixed["type"], "outbund");
        assert!(fixed.get("colour").is_none());
        assert_eq!(fixed["parties"][0]["name"], "Jane");
        assert_eq!(fixed["carrierSettings"]["carrierId"], "");
        assert_eq!(fixed["parcels"], json!([]));
        let decoded: ShipmentIn = serde_json::from_value(fixed).expect("decodes");
        assert_eq!(decoded.parties.len(), 1);
    }
}
