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
        ("Hermes", Format::Hermes),
        ("QWEN3-CODER", Format::Qwen3Coder),
    ] {
        assert_eq!(Format::from_name(name), Some(format), "{name}");
    }
    let err = "hermes3000".parse::<Format>().unwrap_err().to_string();
    assert!(err.contains("hermes3000") && err.contains("qwen3-coder"), "{err}");
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
    ] {
        assert_eq!(Format::from_fuzz_id(id), Some(format));
    }
    assert_eq!(Format::from_fuzz_id(200), None);
}
