//! The format registry: canonical names, aliases, fuzz ids.

use std::collections::HashSet;

use toolsieve::Format;

#[test]
fn every_name_and_alias_names_one_format() {
    let mut seen = HashSet::new();
    for &format in Format::ALL {
        for name in std::iter::once(format.name()).chain(format.aliases().iter().copied()) {
            let key = name.to_ascii_lowercase().replace('_', "-");
            assert!(seen.insert(key), "`{name}` names two formats");
            assert_eq!(Format::from_name(name), Some(format), "{name}");
            assert_eq!(name.parse::<Format>().ok(), Some(format), "{name}");
        }
        assert_eq!(format.to_string(), format.name());
    }
}

#[test]
fn server_parser_names_map_over() {
    // vLLM's and SGLang's `--tool-call-parser` names, case and `_` free.
    for (name, format) in [
        ("hermes", Format::Hermes),
        ("qwen25", Format::Hermes),
        ("qwen3_coder", Format::Qwen3Coder),
        ("qwen3_xml", Format::Qwen3Coder),
        ("deepseek_v3", Format::DeepSeekV3),
        ("deepseekv3", Format::DeepSeekV3),
        ("deepseek_v31", Format::DeepSeek),
        ("deepseekv31", Format::DeepSeek),
        ("deepseek", Format::DeepSeek),
        ("deepseek_v32", Format::DeepSeekDsml),
        ("glm45", Format::Glm),
        ("glm47", Format::Glm),
        ("kimi_k2", Format::KimiK2),
        ("minimax_m2", Format::MiniMaxM2),
        ("minimax-m2", Format::MiniMaxM2),
        ("seed_oss", Format::SeedOss),
        ("kimi_k3", Format::KimiK3),
        ("step3p5", Format::Qwen3Coder),
        ("step5", Format::Qwen3Coder),
        ("Hermes", Format::Hermes),
        ("QWEN3-CODER", Format::Qwen3Coder),
    ] {
        assert_eq!(Format::from_name(name), Some(format), "{name}");
    }
    let err = "hermes3000".parse::<Format>().unwrap_err().to_string();
    assert!(
        err.contains("hermes3000") && err.contains("qwen3-coder"),
        "{err}"
    );
}

#[test]
fn fuzz_ids_are_unique_and_fixed() {
    let ids: HashSet<u8> = Format::ALL.iter().map(|f| f.fuzz_id()).collect();
    assert_eq!(ids.len(), Format::ALL.len());
    // Seeds and regression files depend on these: they never change.
    for (id, format) in [
        (0, Format::Hermes),
        (1, Format::Gemma),
        (2, Format::Qwen3Coder),
        (3, Format::MiniMaxM2),
        (4, Format::Glm),
        (5, Format::MorphXml),
        (6, Format::DeepSeek),
        (7, Format::KimiK2),
        (8, Format::DeepSeekDsml),
        (9, Format::DeepSeekV3),
        (10, Format::Phi4Mini),
        (11, Format::Granite),
        (12, Format::Xlam),
        (13, Format::Llama3Json),
        (19, Format::SeedOss),
        (20, Format::KimiK3),
    ] {
        assert_eq!(Format::from_fuzz_id(id), Some(format));
    }
    assert_eq!(Format::from_fuzz_id(200), None);
}

