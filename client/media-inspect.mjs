#!/usr/bin/env node
// `media-inspect`: inspect media URLs from a terminal (see `media-inspect --help`). Plain JavaScript: runs with
// `node` after `npm ci`, no build step; the logic is in client/cli/.
import { main } from "./cli/main.mjs";

/** @returns {Promise<string>} */
async function readStdin() {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, readStdin });
