#!/usr/bin/env python3
"""Checks that Cargo.toml's rust-version is true: no dependency of the
crate (normal or build, all features) declares a newer one. Clippy's
`incompatible_msrv` lint checks the crate's own code against it."""
import json
import subprocess
import sys

meta = json.loads(subprocess.check_output(
    ["cargo", "metadata", "--format-version", "1", "--all-features", "--locked"]))
packages = {p["id"]: p for p in meta["packages"]}
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
root = next(p for p in meta["packages"] if p["name"] == "toolsieve")


def version(text):
    return tuple(int(x) for x in (text or "0").split("."))[:2]


ours = version(root["rust_version"])
seen, stack = set(), [root["id"]]
while stack:
    node = stack.pop()
    if node in seen:
        continue
    seen.add(node)
    for dep in nodes[node]["deps"]:
        if any(k["kind"] in (None, "build") for k in dep["dep_kinds"]):
            stack.append(dep["pkg"])
newer = sorted(
    (packages[i]["name"], packages[i]["rust_version"])
    for i in seen
    if version(packages[i].get("rust_version")) > ours
)
if newer:
    sys.exit(f"rust-version {root['rust_version']} is older than what these need: {newer}")
print(f"rust-version {root['rust_version']}: every dependency builds with it")
