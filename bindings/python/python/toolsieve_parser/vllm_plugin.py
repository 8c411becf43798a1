"""For `vllm serve --tool-parser-plugin toolsieve_parser.vllm_plugin` (or
this file's path): registers the toolsieve parsers when vLLM imports it
(the `vllm.general_plugins` entry point does the same without the flag)."""

from toolsieve_parser.vllm import register

register()
