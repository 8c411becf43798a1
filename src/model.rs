//! From a model id to its wire format and reasoning setup.

use std::fmt;

use serde::Serialize;

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
    /// vLLM and SGLang take it in `chat_template_kwargs`). DeepSeek-V3.1
    /// and V3.2 with thinking on end the prompt with `<think>`, so the
    /// output starts inside reasoning; Qwen3, GLM-4.5+, Hermes 4 and
    /// Gemma 4 write their tags themselves; off, none of them reasons in
    /// text. Families without a switch are left as they are.
    ///
    /// ```
    /// use toolsieve::Format;
    ///
    /// let v31 = Format::for_model("deepseek-ai/DeepSeek-V3.1")?;
    /// assert!(v31.clone().thinking(true).reasoning.is_some_and(|r| r.starts_open));
    /// assert!(v31.thinking(false).reasoning.is_none());
    /// let qwen = Format::for_model("Qwen/Qwen3-8B")?.thinking(false);
    /// assert!(qwen.reasoning.is_none());
    /// # Ok::<(), toolsieve::ModelError>(())
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
pub enum ModelError {
    /// No known family matches the id.
    Unknown {
        /// The id as given.
        model: String,
        /// The families whose names are closest to it.
        closest: Vec<&'static str>,
    },
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Unknown { model, closest } => write!(
                f,
                "no known model family matches `{model}` (closest: {}); give --format instead",
                closest.join(", ")
            ),
        }
    }
}

impl std::error::Error for ModelError {}

/// How a family reasons in text.
#[derive(Clone, Copy)]
enum Think {
    No,
    /// `<think>` … `</think>`, written by the model.
    Tags,
    /// The template opens `<think>` in the prompt: the output starts
    /// inside reasoning.
    Open,
    /// The family's own tags.
    Tagged(&'static str, &'static str),
}

impl Think {
    fn reasoning(self) -> Option<Reasoning> {
        match self {
            Think::No => None,
            Think::Tags => Some(Reasoning::think()),
            Think::Open => Some(Reasoning::think().starting_open(true)),
            Think::Tagged(start, end) => Some(Reasoning::tags(start, end)),
        }
    }
}

/// One family: the id fragments that name it (any of them, matched in the
/// normalized id).
struct Family {
    name: &'static str,
    any: &'static [&'static str],
    format: Format,
    think: Think,
    /// The reasoning with the template's thinking switch on, if it has one.
    switch: Option<Think>,
}

const fn family(
    name: &'static str,
    any: &'static [&'static str],
    format: Format,
    think: Think,
) -> Family {
    Family {
        name,
        any,
        format,
        think,
        switch: None,
    }
}

impl Family {
    /// The family's template switches thinking; `on` is the reasoning then.
    const fn switched(mut self, on: Think) -> Family {
        self.switch = Some(on);
        self
    }
}

