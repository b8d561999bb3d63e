//! The migrations are read by `refinery::embed_migrations!` while the crate compiles; a new or
//! changed file under `migrations/` must compile it again (cargo cannot see what a macro reads).

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
