//! `JsonBody<T>`: a JSON request body. The content type (415) and size (413) are checked while
//! the handler's arguments are built; decoding is held in an `Input` for the service to report
//! after its authorization checks.

use poem::{Request, RequestBody, error::ReadBodyError};
use poem_openapi::{
    impl_apirequest_for_payload,
    payload::{ParsePayload, Payload},
    registry::{MetaSchemaRef, Registry},
    types::Type,
};
use serde::de::DeserializeOwned;

use crate::{
    api::problem::ApiError,
    service::{Ctx, Input, input_json},
};

pub struct JsonBody<T>(pub Input<T>);

impl<T: Type> Payload for JsonBody<T> {
    const CONTENT_TYPE: &'static str = "application/json";

    fn check_content_type(content_type: &str) -> bool {
        content_type.parse::<mime::Mime>().is_ok_and(|m| {
            m.type_() == "application"
                && (m.subtype() == "json" || m.suffix().is_some_and(|s| s == "json"))
        })
    }

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }
}

impl<T: Type + DeserializeOwned + Send + 'static> ParsePayload for JsonBody<T> {
    const IS_REQUIRED: bool = true;

    async fn from_request(request: &Request, body: &mut RequestBody) -> poem::Result<Self> {
        let bytes = read_limited(request, body).await?;
        Ok(JsonBody(input_json(&bytes)))
    }
}

impl_apirequest_for_payload!(JsonBody<T>, T: Type + DeserializeOwned + Send + 'static);

/// Reads the whole body, refusing more than `limits.max_body_bytes` (413).
async fn read_limited(request: &Request, body: &mut RequestBody) -> poem::Result<Vec<u8>> {
    let limit = request
        .data::<Ctx>()
        .map_or(1024 * 1024, |ctx| ctx.config.limits.max_body_bytes);
    let bytes = body
        .take()?
        .into_bytes_limit(usize::try_from(limit).unwrap_or(usize::MAX))
        .await
        .map_err(|err| match err {
            ReadBodyError::PayloadTooLarge => ApiError::payload_too_large(limit),
            other => ApiError::from(crate::error::Error::InvalidJson(other.to_string())),
        })?;
    Ok(bytes.to_vec())
}

/// A JSON body kept as raw bytes, for receivers that verify a signature over the exact bytes
/// (Shopify). Content type and size are checked as for `JsonBody`.
pub struct RawJsonBody(pub Vec<u8>);

impl Payload for RawJsonBody {
    const CONTENT_TYPE: &'static str = "application/json";

    fn check_content_type(content_type: &str) -> bool {
        <JsonBody<serde_json::Value> as Payload>::check_content_type(content_type)
    }

    fn schema_ref() -> MetaSchemaRef {
        serde_json::Value::schema_ref()
    }
}

impl ParsePayload for RawJsonBody {
    const IS_REQUIRED: bool = true;

    async fn from_request(request: &Request, body: &mut RequestBody) -> poem::Result<Self> {
        Ok(RawJsonBody(read_limited(request, body).await?))
    }
}

impl_apirequest_for_payload!(RawJsonBody);

/// A JSON body that may be left out: no body at all (and then no content type) reads as
/// `T::default()`; a body is checked and decoded as for `JsonBody`.
pub struct OptionalJsonBody<T>(pub Input<T>);

impl<'a, T> poem_openapi::ApiExtractor<'a> for OptionalJsonBody<T>
where
    T: Type + DeserializeOwned + Default + Send + 'static,
{
    const TYPES: &'static [poem_openapi::ApiExtractorType] =
        &[poem_openapi::ApiExtractorType::RequestObject];

    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        T::register(registry);
    }

    fn request_meta() -> Option<poem_openapi::registry::MetaRequest> {
        Some(poem_openapi::registry::MetaRequest {
            description: None,
            content: vec![poem_openapi::registry::MetaMediaType {
                content_type: "application/json",
                schema: T::schema_ref(),
            }],
            required: false,
        })
    }

    async fn from_request(
        request: &'a Request,
        body: &mut RequestBody,
        _param_opts: poem_openapi::ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        let bytes = read_limited(request, body).await?;
        if bytes.is_empty() {
            return Ok(OptionalJsonBody(Input::ok(T::default())));
        }
        match request.content_type() {
            Some(content_type) if <JsonBody<T> as Payload>::check_content_type(content_type) => {
                Ok(OptionalJsonBody(input_json(&bytes)))
            }
            Some(content_type) => Err(poem_openapi::error::ContentTypeError::NotSupported {
                content_type: content_type.to_string(),
            }
            .into()),
            None => Err(poem_openapi::error::ContentTypeError::ExpectContentType.into()),
        }
    }
}
