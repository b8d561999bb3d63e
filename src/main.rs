fn main() -> std::process::ExitCode {
    shipbase::cli::main()
}
