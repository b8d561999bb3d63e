//! GET /: the landing page with links to the API reference (not part of the API document).

use poem_openapi::{OpenApi, payload::Html};

use crate::assets::Assets;

pub struct HomeApi;

#[OpenApi]
impl HomeApi {
    #[oai(path = "/", method = "get", hidden)]
    async fn index(&self) -> Html<String> {
        let page = Assets::get("index.html").map(|f| String::from_utf8_lossy(&f.data).into_owned());
        Html(page.unwrap_or_default())
    }
}