/// The families, most specific first: fine-tunes before their base
/// families (Hermes-3 is a Llama, it writes Hermes calls), variants
/// before the family (`qwen3-coder` before `qwen3`).
const FAMILIES: &[Family] = &[
    family("xLAM", &["xlam"], Format::Xlam, Think::No),
    family("ToolACE", &["toolace"], Format::Pythonic, Think::No),
    family("Hermes 4", &["hermes-4"], Format::Hermes, Think::Tags).switched(Think::Tags),
    family(
        "Hermes",
        &["hermes-2", "hermes-3", "hermes"],
        Format::Hermes,
        Think::No,
    ),
    // Distills of R1 into Qwen and Llama reason as R1 does.
    family(
        "DeepSeek-R1",
        &["deepseek-r1"],
        Format::DeepSeekV3,
        Think::Open,
    ),
    family(
        "Qwen3-Coder",
        &["qwen3-coder", "qwen3coder"],
        Format::Qwen3Coder,
        Think::No,
    ),
    family(
        "Qwen3.5",
        &["qwen3.5", "qwen3.6", "qwen3-5", "qwen35"],
        Format::Qwen3Coder,
        Think::Open,
    )
    .switched(Think::Open),
    family(
        "Qwen3 Thinking",
        &["qwen3-next-80b-a3b-thinking", "thinking-2507"],
        Format::Hermes,
        Think::Open,
    ),
    family("QwQ", &["qwq"], Format::Hermes, Think::Open),
    family("Qwen3", &["qwen3"], Format::Hermes, Think::Tags).switched(Think::Tags),
    family(
        "Qwen 2.5",
        &["qwen2.5", "qwen2", "qwen-2.5", "qwen"],
        Format::Hermes,
        Think::No,
    ),
    family(
        "DeepSeek-V3.2",
        &[
            "deepseek-v3.2",
            "deepseek-v3-2",
            "deepseek-v32",
            "deepseek-v4",
        ],
        Format::DeepSeekDsml,
        Think::Tags,
    )
    .switched(Think::Open),
    family(
        "DeepSeek-V3.1",
        &["deepseek-v3.1", "deepseek-v3-1", "deepseek-v31"],
        Format::DeepSeek,
        Think::Tags,
    )
    .switched(Think::Open),
    family(
        "DeepSeek-V3",
        &["deepseek-v3", "deepseek-chat"],
        Format::DeepSeekV3,
        Think::No,
    ),
    family(
        "Kimi-K2 Thinking",
        &["kimi-k2-thinking"],
        Format::KimiK2,
        Think::Tags,
    ),
    family(
        "Kimi-K2",
        &["kimi-k2", "kimi-k2.5"],
        Format::KimiK2,
        Think::No,
    ),
    family(
        "GLM-4.5/4.6/4.7",
        &[
            "glm-4.5", "glm-4.6", "glm-4.7", "glm4.5", "glm4.6", "glm4.7", "glm-5",
        ],
        Format::Glm,
        Think::Tags,
    )
    .switched(Think::Tags),
    family(
        "MiniMax-M2",
        &["minimax-m2"],
        Format::MiniMaxM2,
        Think::Tags,
    ),
    family(
        "gpt-oss",
        &["gpt-oss"],
        Format::Harmony,
        Think::Tagged("<|channel|>analysis<|message|>", "<|end|>"),
    ),
    family(
        "Llama 4",
        &["llama-4", "llama4"],
        Format::Pythonic,
        Think::No,
    ),
    family(
        "Llama 3.2",
        &["llama-3.2", "llama3.2"],
        Format::Pythonic,
        Think::No,
    ),
    family(
        "Llama 3.x",
        &["llama-3", "llama3"],
        Format::Llama3Json,
        Think::No,
    ),
    family("Olmo 3", &["olmo-3", "olmo3"], Format::Pythonic, Think::No),
    family(
        "Magistral",
        &[
            "magistral",
            "ministral-3-3b-reasoning",
            "ministral-3-8b-reasoning",
            "ministral-3-14b-reasoning",
        ],
        Format::Mistral,
        Think::Tagged("[THINK]", "[/THINK]"),
    ),
    family(
        "Mistral",
        &["mistral", "devstral", "mixtral", "ministral", "codestral"],
        Format::Mistral,
        Think::No,
    ),
    family(
        "Gemma 4",
        &["gemma-4", "gemma4"],
        Format::Gemma4,
        Think::Tagged("<|channel>thought", "<channel|>"),
    )
    .switched(Think::Tagged("<|channel>thought", "<channel|>")),
    family(
        "Gemma 3",
        &["gemma-3", "gemma3", "gemma"],
        Format::Gemma,
        Think::No,
    ),
    family(
        "Command-R/A",
        &["command-r", "command-a", "c4ai-command"],
        Format::Cohere,
        Think::Tagged("<|START_THINKING|>", "<|END_THINKING|>"),
    ),
    family("Granite", &["granite"], Format::Granite, Think::No),
    family(
        "Phi-4-mini",
        &["phi-4-mini", "phi4-mini"],
        Format::Phi4Mini,
        Think::No,
    ),
];

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
    /// # Ok::<(), toolsieve::ModelError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ModelError::Unknown`] with the closest family names.
    pub fn for_model(id: &str) -> Result<ModelSetup, ModelError> {
        let wanted = normalize(id);
        let family = FAMILIES
            .iter()
            .find(|f| f.any.iter().any(|a| wanted.contains(a)));
        let Some(family) = family else {
            return Err(ModelError::Unknown {
                model: id.to_owned(),
                closest: closest(&wanted),
            });
        };
        let format = family.format;
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
    let mut scored: Vec<(usize, &'static str)> = FAMILIES
        .iter()
        .map(|f| {
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
