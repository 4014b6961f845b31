//! Helpers shared by the bridge's integration tests.
#![allow(dead_code)] // each test file uses a part

use std::time::Duration;

/// The bound on every wait in these tests: far above what a run needs, so only a hang hits it.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// A fresh `ipc://` address in the temp dir (the socket file is removed first).
pub fn ipc_address(name: &str) -> String {
    let path =
        std::env::temp_dir().join(format!("spanring-zmq-{name}-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    format!("ipc://{}", path.display())
}
