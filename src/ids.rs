//! The ids and spans events carry: call, text and reasoning part numbers
//! (`call_0`, `text_1`, `reasoning_2` on the wire) and byte spans of the
//! stream. At the bottom of the crate: events, diagnostics and the engine
//! all use them.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

macro_rules! numbered_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            /// Reads the displayed form back.
            fn from_str(text: &str) -> Result<Self, String> {
                text.strip_prefix($prefix)
                    .and_then(|n| n.parse().ok())
                    .map($name)
                    .ok_or_else(|| concat!("expected `", $prefix, "<n>`").to_owned())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = Cow::<str>::deserialize(d)?;
                text.parse().map_err(de::Error::custom)
            }
        }
    };
}

numbered_id!(
    /// Identifies one text part of a stream; displayed as `text_N`.
    TextId,
    "text_"
);
numbered_id!(
    /// Identifies one tool call of a stream; displayed as `call_N`. Numbers
    /// count from 0 per stream, so they are the same for every chunking.
    CallId,
    "call_"
);

numbered_id!(
    /// Identifies one reasoning part of a stream; displayed as `reasoning_N`.
    ReasoningId,
    "reasoning_"
);

/// Where a call's raw text lies in the stream: byte offsets, end exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    /// Offset of the first byte of the start marker.
    pub start: u64,
    /// Offset one past the last byte of the call (end marker included).
    pub end: u64,
}