/// Model ids as users write them, and the setup each resolves to:
/// `(id, format, reasoning starts open)` — `None` for no reasoning.
#[test]
fn model_ids_resolve_to_their_family() {
    use toolsieve::Format::*;
    let cases: &[(&str, Format, Option<bool>)] = &[
        ("Qwen/Qwen3-8B", Hermes, Some(false)),
        ("Qwen/Qwen3-8B-AWQ", Hermes, Some(false)),
        ("qwen3:8b", Hermes, Some(false)),
        (
            "hf.co/unsloth/Qwen3-30B-A3B-GGUF:Q4_K_M",
            Hermes,
            Some(false),
        ),
        ("Qwen/Qwen3-235B-A22B-Thinking-2507-FP8", Hermes, Some(true)),
        ("Qwen/QwQ-32B", Hermes, Some(true)),
        ("Qwen/Qwen2.5-7B-Instruct", Hermes, None),
        ("qwen2.5:14b", Hermes, None),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", Qwen3Coder, None),
        (
            "/models/Qwen3-Coder-480B-A35B-Instruct-FP8",
            Qwen3Coder,
            None,
        ),
        ("Qwen/Qwen3.5-27B", Qwen3Coder, Some(true)),
        ("NousResearch/Hermes-3-Llama-3.1-8B", Hermes, None),
        ("NousResearch/Hermes-3-Llama-3.2-3B", Hermes, None),
        (
            "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
            DeepSeekV3,
            Some(true),
        ),
        ("qwen/qwq-32b-preview", Hermes, Some(true)),
        ("NousResearch/Hermes-4-70B", Hermes, Some(false)),
        ("deepseek-ai/DeepSeek-V3-0324", DeepSeekV3, None),
        ("deepseek-ai/DeepSeek-R1-0528", DeepSeekV3, Some(true)),
        (
            "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
            DeepSeekV3,
            Some(true),
        ),
        ("deepseek-ai/DeepSeek-V3.1-Terminus", DeepSeek, Some(false)),
        ("deepseek-ai/DeepSeek-V3.2-Exp", DeepSeekDsml, Some(false)),
        ("deepseek-ai/DeepSeek-V4", DeepSeekDsml, Some(false)),
        ("moonshotai/Kimi-K2-Instruct-0905", KimiK2, None),
        ("moonshotai/Kimi-K2-Thinking", KimiK2, Some(true)),
        ("moonshotai/Kimi-K2.5", KimiK2, Some(true)),
        ("zai-org/GLM-4.5-Air-FP8", Glm, Some(false)),
        ("zai-org/GLM-4.7", Glm, Some(true)),
        ("zai-org/GLM-5", Glm, Some(true)),
        ("zai-org/GLM-4.6", Glm, Some(false)),
        ("MiniMaxAI/MiniMax-M2", MiniMaxM2, Some(true)),
        ("MiniMaxAI/MiniMax-M2.5", MiniMaxM2, Some(true)),
        ("google/gemma-3-27b-it", Gemma, None),
        ("gemma3:12b", Gemma, None),
        ("ibm-granite/granite-3.3-8b-instruct", Granite, None),
        ("granite4:tiny-h", Granite, None),
        ("microsoft/Phi-4-mini-instruct", Phi4Mini, None),
        ("phi4-mini:3.8b-fp16", Phi4Mini, None),
        ("Salesforce/Llama-xLAM-2-8b-fc-r", Xlam, None),
        ("meta-llama/Llama-3.1-8B-Instruct", Llama3Json, None),
        ("llama3.3:70b", Llama3Json, None),
        ("Salesforce/xLAM-2-32b-fc-r", Xlam, None),
        (
            "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
            Mistral,
            None,
        ),
        ("mistralai/Magistral-Small-2509", Mistral, Some(false)),
        ("mistralai/Devstral-Small-2507", Mistral, None),
        ("mistralai/Mistral-7B-Instruct-v0.3", Mistral, None),
        ("mistral-nemo:12b", Mistral, None),
        ("CohereLabs/c4ai-command-a-03-2025", Cohere, Some(false)),
        ("CohereLabs/c4ai-command-r7b-12-2024", Cohere, Some(false)),
        ("openai/gpt-oss-120b", Harmony, Some(false)),
        ("gpt-oss:20b", Harmony, Some(false)),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", Pythonic, None),
        ("meta-llama/Llama-3.2-3B-Instruct", Pythonic, None),
        ("allenai/Olmo-3-7B-Instruct", Pythonic, None),
        ("allenai/Olmo-3-7B-Think", Pythonic, Some(true)),
        ("allenai/Olmo-3-32B-Think-DPO", Pythonic, Some(true)),
        ("google/gemma-4-31b-it", Gemma4, Some(false)),
        ("ByteDance-Seed/Seed-OSS-36B-Instruct", SeedOss, Some(false)),
        ("unsloth/Seed-OSS-36B-Instruct-GGUF", SeedOss, Some(false)),
        ("moonshotai/Kimi-K3", KimiK3, Some(true)),
        ("stepfun-ai/Step-3.5-Flash", Qwen3Coder, Some(true)),
        ("stepfun-ai/Step-3.7-Flash-FP8", Qwen3Coder, Some(true)),
        ("Kimi_K3-Instruct", KimiK3, Some(true)),
        (
            "mistralai/Ministral-3-14B-Reasoning-2512",
            Mistral,
            Some(false),
        ),
        ("mistralai/Ministral-3-14B-Instruct-2512", Mistral, None),
    ];
    for &(id, format, open) in cases {
        let setup = Format::for_model(id).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(setup.format, format, "{id}");
        assert_eq!(
            setup.reasoning.as_ref().map(|r| r.starts_open),
            open,
            "{id}"
        );
        assert_eq!(setup.model, id);
        // The setup builds a parser.
        setup.parser_builder().build().unwrap();
    }
}

