// Decodes two SCIP indexes with the bindings scip-typescript ships (dist/src/scip.js) and checks
// that the first (nib's export) has every TypeScript document of the second (scip-typescript's
// own output) with the same definition ranges per symbol-free position. Prints a JSON summary;
// exits 1 with the differences when they differ, 2 on bad input.
// usage: node compare_export.js BINDINGS_JS NIB.scip SCIP_TYPESCRIPT.scip
'use strict';
const fs = require('fs');
const [bindings, nibFile, theirsFile] = process.argv.slice(2);
if (!theirsFile) {
  console.error('usage: node compare_export.js BINDINGS_JS NIB.scip SCIP_TYPESCRIPT.scip');
  process.exit(2);
}
const { scip } = require(bindings);
function load(file) {
  return scip.Index.deserializeBinary(new Uint8Array(fs.readFileSync(file)));
}
function definitions(index) {
  const byDoc = new Map();
  for (const doc of index.documents) {
    const ranges = new Set();
    for (const o of doc.occurrences) {
      const r = o.range;
      if ((o.symbol_roles & scip.SymbolRole.Definition) === 0) continue;
      if (r.length === 3 && r[1] === r[2]) continue;  // an empty range: a module's own
      ranges.add(r.join(':'));
    }
    byDoc.set(doc.relative_path, ranges);
  }
  return byDoc;
}
const ours = load(nibFile), theirs = load(theirsFile);
const a = definitions(ours), b = definitions(theirs);
const problems = [];
let compared = 0, ranges = 0;
for (const [path, want] of b) {
  // scip-typescript's paths are relative to its --cwd (the project): nib's to the repository.
  const match = [...a.keys()].find((p) => p === path || p.endsWith('/' + path));
  if (!match) { problems.push(`missing document ${path}`); continue; }
  compared++;
  const got = a.get(match);
  ranges += want.size;
  for (const r of want) if (!got.has(r)) problems.push(`${path}: definition at ${r} missing`);
  for (const r of got) if (!want.has(r)) problems.push(`${path}: extra definition at ${r}`);
}
console.log(JSON.stringify({ tool: ours.metadata.tool_info.name, documents: ours.documents.length, compared, ranges, problems }));
process.exit(problems.length ? 1 : 0);
