//! The paged list envelope (SPEC §2): `data`, `total`, `page`, `limit`, `totalPages`.

/// Declares `$name`, the envelope of a list of `$item`.
#[macro_export]
macro_rules! page_of {
    ($name:ident, $item:ty) => {
        /// One page of a list.
        #[derive(poem_openapi::Object)]
        #[oai(rename_all = "camelCase")]
        pub struct $name {
            pub data: Vec<$item>,
            pub total: u64,
            pub page: u32,
            pub limit: u32,
            pub total_pages: u64,
        }

        impl<T: Into<$item>> From<$crate::store::Paged<T>> for $name {
            fn from(paged: $crate::store::Paged<T>) -> $name {
                let (total, query) = (paged.total, paged.query);
                $name {
                    data: paged.items.into_iter().map(Into::into).collect(),
                    total,
                    page: query.page,
                    limit: query.limit,
                    total_pages: $crate::api::page::total_pages(total, query.limit),
                }
            }
        }
    };
}

/// `ceil(total / limit)`.
pub fn total_pages(total: u64, limit: u32) -> u64 {
    total.div_ceil(u64::from(limit.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_pages_rounds_up() {
        assert_eq!(total_pages(0, 20), 0);
        assert_eq!(total_pages(1, 20), 1);
        assert_eq!(total_pages(20, 20), 1);
        assert_eq!(total_pages(21, 20), 2);
    }
}
