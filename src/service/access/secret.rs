//! Random secrets (API tokens, OAuth codes and refresh tokens, sessions) and the hashes they are
//! stored as.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use ring::{
    digest,
    rand::{SecureRandom, SystemRandom},
};

use crate::error::{Error, Result};

/// `len` random bytes, base64url without padding.
pub fn random_urlsafe(len: usize) -> Result<String> {
    let mut bytes = vec![0u8; len];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| Error::Internal("no randomness available".into()))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// A secret as it is stored: its SHA-256.
pub fn hash(secret: &str) -> Vec<u8> {
    digest::digest(&digest::SHA256, secret.as_bytes())
        .as_ref()
        .to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_sha256_and_tell_secrets_apart() {
        assert_eq!(hash("abc").len(), 32);
        assert_ne!(hash("abc"), hash("abd"));
        assert_eq!(random_urlsafe(32).map(|s| s.len()).ok(), Some(43));
    }
}
