//! `/static/*`: the files under `static/`, compiled into the binary, with a strong ETag (the
//! file's SHA-256, quoted), `304 Not Modified` for a browser that has them, a short cache
//! lifetime, and HEAD.

use poem::{
    Request, Response, handler,
    http::{StatusCode, header},
    web::Path,
};

use crate::{api::problem::ApiError, assets::Assets};

/// Browsers may reuse a file this long before asking again (with its ETag).
const CACHE: &str = "public, max-age=300";

#[handler]
pub fn serve(req: &Request, Path(path): Path<String>) -> Response {
    let Some(file) = Assets::get(&path) else {
        return poem::IntoResponse::into_response(ApiError::not_found());
    };
    let etag = format!(
        "\"{}\"",
        file.metadata
            .sha256_hash()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == etag || t == "*")
        });
    let builder = Response::builder()
        .header(header::ETAG, &etag)
        .header(header::CACHE_CONTROL, CACHE);
    if fresh {
        return builder.status(StatusCode::NOT_MODIFIED).finish();
    }
    builder
        .content_type(
            mime_guess::from_path(&path)
                .first_or_octet_stream()
                .essence_str(),
        )
        .body(file.data.into_owned())
}
