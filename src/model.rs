//! From a model id to its wire format and reasoning setup.

use std::fmt;

use serde::Serialize;

use crate::formats::{Family, Think};
use crate::{Format, Reasoning};

/// What [`Format::for_model`] finds for a model id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ModelSetup {
    /// The model id as given.
    pub model: String,
    /// The model family it belongs to (`"Qwen3"`, `"DeepSeek-V3.1"`, …).
    pub family: &'static str,
    /// The format the family writes its calls in.
    pub format: Format,
    /// How the family delimits its reasoning, if it reasons in text.
    pub reasoning: Option<Reasoning>,
    /// The reasoning when the request turns thinking on, for families
    /// whose chat template has a switch for it (`None`: no switch).
    #[serde(skip)]
    thinking_on: Option<Option<Reasoning>>,
}

impl ModelSetup {
    /// The setup for a request that turns the family's thinking on or off
    /// (the `thinking` / `enable_thinking` switch of its chat template, as
    /// vLLM and SGLang take it in `chat_template_kwargs`). DeepSeek-V3.1,
    /// V3.2, GLM-4.7 and GLM-5 with thinking on end the prompt with
    /// `<think>`, so the output starts inside reasoning; Qwen3,
    /// GLM-4.5/4.6, Hermes 4 and Gemma 4 write their tags themselves; off,
    /// none of them reasons in text. Families without a switch are left
    /// as they are.
    ///
    /// ```
    /// use toolsieve::Format;
    ///
    /// let v31 = Format::for_model("deepseek-ai/DeepSeek-V3.1")?;
    /// assert!(v31.clone().thinking(true).reasoning.is_some_and(|r| r.starts_open));
    /// assert!(v31.thinking(false).reasoning.is_none());
    /// let qwen = Format::for_model("Qwen/Qwen3-8B")?.thinking(false);
    /// assert!(qwen.reasoning.is_none());
    /// # Ok::<(), toolsieve::ModelLookupError>(())
    /// ```
    #[must_use]
    pub fn thinking(mut self, on: bool) -> ModelSetup {
        if let Some(when_on) = &self.thinking_on {
            self.reasoning = if on { when_on.clone() } else { None };
        }
        self
    }

    /// Whether the family's chat template switches thinking on and off
    /// (see [`ModelSetup::thinking`]).
    pub fn has_thinking_switch(&self) -> bool {
        self.thinking_on.is_some()
    }

    /// A parser builder for the model: its format and reasoning tags.
    pub fn parser_builder(&self) -> crate::ParserBuilder {
        let builder = crate::Parser::builder(self.format);
        match &self.reasoning {
            Some(reasoning) => builder.reasoning(reasoning.clone()),
            None => builder,
        }
    }
}

/// Why [`Format::for_model`] found no setup.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelLookupError {
    /// No known family matches the id.
    Unknown {
        /// The id as given.
        model: String,
        /// The families whose names are closest to it.
        closest: Vec<&'static str>,
    },
}

impl fmt::Display for ModelLookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelLookupError::Unknown { model, closest } => write!(
                f,
                "no known model family matches `{model}` (closest: {}); give --format instead",
                closest.join(", ")
            ),
        }
    }
}

impl std::error::Error for ModelLookupError {}

/// Every family of every format, with its format.
fn families() -> impl Iterator<Item = (Format, &'static Family)> {
    Format::ALL
        .iter()
        .flat_map(|&format| format.spec().families.iter().map(move |f| (format, f)))
}

/// The family an id names: the model's own name (the id's last path
/// segment; the whole id if that names none) is matched against every
/// family's fragments; a fine-tune wins over its base family (Hermes on
/// Llama, R1's distills on Qwen), then the longest fragment (`qwen3-coder`
/// over `qwen3`).
fn family_of(wanted: &str) -> Option<(Format, &'static Family)> {
    let name = wanted.rsplit('/').next().unwrap_or(wanted);
    let best = |text: &str| {
        families()
            .filter_map(|(format, family)| {
                let longest = family
                    .any
                    .iter()
                    .filter(|fragment| text.contains(*fragment))
                    .map(|fragment| fragment.len())
                    .max()?;
                Some(((family.fine_tune, longest), format, family))
            })
            // The first of equals, in registry order.
            .fold(
                None,
                |best: Option<((bool, usize), Format, &'static Family)>, next| match best {
                    Some(b) if b.0 >= next.0 => Some(b),
                    _ => Some(next),
                },
            )
            .map(|(_, format, family)| (format, family))
    };
    best(name).or_else(|| best(wanted))
}

/// `id` as the fragments are written: lowercase, `_` and spaces as `-`.
fn normalize(id: &str) -> String {
    id.trim()
        .chars()
        .map(|c| match c {
            '_' | ' ' => '-',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

impl Format {
    /// The format and reasoning setup of a model, from its id as users
    /// write it: a Hugging Face id with or without its organisation, with
    /// quantisation suffixes (`-AWQ`, `-GGUF`, `-FP8`), an Ollama tag
    /// (`qwen3:8b`), or a path.
    ///
    /// ```
    /// use toolsieve::Format;
    ///
    /// let setup = Format::for_model("Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8")?;
    /// assert_eq!(setup.format, Format::Qwen3Coder);
    /// let setup = Format::for_model("deepseek-ai/DeepSeek-R1-0528")?;
    /// assert_eq!(setup.format, Format::DeepSeekV3);
    /// assert!(setup.reasoning.is_some_and(|r| r.starts_open));
    /// assert!(Format::for_model("no-such-model-7b").is_err());
    /// # Ok::<(), toolsieve::ModelLookupError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ModelLookupError::Unknown`] with the closest family names.
    pub fn for_model(id: &str) -> Result<ModelSetup, ModelLookupError> {
        let wanted = normalize(id);
        let Some((format, family)) = family_of(&wanted) else {
            return Err(ModelLookupError::Unknown {
                model: id.to_owned(),
                closest: closest(&wanted),
            });
        };
        let reasoning = family.think.reasoning();
        Ok(ModelSetup {
            model: id.to_owned(),
            family: family.name,
            format,
            reasoning,
            thinking_on: family.switch.map(Think::reasoning),
        })
    }
}

/// The three family names whose fragments are closest to the model's
/// own name (the id's last path segment, before any tag).
fn closest(wanted: &str) -> Vec<&'static str> {
    let base = wanted.rsplit('/').next().unwrap_or(wanted);
    let base = base.split(':').next().unwrap_or(base);
    let mut scored: Vec<(usize, &'static str)> = families()
        .map(|(_, f)| {
            let best = f
                .any
                .iter()
                .map(|a| {
                    let b = base.as_bytes();
                    distance(a.as_bytes(), &b[..b.len().min(a.len() + 2)])
                })
                .min()
                .unwrap_or(usize::MAX);
            (best, f.name)
        })
        .collect();
    scored.sort();
    let mut names: Vec<&'static str> = Vec::new();
    for (_, name) in scored {
        if !names.contains(&name) {
            names.push(name);
        }
        if names.len() == 3 {
            break;
        }
    }
    names
}

/// Levenshtein distance over bytes (ids are short).
fn distance(a: &[u8], b: &[u8]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}
