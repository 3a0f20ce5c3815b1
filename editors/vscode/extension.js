// The rulelang extension: starts `rulelang lsp` for .rules and .scenario files.
// Highlighting comes from syntaxes/rulelang.tmLanguage.json (no code needed for it).
'use strict';
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const configured = vscode.workspace.getConfiguration('rulelang').get('server.command', ['rulelang', 'lsp']);
  const [command, ...args] = configured.length ? configured : ['rulelang', 'lsp'];
  const server = { command, args };
  client = new LanguageClient('rulelang', 'rulelang language server', { run: server, debug: server }, {
    documentSelector: [{ scheme: 'file', language: 'rulelang' }],
  });
  context.subscriptions.push(client);
  client.start().catch((err) => {
    vscode.window.showErrorMessage(
      `Could not start the rulelang language server (${command} ${args.join(' ')}): ${err.message}. ` +
      'Install it with `pip install "rulelang[lsp]"` or set rulelang.server.command.');
  });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
