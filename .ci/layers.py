#!/usr/bin/env python3
"""The layer rules of STYLE.md, checked over the `use` lines and paths of src/ (issue 22).

    .ci/layers.py            # prints what breaks a rule; exits 1 if anything does
    .ci/layers.py --graph    # also prints every file's imports

Rules:
  1. No import circle between files of src/, in-folder ones included. A folder's `mod.rs`
     naming its own children (`mod x;`, `pub use x::Y;`, calling into them) is the folder
     composing itself and not an import; everything else is. A path through a re-export lands
     on the file the name is written in (`crate::service::Ctx` is `service/mod.rs`'s own).
  2. The edge (api/, web/, mcp/) never imports store/.
  3. service/, store/, model/ and carriers/ never import poem. The wire types live in model/,
     which uses poem_openapi for their derives and field types (Object, Enum, Base64, …); the
     service only uses the traits that act on them (ToJSON to store an answer, Type and the
     registry to check a body against its schema, MaybeUndefined of patch bodies) and declares
     none. store/ and carriers/ use none of it.
  4. Nothing below the edge imports the edge (app, api, web, mcp, cli, server).

Unit tests at the end of a file (`#[cfg(test)] mod tests`) and files declared `#[cfg(test)] mod
name;` are left out. A path is read as text: `crate::a::b::C`, `super::x`, and `use` trees with
braces; the file a path lands on is the longest module prefix that exists as a file.
"""

import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
EDGE = {"api", "web", "mcp"}
ABOVE = {"app", "api", "web", "mcp", "cli", "server"}
BELOW = {"service", "store", "model", "carriers"}
# What of poem_openapi each layer below the edge may use: model/ declares the wire types, the
# service only acts on them.
WIRE = {
    "model": {"Object", "Enum", "Union", "types", "Base64", "Any", "ToJSON", "Type",
              "ParseFromJSON", "registry", "MetaSchema", "MetaSchemaRef", "Registry",
              "ParseResult", "ParseError", "IsObjectType", "MaybeUndefined"},
    "service": {"types", "ToJSON", "Type", "registry", "MetaSchema", "MetaSchemaRef",
                "Registry", "MaybeUndefined"},
}


def modules():
    """Module path (tuple) → file, for every .rs file under src/."""
    found = {}
    for root, _, files in os.walk(SRC):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.relpath(os.path.join(root, name), SRC)
            parts = path[:-3].split(os.sep)
            if parts[-1] == "mod":
                parts = parts[:-1]
            if parts in (["lib"], ["main"]):
                parts = []
                if name == "main.rs":
                    continue
            found[tuple(parts)] = path
    return found


def strip(text):
    """Source without comments, strings, char literals (their text is not code) and the unit
    tests at the end of a file (`#[cfg(test)] mod …`: tests are no layer)."""
    tests = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    if tests:
        text = text[: tests.start()]
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\])'", "' '", text)
    return text


def expand(tree):
    """`a::{b, c::{d, e}}` → ["a::b", "a::c::d", "a::c::e"]."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix, rest):
        i = 0
        while i < len(rest):
            j, depth, item = i, 0, ""
            while j < len(rest) and not (rest[j] == "," and depth == 0):
                depth += rest[j] == "{"
                depth -= rest[j] == "}"
                j += 1
            item = rest[i:j]
            if "{" in item:
                head, inner = item.split("{", 1)
                walk(prefix + head, inner[: inner.rfind("}")])
            elif item:
                out.append(prefix + item)
            i = j + 1

    walk("", tree)
    return out


def paths_of(text):
    """(path, is_surface_use) for every path the file names."""
    found = []
    for m in re.finditer(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text):
        for path in expand(m.group(2)):
            found.append((path, bool(m.group(1))))
    body = re.sub(r"\buse\s+[^;]+;", "", text)
    for m in re.finditer(r"\b((?:crate|super|self)(?:::(?:super|\w+))+)", body):
        found.append((m.group(1), False))
    for m in re.finditer(r"(?<![:\w])(poem_openapi|poem)::(\w+)", body):
        found.append((f"{m.group(1)}::{m.group(2)}", False))
    return found


def resolve(path, here, mods):
    """The module a path lands on (tuple), or the external crate's name."""
    parts = path.split("::")
    if parts[0] == "crate":
        base, parts = (), parts[1:]
    elif parts[0] in ("super", "self"):
        base = here
        while parts and parts[0] in ("super", "self"):
            if parts[0] == "super":
                base = base[:-1]
            parts = parts[1:]
    elif here + (parts[0],) in mods:
        # `use child::X` names a module declared here.
        base = here
    else:
        return parts[0], parts[1:]
    full = base + tuple(p for p in parts if p not in ("*",))
    for n in range(len(full), -1, -1):
        if full[:n] in mods:
            return full[:n], full[n:]
    return (), full


