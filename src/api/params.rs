//! Query parameters taken as the client wrote them. poem-openapi would check a typed parameter
//! before the handler runs, so that a caller of another organization with `?limit=abc` learned
//! 400 instead of 404; these parse nothing, document the real type in the OpenAPI document, and
//! leave the checks to the service, after its authorization (401 → 404 → 403 → 400).

use std::{borrow::Cow, marker::PhantomData};

use poem_openapi::{
    param::Query,
    registry::{MetaSchema, MetaSchemaRef, Registry},
    types::{ParseFromParameter, ParseResult, Type},
};
use serde_json::Value;

use crate::service::PageParams;

/// What the OpenAPI document says a raw parameter is.
pub trait Schema: Send + Sync {
    fn schema() -> MetaSchemaRef;

    fn register(_registry: &mut Registry) {}
}

/// A query parameter kept as text; `S` documents it.
pub struct Raw<S>(pub String, PhantomData<S>);

impl<S: Schema> Type for Raw<S> {
    const IS_REQUIRED: bool = true;
    type RawValueType = String;
    type RawElementValueType = String;

    fn name() -> Cow<'static, str> {
        "raw".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        S::schema()
    }

    fn register(registry: &mut Registry) {
        S::register(registry);
    }

    fn as_raw_value(&self) -> Option<&String> {
        Some(&self.0)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a String> + 'a> {
        Box::new(std::iter::once(&self.0))
    }
}

impl<S: Schema> ParseFromParameter for Raw<S> {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        Ok(Raw(value.to_string(), PhantomData))
    }
}

/// An integer in `min..=max` with a default.
fn integer(min: f64, max: Option<f64>, default: i64) -> MetaSchemaRef {
    MetaSchemaRef::Inline(Box::new(MetaSchema {
        minimum: Some(min),
        maximum: max,
        default: Some(Value::from(default)),
        ..MetaSchema::new_with_format("integer", "int32")
    }))
}

/// `page`: from 1, default 1.
pub enum PageNumber {}

impl Schema for PageNumber {
    fn schema() -> MetaSchemaRef {
        integer(1.0, None, 1)
    }
}

/// `limit`: 1 to 100, default 20.
pub enum PageSize {}

impl Schema for PageSize {
    fn schema() -> MetaSchemaRef {
        integer(1.0, Some(100.0), 20)
    }
}

/// One value of the enum `E`.
pub struct OneOf<E>(PhantomData<E>);

impl<E: Type> Schema for OneOf<E> {
    fn schema() -> MetaSchemaRef {
        E::schema_ref()
    }

    fn register(registry: &mut Registry) {
        E::register(registry);
    }
}

pub type PageQuery = Query<Option<Raw<PageNumber>>>;
pub type LimitQuery = Query<Option<Raw<PageSize>>>;
pub type EnumQuery<E> = Query<Option<Raw<OneOf<E>>>>;

/// The text of a raw parameter.
pub fn text<S>(param: Query<Option<Raw<S>>>) -> Option<String> {
    param.0.map(|raw| raw.0)
}

/// `page` and `limit` for the service.
pub fn page(page: PageQuery, limit: LimitQuery) -> PageParams {
    PageParams {
        page: text(page),
        limit: text(limit),
    }
}
