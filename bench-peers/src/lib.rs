//! See `benches/peers.rs`.
