//! JSON Merge Patch bodies (RFC 7396): `MergePatch<T>` is a patch checked against `T` (the
//! fields it may change, all optional) and kept as JSON, because a merge patch means what its
//! JSON says — a `null` removes, an object merges into the object it patches, an array replaces.

use std::{borrow::Cow, marker::PhantomData};

use poem_openapi::{
    registry::{MetaSchemaRef, Registry},
    types::Type,
};
use serde_json::{Map, Value};

pub struct MergePatch<T> {
    pub json: Map<String, Value>,
    of: PhantomData<T>,
}

impl<T> MergePatch<T> {
    /// `target` with this patch applied.
    pub fn apply(&self, mut target: Value) -> Value {
        json_patch::merge(&mut target, &Value::Object(self.json.clone()));
        target
    }
}

impl<T: Type> Type for MergePatch<T> {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }

    fn as_raw_value(&self) -> Option<&Self> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self> + 'a> {
        Box::new(std::iter::once(self))
    }
}

impl<'de, T> serde::Deserialize<'de> for MergePatch<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(MergePatch {
            json: Map::deserialize(deserializer)?,
            of: PhantomData,
        })
    }
}
