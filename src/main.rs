/// mimalloc instead of glibc's malloc: a GET under load spent about a sixth of its CPU in
/// glibc's allocator and its arena locks (benches/run.sh, docs/decisions.md "Performance").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    shipbase::cli::main()
}
