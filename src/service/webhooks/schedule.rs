//! When a failed delivery is tried again (DESIGN §9): after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and
//! 10 h, each multiplied by `webhooks.retry_scale`; after that the delivery has failed.

use std::time::Duration;

const DELAYS_SECONDS: [u64; 7] = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600];

/// The delay before attempt `attempts + 1`, after `attempts` failed ones; None once every retry
/// is spent.
pub fn next_delay(attempts: u32, scale: f64) -> Option<Duration> {
    let seconds = *DELAYS_SECONDS.get(usize::try_from(attempts).ok()?.checked_sub(1)?)?;
    Some(Duration::from_secs_f64(seconds as f64 * scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_attempts_then_none() {
        let delays: Vec<_> = (1..=8).map(|n| next_delay(n, 1.0)).collect();
        assert_eq!(delays[0], Some(Duration::from_secs(5)));
        assert_eq!(delays[1], Some(Duration::from_secs(300)));
        assert_eq!(delays[6], Some(Duration::from_secs(36_000)));
        assert_eq!(delays[7], None);
        assert_eq!(next_delay(0, 1.0), None);
        assert_eq!(next_delay(2, 0.001), Some(Duration::from_millis(300)));
    }
}
