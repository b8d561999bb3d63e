//! `RawJson<T>`: an answer whose JSON was written beforehand (from the representation a write
//! stored, `model::wire`), sent as it is and documented as `Json<T>` is: the same status, content
//! type and schema, so the OpenAPI document does not tell the two apart.

use std::marker::PhantomData;

use poem::{IntoResponse, Response, http::header};
use poem_openapi::{
    ApiResponse,
    payload::{Json, Payload},
    registry::{MetaResponses, MetaSchemaRef, Registry},
    types::{ToJSON, Type},
};

/// JSON bytes that are a `T`.
pub struct RawJson<T>(Vec<u8>, PhantomData<fn() -> T>);

impl<T> RawJson<T> {
    /// `bytes` must be what `Json<T>` would send for the same value.
    pub fn new(bytes: Vec<u8>) -> RawJson<T> {
        RawJson(bytes, PhantomData)
    }
}

impl<T: Type> Payload for RawJson<T> {
    const CONTENT_TYPE: &'static str = <Json<T> as Payload>::CONTENT_TYPE;

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }
}

impl<T> IntoResponse for RawJson<T> {
    fn into_response(self) -> Response {
        Response::builder()
            .header(header::CONTENT_TYPE, "application/json; charset=utf-8")
            .body(self.0)
    }
}

impl<T: ToJSON> ApiResponse for RawJson<T> {
    fn meta() -> MetaResponses {
        <Json<T> as ApiResponse>::meta()
    }

    fn register(registry: &mut Registry) {
        <Json<T> as ApiResponse>::register(registry);
    }
}

/// 201 with the created resource, written beforehand (`Created`, as `RawJson`).
#[derive(ApiResponse)]
pub enum CreatedRaw<T: ToJSON> {
    /// Created.
    #[oai(status = 201)]
    Created(RawJson<T>),
}
