//! What the service knows of the request it serves beyond the actor: the client's address, set
//! by the edge for the request's task (the audit log records it). Outside a request (the CLI,
//! background work) there is none.

use std::{future::Future, net::IpAddr};

tokio::task_local! {
    static ADDRESS: Option<IpAddr>;
}

/// Runs `f` as serving a request from `address`.
pub async fn scope<F: Future>(address: Option<IpAddr>, f: F) -> F::Output {
    ADDRESS.scope(address, f).await
}

/// The client's address of the request being served, if any.
pub fn address() -> Option<IpAddr> {
    ADDRESS.try_with(|address| *address).ok().flatten()
}
