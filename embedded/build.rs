//! Picks the emulated board from the target triple: writes its memory map (`memory.x` for
//! cortex-m-rt's `link.x`, or the whole `riscv.x` script) into OUT_DIR, passes the linker
//! script, and names the board for the reports (`SPANRING_BOARD`).
use std::{env, fs, path::PathBuf};

/// triple prefix → (board name, memory map).
fn board(target: &str) -> (&'static str, &'static str) {
    const NRF51: &str = "MEMORY { FLASH : ORIGIN = 0x00000000, LENGTH = 256K\n RAM : ORIGIN = 0x20000000, LENGTH = 16K }\n";
    const MPS2: &str = "MEMORY { FLASH : ORIGIN = 0x00000000, LENGTH = 4M\n RAM : ORIGIN = 0x20000000, LENGTH = 4M }\n";
    const VIRT: &str = "MEMORY { RAM : ORIGIN = 0x80000000, LENGTH = 16M }\n";
    match target {
        "thumbv6m-none-eabi" => ("microbit (Cortex-M0)", NRF51),
        "thumbv7m-none-eabi" => ("mps2-an385 (Cortex-M3)", MPS2),
        "thumbv7em-none-eabihf" => ("mps2-an386 (Cortex-M4F)", MPS2),
        "riscv32imac-unknown-none-elf" => ("virt (riscv32imac)", VIRT),
        "riscv32i-unknown-none-elf" => ("virt (riscv32i)", VIRT),
        other => panic!("no emulated board for target {other}; see embedded/README.md"),
    }
}

fn main() {
    let target = env::var("TARGET").unwrap();
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let (name, memory) = board(&target);
    println!("cargo:rustc-env=SPANRING_BOARD={name}");
    if target.starts_with("riscv") {
        let script = fs::read_to_string("src/board/riscv.x").unwrap();
        fs::write(out.join("riscv.x"), format!("{memory}{script}")).unwrap();
        println!("cargo:rustc-link-arg-bins=-Triscv.x");
    } else {
        fs::write(out.join("memory.x"), memory).unwrap();
        println!("cargo:rustc-link-arg-bins=-Tlink.x");
    }
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/board/riscv.x");
}
