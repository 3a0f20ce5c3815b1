// Tokenize files with VS Code's TextMate engine (vscode-textmate + vscode-oniguruma).
// Usage: node tokenize.js GRAMMAR.json FILE...   Prints JSON: {file: [[[start, end, scopes...], ...] per line]}.
'use strict';
const fs = require('fs');
const path = require('path');
const oniguruma = require('vscode-oniguruma');
const vsctm = require('vscode-textmate');

async function main() {
  const [grammarPath, ...files] = process.argv.slice(2);
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve('vscode-oniguruma')), 'onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async () => vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath),
  });
  const grammar = await registry.loadGrammar('source.rulelang');
  const out = {};
  for (const file of files) {
    let state = vsctm.INITIAL;
    const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/);
    out[file] = lines.map((line) => {
      const result = grammar.tokenizeLine(line, state);
      state = result.ruleStack;
      return result.tokens.map((t) => [t.startIndex, t.endIndex, ...t.scopes]);
    });
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => { console.error(err); process.exit(1); });
