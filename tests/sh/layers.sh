#!/usr/bin/env bash
# The layering docs/ARCHITECTURE.md describes, checked: its list of layers
# (the code block under "## Layers", top down) is the one definition of
# their order, and no #include in src/ may name a header of a layer above
# its own, or of another protocol's folder under src/coherence/. The
# checker is first shown an upward include, which it must catch.
. tests/lib.sh

check() { # ROOT: the checker's verdict on ROOT/src against our document
    python3 - "$1" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
doc = open('docs/ARCHITECTURE.md').read()
block = doc.split('\n## Layers\n', 1)[1].split('```', 2)[1]
# A line " src/a/, src/b/   text" is one level (0 the top); "   x/   text"
# under src/coherence/ is a protocol's folder.
rank, protocols, level = {}, set(), 0
for line in block.splitlines():
    head = re.split(r'\s{2,}', line.strip(), 1)[0]
    if line.startswith(' src/'):
        rank.update({folder: level for folder in re.findall(r'src/([a-z_]+)/', head)})
        level += 1
    elif line.startswith('   ') and re.fullmatch(r'[a-z_]+/', head):
        protocols.add(head[:-1])
if len(rank) < 10 or not protocols:
    sys.exit(f'cannot read the layers from docs/ARCHITECTURE.md: {rank} {protocols}')
bad = 0
inc = re.compile(r'\s*#\s*include\s+"([a-z_]+)/(?:([a-z_]+)/)?[a-z_0-9]+\.h"')
for path in sorted(glob.glob(os.path.join(root, 'src/**/*.[ch]'), recursive=True)):
    parts = os.path.relpath(path, root).split('/')
    layer, proto = parts[1], parts[2] if len(parts) > 3 else None
    if layer not in rank:
        print(f'{path}: src/{layer}/ is not in the layer list of docs/ARCHITECTURE.md'); bad += 1
        continue
    for no, line in enumerate(open(path), 1):
        m = inc.match(line)
        if not m:
            continue
        to, to_proto = m.group(1), m.group(2)
        if to not in rank:
            print(f'{path}:{no}: {line.strip()}: src/{to}/ is not a layer'); bad += 1
        elif rank[to] < rank[layer]:
            print(f'{path}:{no}: {line.strip()}: src/{to}/ is above src/{layer}/'); bad += 1
        elif to == 'coherence' and to_proto in protocols and proto in protocols and to_proto != proto:
            print(f'{path}:{no}: {line.strip()}: another protocol\'s folder'); bad += 1
print(f'{len(rank)} layers, protocols {sorted(protocols)}')
sys.exit(1 if bad else 0)
PY
}

# An upward include and a protocol reaching into another's folder.
mkdir -p "$LOG/src/util" "$LOG/src/coherence/lrc"
echo '#include "boot/boot.h"' >"$LOG/src/util/up.c"
echo '#include "coherence/hlrc/hlrc.h"' >"$LOG/src/coherence/lrc/cross.c"
if ! check "$LOG" >"$LOG/out" 2>&1 && grep -q 'up.c:1: .*src/boot/ is above src/util/' "$LOG/out" &&
    grep -q "cross.c:1: .*another protocol's folder" "$LOG/out"; then
    ok "layers/the check catches an include that points up, or across protocols"
else
    bad "layers/the check missed a planted include" "$LOG/out"
fi

if check . >"$LOG/out" 2>&1; then
    ok "layers/every #include in src/ points down the layers of docs/ARCHITECTURE.md ($(tail -1 "$LOG/out"))"
else
    bad "layers/includes that point up a layer" "$LOG/out"
fi
finish
