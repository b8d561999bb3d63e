//! Events (DESIGN §9), emitted through the unit of work by the one write path of each resource:
//! `shipments::save` and `orders::save` call `Emitter::emit`, so REST, the Shopify receiver, the
//! CLI and MCP tools emit the same events without code of their own. An event nobody subscribes
//! to is not made at all; the resource's JSON is made once per change, only when needed.

use poem_openapi::types::ToJSON;

use crate::{
    error::{Error, Result},
    model::event::{Event, EventKind},
    store::Tx,
};

/// Emits the events of one change of one resource.
pub(crate) struct Emitter<'a, 'c, F> {
    tx: &'a Tx<'c>,
    org_id: &'a str,
    at: &'a str,
    data: Option<serde_json::Value>,
    make: F,
}

impl<'a, 'c, F, T> Emitter<'a, 'c, F>
where
    F: FnMut() -> Result<T>,
    T: ToJSON,
{
    /// `make` gives the resource after the change, in its public representation.
    pub fn new(tx: &'a Tx<'c>, org_id: &'a str, at: &'a str, make: F) -> Self {
        Emitter {
            tx,
            org_id,
            at,
            data: None,
            make,
        }
    }

    pub fn emit(&mut self, kind: EventKind) -> Result<()> {
        let targets = self.tx.targets(self.org_id, kind)?;
        if targets.is_empty() {
            return Ok(());
        }
        let data = match &self.data {
            Some(data) => data.clone(),
            None => {
                let data = (self.make)()?
                    .to_json()
                    .ok_or_else(|| Error::internal("an event's resource has no JSON form"))?;
                self.data = Some(data.clone());
                data
            }
        };
        self.tx
            .emit(Event::new(kind, self.org_id, self.at, data), targets);
        Ok(())
    }
}
