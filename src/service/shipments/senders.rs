//! Sender addresses as this process last read them, to build new shipments from on the
//! request's thread without a read. A kept address is only a guess: the write reads the address
//! again in its transaction, builds the sender party anew when it changed (`Prepared::rebase`)
//! and forgets the kept one, so a change made anywhere (another process included) costs one
//! create a second build and never reaches a stored shipment.

use std::{collections::HashMap, sync::Mutex};

use crate::model::sender_address::SenderAddress;

/// Addresses kept at most; past it, all are dropped and read again as they come.
const KEPT_MAX: usize = 1_000;

#[derive(Default)]
pub struct Senders {
    /// By the address's id; an address is found only for its own organization.
    kept: Mutex<HashMap<String, SenderAddress>>,
}

impl Senders {
    pub fn get(&self, org_id: &str, id: &str) -> Option<SenderAddress> {
        self.lock()
            .get(id)
            .filter(|address| address.org_id == org_id)
            .cloned()
    }

    pub fn keep(&self, address: &SenderAddress) {
        let mut kept = self.lock();
        if kept.len() >= KEPT_MAX {
            kept.clear();
        }
        kept.insert(address.id.clone(), address.clone());
    }

    /// Drops the address kept for `id`: the write found it changed or gone.
    pub fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, SenderAddress>> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }
}
