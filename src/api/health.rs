//! GET /health (public).

use poem::web::Data;
use poem_openapi::{Object, OpenApi, payload::Json};

use crate::{api::ApiTags, model::time, service::Ctx};

pub struct HealthApi;

#[derive(Object)]
pub struct Health {
    /// Always `ok` while the server answers.
    pub status: String,
    pub timestamp: String,
    /// The version of this build.
    pub version: String,
}

#[OpenApi(tag = "ApiTags::Health")]
impl HealthApi {
    /// Liveness check. Public: needs no credential.
    #[oai(path = "/health", method = "get", operation_id = "get_health")]
    async fn health(&self, ctx: Data<&Ctx>) -> Json<Health> {
        Json(Health {
            status: "ok".into(),
            timestamp: time::format(ctx.clock.now()),
            version: env!("CARGO_PKG_VERSION").into(),
        })
    }
}
