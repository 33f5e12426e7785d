//! Bakes libtorch's library directory into this crate's binaries and tests (rpath), so they
//! run without `LD_LIBRARY_PATH`. The one build script of every crate that links libtorch
//! (hane-nn, hane-train and hane-cli name it with `build = "../nn/build.rs"`). torch-sys exports the directory as `DEP_TCH_LIBTORCH_LIB`,
//! which only reaches build scripts of crates that depend on torch-sys directly. Linking
//! `libtorch` itself (not only `libtorch_cpu`) with `--no-as-needed` keeps the CUDA
//! libraries loaded, so `tch::Cuda::is_available()` sees a GPU when there is one. In hane-cli
//! only `hane-torch` and the tests get these flags, so `hane` links no libtorch.

fn main() {
    println!("cargo:rerun-if-changed={}/../nn/build.rs", env!("CARGO_MANIFEST_DIR"));
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    let mut args = vec!["-Wl,--no-as-needed".to_string(), "-ltorch".to_string()];
    if let Some(lib) = std::env::var_os("DEP_TCH_LIBTORCH_LIB") {
        args.insert(0, format!("-Wl,-rpath={}", lib.to_string_lossy()));
    }
    for arg in args {
        if std::env::var("CARGO_PKG_NAME").as_deref() == Ok("hane-cli") {
            // Only `hane-torch` and the tests link libtorch: `hane` starts without it.
            println!("cargo:rustc-link-arg-bin=hane-torch={arg}");
            println!("cargo:rustc-link-arg-tests={arg}");
        } else {
            println!("cargo:rustc-link-arg={arg}");
        }
    }
}
