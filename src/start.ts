// `npm start`: the server (server.js beside this file) in a node process of its own,
// started with SERVER_NODE_FLAGS and SERVER_MALLOC_ENV (server-flags.ts). A package.json
// script could set the variable only with shell syntax, which Windows' cmd does not run.
// The server runs in a process group of its own (not on Windows, where that would open a
// console window), so each signal reaches it once, from here: SIGINT (a terminal's Ctrl-C),
// SIGTERM and SIGHUP are passed on, and this process ends as the server did.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SERVER_MALLOC_ENV, SERVER_NODE_FLAGS } from './server-flags.js';

const server = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './server.ts' : './server.js', import.meta.url));
const windows = process.platform === 'win32';
const child = spawn(process.execPath, [...process.execArgv, ...SERVER_NODE_FLAGS, server, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...SERVER_MALLOC_ENV, ...process.env },
  detached: !windows,
});

const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const passOn = (signal: NodeJS.Signals) => {
  // On Windows the console's Ctrl-C reaches the server itself.
  if (windows && signal === 'SIGINT') return;
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const signal of signals) process.on(signal, passOn);

child.on('exit', (code, signal) => {
  for (const s of signals) process.off(s, passOn);
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