/// `(id, reasoning starts open with thinking on)` for the families whose
/// template switches thinking; off, none reads reasoning.
#[test]
fn the_thinking_switch_sets_each_familys_reasoning() {
    let switched: &[(&str, bool, &str)] = &[
        ("deepseek-ai/DeepSeek-V3.1", true, "<think>"),
        ("deepseek-ai/DeepSeek-V3.1-Terminus", true, "<think>"),
        ("deepseek-ai/DeepSeek-V3.2-Exp", true, "<think>"),
        ("Qwen/Qwen3-8B", false, "<think>"),
        ("Qwen/Qwen3.5-27B", true, "<think>"),
        ("zai-org/GLM-4.6", false, "<think>"),
        ("zai-org/GLM-4.7", true, "<think>"),
        ("moonshotai/Kimi-K2.5", true, "<think>"),
        ("NousResearch/Hermes-4-70B", false, "<think>"),
        ("google/gemma-4-31b-it", false, "<|channel>thought"),
    ];
    for &(id, open, start) in switched {
        let setup = Format::for_model(id).unwrap();
        assert!(setup.has_thinking_switch(), "{id}");
        let on = setup.clone().thinking(true).reasoning.unwrap();
        assert_eq!((on.starts_open, on.start.as_str()), (open, start), "{id}");
        assert!(setup.thinking(false).reasoning.is_none(), "{id}");
    }
    // No switch: the setting changes nothing.
    for id in [
        "deepseek-ai/DeepSeek-R1",
        "openai/gpt-oss-20b",
        "Qwen/Qwen2.5-7B",
    ] {
        let setup = Format::for_model(id).unwrap();
        assert!(!setup.has_thinking_switch(), "{id}");
        assert_eq!(setup.clone().thinking(false), setup, "{id}");
    }
}

#[test]
fn unknown_models_name_the_closest_families() {
    for id in ["", "quwen3-8b", "totally-new-model", "ü/ö:ß", "/"] {
        match Format::for_model(id) {
            Err(e @ toolsieve::ModelLookupError::Unknown { .. }) => {
                let message = e.to_string();
                assert!(message.contains("closest"), "{message}");
            }
            other => panic!("{id:?}: {other:?}"),
        }
    }
    let Err(toolsieve::ModelLookupError::Unknown { closest, .. }) = Format::for_model("quwen3-8b")
    else {
        panic!()
    };
    assert!(closest.iter().any(|c| c.starts_with("Qwen")), "{closest:?}");
}

/// The tables between `<!-- generated by … -->` and `<!-- end of generated
/// table -->` in `file` (for `src/lib.rs`, its `//!` lines).
fn generated_tables(file: &str) -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    let text: String = if file.ends_with(".rs") {
        text.lines()
            .filter_map(|l| l.strip_prefix("//!"))
            .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
            .collect()
    } else {
        text
    };
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("<!-- generated by `toolsieve formats --markdown`: ") {
        rest = &rest[at..];
        let kind_end = rest.find(" -->").unwrap();
        let kind =
            rest["<!-- generated by `toolsieve formats --markdown`: ".len()..kind_end].to_owned();
        let end = rest.find("<!-- end of generated table -->").unwrap();
        let table = rest[kind_end + " -->".len()..end].trim().to_owned() + "\n";
        out.push((kind, table));
        rest = &rest[end..];
    }
    out
}

/// The checked-in format and model tables are the registry's: a format or
/// family added in `src/formats/` shows in them once they are regenerated
/// (`toolsieve formats --markdown`), and this fails until then.
#[test]
fn documented_tables_are_generated_from_the_registry() {
    let formats = Format::formats_markdown();
    let families = Format::families_markdown();
    let mut seen = 0;
    for file in ["README.md", "docs/formats.md", "src/lib.rs"] {
        for (kind, table) in generated_tables(file) {
            let want = match kind.as_str() {
                "formats" => &formats,
                "model families" => &families,
                other => panic!("{file}: unknown generated table {other:?}"),
            };
            assert_eq!(
                &table, want,
                "{file}: the {kind} table differs from the registry"
            );
            seen += 1;
        }
    }
    assert_eq!(seen, 4, "a generated table went missing");
}

/// Kimi-K2's thinking models start inside reasoning and may end it by
/// starting their calls; the instruct model reasons in no text.
#[test]
fn kimi_k2_thinking_models_end_reasoning_at_calls() {
    for id in ["moonshotai/Kimi-K2-Thinking", "moonshotai/Kimi-K2.5"] {
        let reasoning = Format::for_model(id).unwrap().reasoning.unwrap();
        assert!(reasoning.starts_open && reasoning.ends_at_calls, "{id}");
        assert!(!reasoning.calls_inside, "{id}");
    }
    let instruct = Format::for_model("moonshotai/Kimi-K2-Instruct-0905").unwrap();
    assert!(instruct.reasoning.is_none());
}
