//! Standard Webhooks signatures (DESIGN §9): `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`
//! keyed with the bytes behind `whsec_`.

use base64::{Engine, engine::general_purpose::STANDARD};
use ring::{
    hmac,
    rand::{SecureRandom, SystemRandom},
};

use crate::error::{Error, Result};

pub const PREFIX: &str = "whsec_";

/// A new secret: `whsec_` + base64 of 24 random bytes.
pub fn generate() -> Result<String> {
    let mut bytes = [0u8; 24];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| Error::Internal("no randomness available".into()))?;
    Ok(format!("{PREFIX}{}", STANDARD.encode(bytes)))
}

/// The key of a secret: the base64-decoded bytes after `whsec_`.
fn key(secret: &str) -> Option<hmac::Key> {
    let bytes = STANDARD.decode(secret.strip_prefix(PREFIX)?).ok()?;
    Some(hmac::Key::new(hmac::HMAC_SHA256, &bytes))
}

/// One signature, `v1,…`; None for a malformed secret.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Option<String> {
    let key = key(secret)?;
    let mut context = hmac::Context::with_key(&key);
    context.update(id.as_bytes());
    context.update(b".");
    context.update(timestamp.to_string().as_bytes());
    context.update(b".");
    context.update(body);
    Some(format!("v1,{}", STANDARD.encode(context.sign().as_ref())))
}

/// The `webhook-signature` header: one signature per secret, space-separated (a rotation signs
/// with the new and the previous secret).
pub fn header(secrets: &[&str], id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets
        .iter()
        .filter_map(|secret| sign(secret, id, timestamp, body))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test vector published with the Standard Webhooks specification.
    #[test]
    fn signs_the_published_test_vector() {
        assert_eq!(
            sign(
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                1_614_265_330,
                br#"{"test": 2432232314}"#,
            )
            .as_deref(),
            Some("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        );
    }

    #[test]
    fn secrets_have_the_documented_shape_and_sign_differently() {
        let a = generate().unwrap_or_default();
        let b = generate().unwrap_or_default();
        assert!(a.starts_with(PREFIX) && a.len() == PREFIX.len() + 32, "{a}");
        assert_eq!(
            STANDARD.decode(&a[PREFIX.len()..]).map(|k| k.len()).ok(),
            Some(24)
        );
        assert_ne!(sign(&a, "m", 1, b"{}"), sign(&b, "m", 1, b"{}"));
        assert_eq!(sign("no prefix", "m", 1, b"{}"), None);
        let both = header(&[&a, &b], "m", 1, b"{}");
        assert_eq!(both.split(' ').count(), 2);
    }
}
