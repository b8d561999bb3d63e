//! Files under static/, compiled into the binary: the pages' styles and scripts, the home page,
//! and the fonts labels and papers are drawn with.

#[derive(rust_embed::RustEmbed)]
#[folder = "static/"]
pub struct Assets;
