//! The `warpcheck` command; everything lives in the library.

fn main() {
    std::process::exit(warpcheck::cli::main());
}
