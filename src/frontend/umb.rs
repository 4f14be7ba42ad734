//! UMB
