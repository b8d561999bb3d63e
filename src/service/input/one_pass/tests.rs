use super::*;

#[derive(Debug, PartialEq, serde::Deserialize, poem_openapi::Object)]
struct Parcel {
    weight: f64,
    #[serde(default)]
    reference: Option<String>,
}

#[derive(Debug, PartialEq, serde::Deserialize, poem_openapi::Object)]
struct Body {
    name: String,
    parcels: Vec<Parcel>,
    #[serde(default)]
    extra: Option<serde_json::Value>,
}

/// `name` is required by the schema; serde alone would fill it in.
#[derive(Debug, PartialEq, serde::Deserialize, poem_openapi::Object)]
#[serde(default)]
struct Defaulted {
    name: String,
    note: Option<String>,
}

impl Default for Defaulted {
    fn default() -> Defaulted {
        Defaulted {
            name: "filled".into(),
            note: None,
        }
    }
}

#[test]
fn a_body_of_known_fields_is_read_in_one_pass() {
    let body: Option<Body> = decode(
        br#" {"name":"a\u00e9","parcels":[{"weight":1.5},{"weight":2,"reference":null}],
            "extra":{"any":[1,{"thing":true}]}}"#,
    );
    let body = body.expect("decoded");
    assert_eq!(body.name, "aé");
    assert_eq!(body.parcels[1].weight, 2.0);
    assert_eq!(body.extra.expect("extra")["any"][1]["thing"], true);
}

#[test]
fn an_unknown_field_at_any_depth_is_refused() {
    assert_eq!(
        decode::<Body>(br#"{"name":"a","parcels":[],"nmae":1}"#),
        None
    );
    assert_eq!(
        decode::<Body>(br#"{"name":"a","parcels":[{"weight":1,"wieght":2}]}"#),
        None
    );
}

#[test]
fn a_field_the_schema_requires_is_not_filled_by_serde() {
    assert_eq!(decode::<Defaulted>(br#"{"note":"x"}"#), None);
    assert_eq!(
        decode::<Defaulted>(br#"{"name":"a"}"#),
        Some(Defaulted {
            name: "a".into(),
            note: None
        })
    );
}

#[test]
fn an_array_standing_for_a_struct_is_refused() {
    assert_eq!(decode::<Body>(br#"["a",[]]"#), None);
    assert_eq!(
        decode::<Body>(br#"{"name":"a","parcels":[[1.0,null]]}"#),
        None
    );
    let value = serde_json::json!({"name": "a", "parcels": [[1.0, null]]});
    assert_eq!(decode_value::<Body>(&value), None);
}

#[test]
fn what_serde_refuses_and_trailing_text_are_refused() {
    assert_eq!(decode::<Body>(br#"{"name":"a"}"#), None);
    assert_eq!(decode::<Body>(br#"{"name":1,"parcels":[]}"#), None);
    assert_eq!(decode::<Body>(br#"{"name":"a","parcels":[]} x"#), None);
    assert_eq!(
        decode::<Body>(br#"{"name":"a","name":"b","parcels":[]}"#),
        None
    );
}
