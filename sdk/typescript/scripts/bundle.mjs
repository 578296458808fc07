// Builds bundle/zut-ext.js: the SDK's compiled ES modules (dist/, made by
// tsc from src/) joined into one ES module by the pinned esbuild, so Node,
// Bun and Deno load one file instead of six. The bundle is checked in, like
// dist/.
//
//   node scripts/bundle.mjs           write bundle/zut-ext.js (npm run bundle)
//   node scripts/bundle.mjs --check   exit 1 when the checked-in bundle is not
//                                     what the current dist/ gives
import { build } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "bundle", "zut-ext.js");

const result = await build({
  absWorkingDir: root,
  entryPoints: ["dist/index.js"],
  bundle: true,
  format: "esm",
  // No Node, Bun or Deno built-ins are imported: the bundle runs anywhere.
  platform: "neutral",
  target: "es2022",
  // Readable output (stack traces point at real code); comments from the
  // sources are dropped except licence ones.
  minify: false,
  legalComments: "inline",
  banner: { js: "// zut-ext: the zut extension SDK for TypeScript/JavaScript, bundled from dist/ by esbuild (npm run bundle). Do not edit; types: ../dist/index.d.ts." },
  write: false,
  logLevel: "warning",
});
const text = result.outputFiles[0].text;

if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(out, "utf8");
  } catch {
    // Missing: stale.
  }
  if (current !== text) {
    console.error("sdk/typescript/bundle/zut-ext.js is stale: run (cd sdk/typescript && npm run build)");
    process.exit(1);
  }
} else {
  writeFileSync(out, text);
}
