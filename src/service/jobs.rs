//! The loops that run beside the server, started and stopped from one place: webhook delivery
//! (which also runs housekeeping), e-mail to receivers, printing, and carrier tracking.

use std::time::Duration;

use tokio::{sync::watch, task::JoinHandle};

use crate::service::{Ctx, mail, printing, shipments::carrier_tracking, webhooks::worker};

/// The running loops.
pub struct Jobs {
    stop: watch::Sender<bool>,
    running: Vec<JoinHandle<()>>,
}

/// Starts every loop; each gets `grace` to finish its work when stopped.
pub fn start(ctx: &Ctx, grace: Duration) -> Jobs {
    let (stop, stopped) = watch::channel(false);
    let running = vec![
        tokio::spawn(worker::run(ctx.clone(), stopped.clone(), grace)),
        tokio::spawn(mail::worker::run(ctx.clone(), stopped.clone(), grace)),
        tokio::spawn(printing::run(ctx.clone(), stopped.clone(), grace)),
        tokio::spawn(carrier_tracking::run(ctx.clone(), stopped)),
    ];
    Jobs { stop, running }
}

impl Jobs {
    /// Tells every loop to stop and waits until they have.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        for job in self.running {
            let _ = job.await;
        }
    }
}
