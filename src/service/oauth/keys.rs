//! The Ed25519 key access tokens are signed with (DESIGN §4): made on first start, kept in the
//! database with its private half sealed by the vault, published at `/oauth/jwks`.

use std::sync::Arc;

use base64::{Engine, engine::general_purpose::STANDARD, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use ring::{
    rand::SystemRandom,
    signature::{Ed25519KeyPair, KeyPair},
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Value, json};

use crate::{
    error::{Error, Result},
    model::ids,
    service::Ctx,
    store::{self, oauth::StoredKey},
};

/// The signing key, ready to sign and verify.
pub struct Keys {
    id: String,
    public_key: String,
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys").field("id", &self.id).finish()
    }
}

impl Keys {
    fn from_stored(ctx: &Ctx, stored: &StoredKey) -> Result<Keys> {
        let pkcs8 = STANDARD
            .decode(ctx.vault.open_sealed(&stored.private_key)?)
            .map_err(|_| Error::internal("the stored signing key is not base64"))?;
        let public = URL_SAFE_NO_PAD
            .decode(&stored.public_key)
            .map_err(|_| Error::internal("the stored public key is not base64url"))?;
        Ok(Keys {
            id: stored.id.clone(),
            public_key: stored.public_key.clone(),
            encoding: EncodingKey::from_ed_der(&pkcs8),
            decoding: DecodingKey::from_ed_der(&public),
        })
    }

    /// The JSON Web Key Set of the public key (RFC 7517, RFC 8037).
    pub fn jwks(&self) -> Value {
        json!({"keys": [{
            "kty": "OKP",
            "crv": "Ed25519",
            "x": self.public_key,
            "kid": self.id,
            "use": "sig",
            "alg": "EdDSA",
        }]})
    }

    /// `claims` as a signed JWT.
    pub fn sign<T: Serialize>(&self, claims: &T) -> Result<String> {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.id.clone());
        header.typ = Some("at+jwt".into());
        jsonwebtoken::encode(&header, claims, &self.encoding)
            .map_err(|e| Error::internal(format!("cannot sign an access token: {e}")))
    }

    /// The claims of `token` when its signature and the checks of `validation` pass.
    pub fn verify<T: DeserializeOwned>(&self, token: &str, validation: &Validation) -> Option<T> {
        jsonwebtoken::decode::<T>(token, &self.decoding, validation)
            .ok()
            .map(|data| data.claims)
    }
}

/// The signing key, loaded once per process (made and stored on first start).
pub async fn keys(ctx: &Ctx) -> Result<Arc<Keys>> {
    ctx.keys
        .get_or_try_init(|| async {
            let stored = match ctx.db.read(store::oauth::signing_key).await? {
                Some(stored) => stored,
                None => create(ctx).await?,
            };
            Keys::from_stored(ctx, &stored).map(Arc::new)
        })
        .await
        .cloned()
}

async fn create(ctx: &Ctx) -> Result<StoredKey> {
    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new())
        .map_err(|_| Error::internal("cannot generate a signing key"))?;
    let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref())
        .map_err(|_| Error::internal("the generated signing key does not parse"))?;
    let fresh = StoredKey {
        id: ids::new("key"),
        private_key: ctx.vault.seal(&STANDARD.encode(pkcs8.as_ref()))?,
        public_key: URL_SAFE_NO_PAD.encode(pair.public_key().as_ref()),
    };
    let now = ctx.now();
    // Another process may make one at the same moment: the oldest key wins everywhere.
    ctx.db
        .write(move |tx| match store::oauth::signing_key(tx)? {
            Some(existing) => Ok(existing),
            None => {
                store::oauth::insert_key(tx, &fresh, &now)?;
                Ok(fresh)
            }
        })
        .await
}
