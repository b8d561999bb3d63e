//! Secrets at rest: values the service must read back (webhook signing secrets) are stored
//! encrypted with AES-256-GCM under a key that is kept apart from the database — the file
//! `secret.key` in the data directory (created with mode 0600 on first start), or
//! `storage.secret_key` in the configuration when several processes share one database. A copy
//! of the database alone does not reveal them.

use std::path::Path;

use base64::{Engine, engine::general_purpose::STANDARD};
use ring::{
    aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey},
    hkdf, hmac,
    rand::{SecureRandom, SystemRandom},
};

use crate::error::{Error, Result};

/// What encrypted values start with (the scheme, so that it can change later).
const TAG: &str = "v1:";
const KEY_FILE: &str = "secret.key";

#[derive(Clone)]
pub struct Vault {
    key: std::sync::Arc<LessSafeKey>,
    /// Authenticates values the server hands out and checks itself (CSRF tokens); derived from
    /// the same secret with HKDF, so it never equals the encryption key.
    mac: std::sync::Arc<hmac::Key>,
}

impl std::fmt::Debug for Vault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Vault(..)")
    }
}

impl Vault {
    /// The vault of `configured` (base64 of 32 bytes) when given, else of the key file in
    /// `data_dir`, made on first use.
    pub fn open(configured: &str, data_dir: &Path) -> Result<Vault> {
        let bytes = if configured.is_empty() {
            key_file(&data_dir.join(KEY_FILE))?
        } else {
            STANDARD
                .decode(configured.trim())
                .map_err(|_| Error::Internal("storage.secret_key is not base64".into()))?
        };
        Vault::from_key(&bytes)
    }

    pub fn from_key(bytes: &[u8]) -> Result<Vault> {
        let key = UnboundKey::new(&AES_256_GCM, bytes).map_err(|_| {
            Error::Internal("the secret key must be 32 bytes (base64 of 32 bytes)".into())
        })?;
        let mac: hmac::Key = hkdf::Salt::new(hkdf::HKDF_SHA256, b"shipbase vault")
            .extract(bytes)
            .expand(&[b"mac"], hmac::HMAC_SHA256)
            .map_err(|_| Error::Internal("cannot derive the MAC key".into()))?
            .into();
        Ok(Vault {
            key: std::sync::Arc::new(LessSafeKey::new(key)),
            mac: std::sync::Arc::new(mac),
        })
    }

    /// An HMAC-SHA256 tag of `data` for `purpose`.
    pub fn tag(&self, purpose: &str, data: &[u8]) -> Vec<u8> {
        let mut context = hmac::Context::with_key(&self.mac);
        context.update(&(purpose.len() as u64).to_be_bytes());
        context.update(purpose.as_bytes());
        context.update(data);
        context.sign().as_ref().to_vec()
    }

    /// Whether `tag` is the tag of `data` for `purpose` (in constant time).
    pub fn check_tag(&self, purpose: &str, data: &[u8], tag: &[u8]) -> bool {
        use subtle::ConstantTimeEq;
        bool::from(self.tag(purpose, data).ct_eq(tag))
    }

    /// `v1:` + base64 of a random nonce and the sealed value.
    pub fn seal(&self, plain: &str) -> Result<String> {
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new()
            .fill(&mut nonce)
            .map_err(|_| Error::Internal("no randomness available".into()))?;
        let mut sealed = plain.as_bytes().to_vec();
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::empty(),
                &mut sealed,
            )
            .map_err(|_| Error::Internal("cannot encrypt a secret".into()))?;
        let mut out = nonce.to_vec();
        out.extend(sealed);
        Ok(format!("{TAG}{}", STANDARD.encode(out)))
    }

    /// The value `seal` sealed; an error when it was sealed under another key.
    pub fn open_sealed(&self, sealed: &str) -> Result<String> {
        let wrong = || Error::Internal("a stored secret cannot be decrypted with this key".into());
        let bytes = sealed
            .strip_prefix(TAG)
            .and_then(|b| STANDARD.decode(b).ok())
            .filter(|b| b.len() > NONCE_LEN)
            .ok_or_else(wrong)?;
        let (nonce, rest) = bytes.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| wrong())?;
        let mut rest = rest.to_vec();
        let plain = self
            .key
            .open_in_place(nonce, Aad::empty(), &mut rest)
            .map_err(|_| wrong())?;
        String::from_utf8(plain.to_vec()).map_err(|_| wrong())
    }
}

/// Reads the key file, creating it (32 random bytes, base64, mode 0600) when missing.
fn key_file(path: &Path) -> Result<Vec<u8>> {
    let describe = |e: std::io::Error| {
        Error::Internal(format!("cannot use the key file {}: {e}", path.display()))
    };
    if !path.exists() {
        let mut key = [0u8; 32];
        SystemRandom::new()
            .fill(&mut key)
            .map_err(|_| Error::Internal("no randomness available".into()))?;
        // Another process may make it at the same moment: whichever file exists is the key.
        write_private(path, &STANDARD.encode(key)).map_err(describe)?;
    }
    let text = std::fs::read_to_string(path).map_err(describe)?;
    STANDARD
        .decode(text.trim())
        .map_err(|_| Error::Internal(format!("{} is not base64", path.display())))
}

/// Creates `path` only if it does not exist, readable by its owner alone.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(mut file) => file.write_all(text.as_bytes()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_with_the_same_key_only() {
        let vault = Vault::from_key(&[7u8; 32]).unwrap_or_else(|e| panic!("{e}"));
        let sealed = vault.seal("whsec_abc").unwrap_or_default();
        assert!(sealed.starts_with("v1:") && !sealed.contains("whsec_abc"));
        assert_ne!(
            vault.seal("whsec_abc").unwrap_or_default(),
            sealed,
            "nonces differ"
        );
        assert_eq!(vault.open_sealed(&sealed).unwrap_or_default(), "whsec_abc");
        let other = Vault::from_key(&[8u8; 32]).unwrap_or_else(|e| panic!("{e}"));
        assert!(other.open_sealed(&sealed).is_err());
        assert!(vault.open_sealed("v1:bm9wZQ==").is_err());
        assert!(Vault::from_key(&[1u8; 16]).is_err());
    }

    #[test]
    fn tags_depend_on_key_purpose_and_data() {
        let vault = Vault::from_key(&[7u8; 32]).unwrap_or_else(|e| panic!("{e}"));
        let tag = vault.tag("csrf", b"abc");
        assert!(vault.check_tag("csrf", b"abc", &tag));
        assert!(!vault.check_tag("csrf", b"abd", &tag));
        assert!(!vault.check_tag("other", b"abc", &tag));
        assert!(!vault.check_tag("csrf", b"abc", &tag[1..]));
        let other = Vault::from_key(&[8u8; 32]).unwrap_or_else(|e| panic!("{e}"));
        assert!(!other.check_tag("csrf", b"abc", &tag));
    }

    #[test]
    fn the_key_file_is_made_once_and_private() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let a = Vault::open("", dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let b = Vault::open("", dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let sealed = a.seal("x").unwrap_or_default();
        assert_eq!(b.open_sealed(&sealed).unwrap_or_default(), "x");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(KEY_FILE))
                .map(|m| m.permissions().mode() & 0o777)
                .unwrap_or_default();
            assert_eq!(mode, 0o600);
        }
        let configured = Vault::open(&STANDARD.encode([9u8; 32]), dir.path());
        assert!(configured.is_ok());
        assert!(Vault::open("not base64!", dir.path()).is_err());
    }
}
