//! Pages of a list (SPEC §2 paged list envelope, DESIGN §6): what was asked for, what was found,
//! and the envelope `{data, total, page, limit, totalPages}` every list answers with.

/// `page` (from 1) and `limit` of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageQuery {
    pub page: u32,
    pub limit: u32,
}

impl PageQuery {
    pub fn offset(self) -> i64 {
        i64::from(self.page - 1) * i64::from(self.limit)
    }
}

/// One page of items, the total count, and the page that was asked for.
#[derive(Debug)]
pub struct Paged<T> {
    pub items: Vec<T>,
    pub total: u64,
    pub query: PageQuery,
}

impl<T> Paged<T> {
    /// The same page with each item converted.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Paged<U> {
        Paged {
            items: self.items.into_iter().map(f).collect(),
            total: self.total,
            query: self.query,
        }
    }

    /// The same page with each item converted (or the first error).
    pub fn try_map<U, E>(self, f: impl FnMut(T) -> Result<U, E>) -> Result<Paged<U>, E> {
        let items = self
            .items
            .into_iter()
            .map(f)
            .collect::<Result<Vec<_>, E>>()?;
        Ok(Paged {
            items,
            total: self.total,
            query: self.query,
        })
    }
}

/// `ceil(total / limit)`.
pub fn total_pages(total: u64, limit: u32) -> u64 {
    total.div_ceil(u64::from(limit.max(1)))
}

/// Declares `$name`, the envelope of a list of `$item`, made from a `Paged<$item>`.
#[macro_export]
macro_rules! page_of {
    ($name:ident, $item:ty) => {
        /// One page of a list.
        #[derive(Clone, Debug, PartialEq, poem_openapi::Object)]
        #[oai(rename_all = "camelCase")]
        pub struct $name {
            pub data: Vec<$item>,
            pub total: u64,
            pub page: u32,
            pub limit: u32,
            pub total_pages: u64,
        }

        impl From<$crate::model::page::Paged<$item>> for $name {
            fn from(paged: $crate::model::page::Paged<$item>) -> $name {
                let (total, query) = (paged.total, paged.query);
                $name {
                    data: paged.items,
                    total,
                    page: query.page,
                    limit: query.limit,
                    total_pages: $crate::model::page::total_pages(total, query.limit),
                }
            }
        }
    };
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