def reexports(mods, texts):
    """(module, name) → the module that `pub use` in `module` brings `name` from."""
    found = {}
    for mod, text in texts.items():
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
            for path in expand(m.group(1)):
                name = path.split("::")[-1]
                if name in ("*", "self"):
                    continue
                target, _ = resolve(path, mod, mods)
                if not isinstance(target, str) and target != mod:
                    found[(mod, name)] = target
    return found


def through(target, rest, exported):
    """Follows re-exports: `crate::service::Ctx` lands where `Ctx` is written."""
    seen = set()
    while rest and (target, rest[0]) in exported and (target, rest[0]) not in seen:
        seen.add((target, rest[0]))
        target = exported[(target, rest[0])]
    return target


def main():
    mods = modules()
    graph = {m: set() for m in mods}
    problems = []
    texts = {mod: strip(open(os.path.join(SRC, file), encoding="utf-8").read())
             for mod, file in mods.items()}
    exported = reexports(mods, texts)
    # Files declared `#[cfg(test)] mod name;` hold tests too: no layer.
    tests = {mod + (name,) for mod, text in texts.items() for name in
             re.findall(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text)}
    for mod, file in sorted(mods.items()):
        if any(mod[:len(t)] == t for t in tests):
            continue
        text = texts[mod]
        children = set(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text, re.M))
        for path, surface in paths_of(text):
            target, rest = resolve(path, mod, mods)
            if isinstance(target, str):
                if target in ("poem", "poem_openapi") and mod and mod[0] in BELOW:
                    allowed = target == "poem_openapi" and rest \
                        and rest[0] in WIRE.get(mod[0], set())
                    if not allowed and "{" not in path:
                        problems.append(f"{file}: imports {path} (rule 3: no poem below the edge)")
                continue
            if not surface:
                target = through(target, list(rest), exported)
            if target == mod:
                continue
            # A folder's mod.rs naming its own children declares its surface.
            if (surface or path.split("::")[0] == "self") and target[:len(mod)] == mod \
                    and len(target) > len(mod) and target[len(mod)] in children:
                continue
            if target[:len(mod)] == mod and len(target) > len(mod) and target[len(mod)] in children \
                    and file.endswith("mod.rs"):
                # mod.rs calling into its own children is the folder composing itself.
                continue
            graph[mod].add(target)
            if mod and target and mod[0] in EDGE and target[0] == "store":
                problems.append(f"{file}: imports {'::'.join(('crate',) + target)} "
                                "(rule 2: the edge never imports store)")
            if mod and target and mod[0] not in ABOVE and target[0] in ABOVE:
                problems.append(f"{file}: imports {'::'.join(('crate',) + target)} "
                                "(rule 4: nothing below the edge imports the edge)")
    for circle in circles(graph):
        names = ", ".join(sorted(mods[m] for m in circle))
        problems.append(f"import circle of {len(circle)} files: {names}")
    if "--graph" in sys.argv:
        for mod in sorted(graph):
            print(mods[mod], "->", ", ".join(sorted(mods[t] for t in graph[mod])))
    for problem in sorted(set(problems)):
        print(problem)
    if problems:
        print(f"\n{len(set(problems))} layer rule(s) broken (see .ci/layers.py for the rules)")
        sys.exit(1)
    print("layers: no circles, every layer rule holds")


def circles(graph):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    m = stack.pop()
                    on.discard(m)
                    component.append(m)
                    if m == node:
                        break
                if len(component) > 1:
                    out.append(component)
    return out


if __name__ == "__main__":
    main()
